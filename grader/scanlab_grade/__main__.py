"""python3 -m scanlab_grade: the same as the scanlab-grade console script."""
import sys

from scanlab_grade.cli import main

sys.exit(main())
