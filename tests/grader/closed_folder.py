#!/usr/bin/python3
# As root, a checkout under a folder only root may enter (/root is 0700 in Debian and Ubuntu
# images; so is a `mktemp -d` folder) grades as one anywhere else: bubblewrap binds what the
# sandbox reads while it is still root, and the submission's own user is set inside.
#
#   closed_folder.py --build-dir BUILD [--work DIR]
#   closed_folder.py --build-dir BUILD --then COMMAND...   run COMMAND there instead (ctest
#                    grader_hostile: the whole hostile suite under the closed folder); not as root,
#                    or where root may not make namespaces, COMMAND runs as it is
#
# Rebuilding the grader in a fresh clone would cost minutes of CI, so the checkout is instead put
# under a closed folder where it is: in a mount namespace of this test's own, the checkout's parent
# folder is replaced by an empty tmpfs of mode 0700 that holds only the checkout (bound, so its
# path and its build's absolute paths stay the same; a build folder beside the checkout is bound
# there too). There, as root, a class of chapter 00 is graded with the grader's build and a
# --scratch folder both under 0700 folders: the reference solution and a hostile one that rewrites
# the checkout score full marks, one that includes /etc/passwd scores zero, all in the sandbox, and
# the checkout is unchanged. Exit status 77 (ctest: skipped) when not root, or where root may not
# make namespaces.
"""Grades chapter 00 as root from a checkout under a 0700 folder (see the comment above)."""

import argparse
import csv
import os
import shutil
import stat
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import List

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
sys.path[:0] = [str(HERE), str(REPO / "grader")]
import hostile  # noqa: E402  (its class-making helpers)
from scanlab_grade import sandbox as sandboxing  # noqa: E402

SKIP = 77
CHAPTER = "00_sequential"
# student -> (attack file or None for the plain reference solution, expected result)
STUDENTS = {"solution": (None, "full"), "tamper": ("tamper_checkout", "full"),
            "passwd": ("include_passwd", "zero")}
failures: List[str] = []


def expect(ok: bool, what: str) -> None:
    print(("ok    " if ok else "FAIL  ") + what, flush=True)
    if not ok:
        failures.append(what)


def why_not_closed() -> str:
    """Why the checkout cannot be put under a closed folder here, or "" when it can."""
    if os.geteuid() != 0:
        return "only root runs submissions as users of their own (run the test as root)"
    box = sandboxing.probe()
    if not box.enabled or not box.privileged:
        return ("root may not make namespaces here (no CAP_SYS_ADMIN), so the grader uses the unprivileged "
                f"sandbox, which needs passable folders ({box.reason or 'user namespaces'})")
    if REPO.parent == Path("/"):
        return f"the checkout {REPO} has no parent folder to close but /"
    return ""


def outer(build: Path, then: List[str]) -> int:
    why = why_not_closed()
    if why and then:
        print(f"not under a closed folder: {why}\n+ " + " ".join(then), flush=True)
        return subprocess.run(then).returncode
    if why:
        print(f"skipped: {why}")
        return SKIP
    # The tmpfs is made here (a 0700 folder of mkdtemp's) and then moved onto the checkout's parent.
    staging = Path(tempfile.mkdtemp(prefix="scanlab-closed-"))
    try:
        cmd = ["unshare", "--mount", "--propagation", "private", "--", sys.executable, __file__,
               "--build-dir", str(build), "--inner", str(staging)] + (["--then", *then] if then else [])
        print("+ " + " ".join(cmd), flush=True)
        return subprocess.run(cmd, cwd="/").returncode
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def mount(*args: str) -> None:
    subprocess.run(["mount", *args], check=True)


def inner(build: Path, staging: Path, then: List[str]) -> int:
    parent = REPO.parent
    mount("-t", "tmpfs", "-o", "mode=0700", "scanlab-closed", str(staging))
    # The checkout, and a build folder beside it (cmake -B ../build), keep their paths.
    kept = [REPO]
    if build.is_relative_to(parent) and not build.is_relative_to(REPO):
        kept.append(parent / build.relative_to(parent).parts[0])
    for folder in kept:
        (staging / folder.name).mkdir()
        mount("--rbind", str(folder), str(staging / folder.name))
    mount("--move", str(staging), str(parent))
    expect(stat.S_IMODE(parent.stat().st_mode) == 0o700 and (REPO / "lab").is_file(),
           f"the checkout {REPO} lies under {parent}, mode 0700, which only root may enter")
    inside = build.resolve().is_relative_to(REPO)
    print(f"the grader build {build} " + ("is under it too" if inside else "is outside the checkout"))
    if then:
        print("+ " + " ".join(then), flush=True)
        rc = subprocess.run(then).returncode
        return rc if rc != 0 else len(failures)

    work = parent / "scanlab-closed-folder-test"
    work.mkdir(mode=0o700)
    scratch = work / "scratch"
    scratch.mkdir(mode=0o700)
    class_dir, out_csv = work / "class", work / "class.csv"
    for name, (attack, _) in STUDENTS.items():
        if attack is None:
            meta = {"base": "solution", "code": ""}
        else:
            meta = hostile.parse_attack(HERE / "hostile" / f"{attack}.attack")
        hostile.make_student(class_dir / name, name, meta, 9, out_csv, build)
    watched = [REPO / "tests" / "grade" / f"{CHAPTER}.cu", REPO / "grader" / "scanlab_grade" / "cli.py",
               *[REPO / "exercises" / CHAPTER / f for f in hostile.FILES[CHAPTER]]]
    before = {p: p.read_bytes() for p in watched}

    cmd = [sys.executable, "-m", "scanlab_grade", "--build-dir", str(build), "--chapters", CHAPTER[:2],
           "--class", str(class_dir), "--csv", str(out_csv), "--orders", "default", "--timeout", "5",
           "--build-timeout", "120", "--scratch", str(scratch)]
    print("+ " + " ".join(cmd), flush=True)
    proc = subprocess.run(cmd, env=dict(os.environ, PYTHONPATH=str(REPO / "grader")), stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True)
    print(proc.stdout, flush=True)
    expect(proc.returncode == 0, f"the class was graded (exit status {proc.returncode})")
    rows = {}
    if out_csv.is_file():
        with open(out_csv, newline="") as f:
            rows = {row["student"]: row for row in csv.DictReader(f)}
    for name, (attack, want) in STUDENTS.items():
        row = rows.get(name)
        if row is None:
            expect(False, f"{name}: a row in the CSV")
            continue
        total, points = int(row["total"]), int(row["points"])
        what = attack or "the reference solution"
        if want == "full":
            expect(total == points > 0, f"{name} ({what}): full marks ({total} of {points}) {row['notes']}")
        else:
            expect(total == 0, f"{name} ({what}): zero ({total} of {points}) {row['notes']}")
        expect(row["sandbox"] == "on", f"{name}: graded in the sandbox")
    expect(all(p.read_bytes() == data for p, data in before.items()), "the checkout's files are unchanged")
    expect(hostile.PASSWD_LINE not in proc.stdout + (out_csv.read_text() if out_csv.is_file() else ""),
           "no output shows /etc/passwd")
    expect(not any(scratch.iterdir()), "the grader removed its scratch folder")
    if failures:
        print(f"\n{len(failures)} check(s) failed:\n  " + "\n  ".join(failures))
        return 1
    return 0


def main(argv: List[str]) -> int:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--build-dir", type=Path, required=True, help="the grader's build folder")
    p.add_argument("--work", type=Path, help="(unused: the test works in the closed folder it makes)")
    p.add_argument("--inner", type=Path, help=argparse.SUPPRESS)
    p.add_argument("--then", nargs=argparse.REMAINDER, default=[],
                   help="a command to run under the closed folder instead of the class of chapter 00")
    a = p.parse_args(argv)
    if a.inner:
        return inner(a.build_dir.resolve(), a.inner, a.then)
    return outer(a.build_dir.resolve(), a.then)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
