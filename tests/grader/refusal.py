#!/usr/bin/python3
# Without a sandbox, `lab grade` grades nothing, says why and how to get one, and exits with its
# own status; --no-sandbox is the only way on, and then the report says the sandbox was off.
#
#   refusal.py --build-dir BUILD --work DIR
#
# The machine's own tools are offered on a PATH of links to them (a folder in /tmp that any user
# may pass through: as root, the grader's fallback runs bwrap as another user), so that:
#   - bwrap hidden: the PATH has no bwrap;
#   - namespaces refused: its bwrap is a stand-in that fails as bubblewrap does where user
#     namespaces are off (and, as root, as it does without CAP_SYS_ADMIN);
# in both, cmake, ninja and the compilers on it are stand-ins that record every call, and the
# grade is given an empty build folder: had the grader gone on, it would have configured that
# build with cmake before compiling any student's file, so no recorded call means nothing was
# compiled. Each refusal is tried for one folder and for a class. Then, with bwrap hidden and
# the real tools, --no-sandbox grades chapter 00's reference solution to full marks with the
# grader's build BUILD, and the report says the sandbox was off.
"""Checks that lab grade refuses to grade without a sandbox (see the comment above)."""

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import List

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
sys.path.insert(0, str(REPO / "grader"))
from scanlab_grade.sandbox import EXIT_NO_SANDBOX  # noqa: E402

SYSTEM_BIN = ["/usr/local/sbin", "/usr/local/bin", "/usr/sbin", "/usr/bin", "/sbin", "/bin"]
RECORDED = ["cmake", "ninja", "c++", "g++", "gcc", "cc", "nvcc"]
# What bubblewrap 0.8 prints (and exits 1 with) where it may not make namespaces: as an ordinary
# user when user namespaces are off, and as root without CAP_SYS_ADMIN.
USERNS_REFUSED = ("bwrap: No permissions to create new namespace, likely because the kernel does not allow "
                  "non-privileged user namespaces. See <https://deb.li/bubblewrap> or "
                  "<file:///usr/share/doc/bubblewrap/README.Debian.gz>.")
ROOT_REFUSED = "bwrap: Creating new namespace failed: Operation not permitted"
failures: List[str] = []


def expect(ok: bool, what: str) -> None:
    print(("ok    " if ok else "FAIL  ") + what, flush=True)
    if not ok:
        failures.append(what)


def tool_folder(folder: Path, *, bwrap_script: str = "", record: Path = None) -> Path:
    """A folder of links to the machine's programs, without bwrap (or with `bwrap_script` as
    bwrap), and with `record`: stand-ins for the build tools that append their call to it."""
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    for d in SYSTEM_BIN:
        if not os.path.isdir(d):
            continue
        for name in os.listdir(d):
            path = os.path.join(d, name)
            if name != "bwrap" and not (folder / name).exists() and os.access(path, os.X_OK):
                (folder / name).symlink_to(path)
    stand_ins = {}
    if bwrap_script:
        stand_ins["bwrap"] = bwrap_script
    if record is not None:
        for name in RECORDED:
            stand_ins[name] = f'#!/bin/sh\necho "{name} $*" >> "{record}"\nexit 1\n'
    for name, text in stand_ins.items():
        (folder / name).unlink(missing_ok=True)
        (folder / name).write_text(text)
        (folder / name).chmod(0o755)
    return folder


def lab_grade(path: Path, args: List[str]) -> subprocess.CompletedProcess:
    env = {"PATH": str(path), "HOME": os.environ.get("HOME", "/root"), "LANG": "C.UTF-8",
           "SCANLAB_NO_INSTALL": "1"}
    cmd = [str(REPO / "lab"), "grade", *args]
    print("+ PATH=" + str(path) + " " + " ".join(cmd), flush=True)
    p = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=600)
    print(p.stdout, flush=True)
    return p


def refusals(work: Path, tools: Path, case: str, bwrap_script: str, says: List[str]) -> None:
    """lab grade refuses, with `says` in its message, for one folder and for a class."""
    record = work / case / "calls.log"
    path = tool_folder(tools / case, bwrap_script=bwrap_script, record=record)
    class_dir = work / case / "class"
    (class_dir / "student").mkdir(parents=True, exist_ok=True)
    shutil.copytree(REPO / "solutions" / "00_sequential", class_dir / "student" / "00_sequential",
                    dirs_exist_ok=True)
    modes = {"one folder": ["--exercises", str(REPO / "solutions")],
             "a class": ["--class", str(class_dir), "--csv", str(work / case / "class.csv")]}
    for mode, args in modes.items():
        build = work / case / "build"  # empty: any step past the refusal would configure it
        shutil.rmtree(build, ignore_errors=True)
        record.unlink(missing_ok=True)
        p = lab_grade(path, ["--chapters", "00", "--build-dir", str(build), "--scratch", str(work / case),
                             "--verbose", *args])
        expect(p.returncode == EXIT_NO_SANDBOX,
               f"{case}, {mode}: lab grade exits {EXIT_NO_SANDBOX} (it exited {p.returncode})")
        for text in says:
            expect(text in p.stdout, f"{case}, {mode}: the message says {text!r}")
        expect("--no-sandbox" in p.stdout and "nothing was graded" in p.stdout,
               f"{case}, {mode}: the message says nothing was graded and names --no-sandbox")
        calls = record.read_text() if record.exists() else ""
        expect(not calls, f"{case}, {mode}: no build tool or compiler ran" + (f": {calls}" if calls else ""))
        expect(not any(build.iterdir()), f"{case}, {mode}: the build folder is untouched")
        expect(not (work / case / "class.csv").exists(), f"{case}, {mode}: no CSV was written")


def main(argv: List[str]) -> int:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--build-dir", type=Path, required=True, help="the grader's build folder (prepared)")
    p.add_argument("--work", type=Path, required=True)
    a = p.parse_args(argv)
    work = (a.work / "refusal").resolve()
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    tools = Path(tempfile.mkdtemp(prefix="scanlab-refusal-"))
    tools.chmod(0o755)
    try:
        return checks(work, tools, a.build_dir.resolve())
    finally:
        shutil.rmtree(tools, ignore_errors=True)


def checks(work: Path, tools: Path, build: Path) -> int:
    refusals(work, tools, "bwrap-hidden", "", ["bwrap is not installed", "apt-get install bubblewrap"])
    stand_in = ("#!/bin/sh\n# bubblewrap where namespaces are refused\ncase \" $* \" in\n"
                f"  *\" --unshare-all \"*) echo '{USERNS_REFUSED}' >&2 ;;\n  *) echo '{ROOT_REFUSED}' >&2 ;;\n"
                "esac\nexit 1\n")
    says = ["No permissions to create new namespace", "kernel.unprivileged_userns_clone",
            "user.max_user_namespaces", "kernel.apparmor_restrict_unprivileged_userns",
            "--security-opt seccomp=unconfined", "--privileged"]
    if os.geteuid() == 0:
        says += [ROOT_REFUSED.removeprefix("bwrap: "), "CAP_SYS_ADMIN"]
    refusals(work, tools, "namespaces-refused", stand_in, says)

    # --no-sandbox: graded, and the report says so.
    path = tool_folder(tools / "no-sandbox")
    report = work / "no-sandbox" / "report.json"
    report.parent.mkdir()
    p = lab_grade(path, ["--chapters", "00", "--exercises", str(REPO / "solutions"), "--build-dir",
                         str(build), "--orders", "default", "--no-sandbox", "--report", "json",
                         "--out", str(report)])
    expect(p.returncode == 0, f"--no-sandbox: lab grade grades (exit status {p.returncode})")
    expect("the sandbox is off (--no-sandbox)" in p.stdout, "--no-sandbox: lab grade says the sandbox is off")
    result = json.loads(report.read_text()) if report.is_file() else {}
    print(json.dumps({k: result.get(k) for k in ("sandbox", "gradable")}))
    expect(result.get("sandbox") == "off (--no-sandbox)", "--no-sandbox: the report says `off (--no-sandbox)`")
    scores = [(c["score"], c["points"]) for c in result.get("chapters", [])]
    expect(len(scores) == 1 and scores[0][0] == scores[0][1] > 0,
           f"--no-sandbox: the reference solution scores full marks ({scores})")
    if failures:
        print(f"\n{len(failures)} check(s) failed:\n  " + "\n  ".join(failures))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
