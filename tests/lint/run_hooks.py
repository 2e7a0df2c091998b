#!/usr/bin/env python3
"""The ctest lint_hooks: the hooks of .pre-commit-config.yaml (clang-format, shellcheck, ruff) over
every file git tracks, as `./lab lint` runs them. Checks only: no file is changed.

    run_hooks.py [--root DIR] [--home DIR]   DIR: the checkout (default: this one); pre-commit's
                                             own folder (PRE_COMMIT_HOME; default: a temporary one)

Exit status: pre-commit's (0: every hook passed), or 77, which ctest reports as a skipped test, when
the checks cannot run here: no git checkout, a tool missing (`./lab lint` installs them), or a
clang-format other than 14, whose layout differs from the one the tree is formatted with. ruff is
looked for in build/tools/bin first, where ./lab installs it from PyPI.
"""

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SKIP = 77
CLANG_FORMAT_MAJOR = "14"  # Debian 12's, the version the tree is formatted with
TOOLS = ("git", "pre-commit", "clang-format", "shellcheck", "ruff")


def tool_path():
    """PATH with the checkout's build/tools/bin (ruff from PyPI, installed by ./lab) first."""
    return os.pathsep.join([str(REPO / "build" / "tools" / "bin"), os.environ.get("PATH", "/usr/bin:/bin")])


def why_not(root: Path) -> list[str]:
    """Why the hooks cannot run on this checkout here, one reason a line (empty: they can)."""
    path = tool_path()
    reasons = [f"{tool} is not installed" for tool in TOOLS if not shutil.which(tool, path=path)]
    if reasons:
        return reasons + ["(./lab lint installs them)"]
    inside = subprocess.run(["git", "-C", str(root), "rev-parse", "--is-inside-work-tree"],
                            capture_output=True, text=True)
    if inside.returncode != 0 or inside.stdout.strip() != "true":
        return [f"{root} is not a git checkout (pre-commit checks the files git tracks)"]
    version = subprocess.run([shutil.which("clang-format", path=path), "--version"],
                             capture_output=True, text=True).stdout
    major = re.search(r"version (\d+)\.", version)
    if not major or major.group(1) != CLANG_FORMAT_MAJOR:
        return [f"this clang-format is {version.strip() or 'of no known version'}; the tree is formatted "
                f"with clang-format {CLANG_FORMAT_MAJOR} (Debian 12's), whose layout differs from others'"]
    return []


def run_hooks(root: Path, home: Path, *args: str) -> subprocess.CompletedProcess:
    """`pre-commit run --all-files ARGS` in `root`, its output captured (stdout and stderr in one)."""
    env = dict(os.environ, PATH=tool_path(), PRE_COMMIT_HOME=str(home))
    return subprocess.run(["pre-commit", "run", "--all-files", "--color", "never", *args], cwd=root, env=env,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--root", type=Path, default=REPO)
    parser.add_argument("--home", type=Path)
    args = parser.parse_args()
    reasons = why_not(args.root)
    if reasons:
        print("lint_hooks: skipped: " + "; ".join(reasons))
        return SKIP
    with tempfile.TemporaryDirectory(prefix="scanlab-pre-commit-") as tmp:
        result = run_hooks(args.root, args.home or Path(tmp))
    print(result.stdout, end="")
    if result.returncode != 0:
        print("lint_hooks: a hook failed (above). `./lab lint --fix` rewrites the C++/CUDA files with "
              "clang-format and applies ruff's fixes; shellcheck's findings are fixed by hand.")
    return result.returncode


if __name__ == "__main__":
    sys.exit(main())
