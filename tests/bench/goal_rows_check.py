"""The rows the speed goals are checked on (bench/goals.py), as `scanlab_bench --list` names them
(no GPU needed): every goal's row and the CUB rows its ratio needs are in the bench, so that
`./lab goals --run` measures them all. Exit 0 when so, 1 with what is missing.

    python3 goal_rows_check.py build/cpu/bin/gpu/scanlab_bench
"""

import sys
from pathlib import Path

from bench_listing import main

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
import goals  # noqa: E402


def problems(rows: dict[str, str]) -> list[str]:
    return [f"no row {name}, which bench/goals.py needs" for name in goals.goal_rows() if name not in rows]


if __name__ == "__main__":
    sys.exit(main(__doc__, "the speed goals' rows", problems))
