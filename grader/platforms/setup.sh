#!/usr/bin/env bash
# Gradescope runs this once, as root, when it builds the autograder's image from autograder.zip
# (made by `./lab autograder gradescope`; the zip is unpacked into /autograder/source). It installs
# the lab's packages with the lab's own install step (the one package list, lab's *_PACKAGES) and
# builds what every grade needs once (the checkers, the emulator and the runners' runtime: `lab
# grade --prepare`), so that a submission costs only the compile of the student's files.
#
# Choose the Ubuntu 24.04 base image on Gradescope's Configure Autograder page: the build needs
# CMake 3.25 or newer, and 22.04 has 3.22.
#
# Settings from the environment (the tests use them to lay Gradescope out in a temporary folder):
#   SCANLAB_AUTOGRADER_ROOT       Gradescope's folder (default /autograder)
#   SCANLAB_AUTOGRADER_LAB        the lab (default: the zip's copy, ROOT/source/scanlab)
#   SCANLAB_AUTOGRADER_SETTINGS   the assignment's settings (default: autograder.json in the lab)
#   SCANLAB_AUTOGRADER_BUILD_DIR  the grader's build folder (default: the lab's own)
set -euo pipefail

ROOT=${SCANLAB_AUTOGRADER_ROOT:-/autograder}
LAB=${SCANLAB_AUTOGRADER_LAB:-$ROOT/source/scanlab}

# As root, the grader runs each submission as a user of its own, who must be able to pass through
# every folder on the way to the lab and its build.
chmod o+x "$ROOT" "$ROOT/source" "$LAB"

# Installs the packages (python3 first, which the rest needs) and runs `lab grade --prepare` for the
# assignment's chapters (scanlab/autograder.json), with SCANLAB_AUTOGRADER_BUILD_DIR when it is set.
"$LAB/lab" autograder prepare
