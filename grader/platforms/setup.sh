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
#   SCANLAB_AUTOGRADER_BUILD_DIR  the grader's build folder (default: the lab's own)
set -euo pipefail

ROOT=${SCANLAB_AUTOGRADER_ROOT:-/autograder}
LAB="$ROOT/source/scanlab"
chapters=$(sed -n 's/.*"chapters": *\[\([^]]*\)\].*/\1/p' "$LAB/autograder.json" | tr -d ' "')

# As root, the grader runs each submission as a user of its own, who must be able to pass through
# every folder on the way to the lab and its build.
chmod o+x "$ROOT" "$ROOT/source" "$LAB"

args=(grade --prepare --chapters "$chapters")
if [[ -n "${SCANLAB_AUTOGRADER_BUILD_DIR:-}" ]]; then
  args+=(--build-dir "$SCANLAB_AUTOGRADER_BUILD_DIR")
fi
"$LAB/lab" "${args[@]}"
echo "scanlab autograder: ready to grade chapters $chapters"
