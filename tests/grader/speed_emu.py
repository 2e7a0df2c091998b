#!/usr/bin/python3
# The speed grade's plumbing on the emulator (its times mean nothing there): chapter 04's solution
# graded with --speed gets a speed result beside its correctness points, timed at the rubric's
# emulator size with the reference built from solutions/ and the copy, in one runner (a stub is
# not timed: test_speed.py). The figures are the GPU's (tests/grader/speed/README.md).
#
#   speed_emu.py --work DIR --build-dir DIR
"""lab grade --speed on the emulator (see tests/grader/CMakeLists.txt)."""

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
CHAPTER = "04_warp_and_registers"
failures = []


def expect(ok: bool, what: str) -> None:
    print(("ok    " if ok else "FAIL  ") + what, flush=True)
    if not ok:
        failures.append(what)


def grade(build_dir: str, folder: Path, report: str, out: Path) -> subprocess.CompletedProcess:
    cmd = [sys.executable, "-m", "scanlab_grade", "--build-dir", build_dir, "--exercises", str(folder),
           "--chapters", CHAPTER[:2], "--orders", "default", "--speed", "--seed", "5", "--report", report,
           "--out", str(out)]
    print("+ " + " ".join(cmd), flush=True)
    t0 = time.monotonic()
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                       env=dict(os.environ, PYTHONPATH=str(REPO / "grader")))
    print(p.stdout + f"(exit status {p.returncode} after {time.monotonic() - t0:.1f} s)", flush=True)
    return p


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--work", required=True)
    ap.add_argument("--build-dir", required=True)
    a = ap.parse_args()
    work = Path(a.work) / "speed"
    shutil.rmtree(work, ignore_errors=True)
    shutil.copytree(REPO / "solutions" / CHAPTER, work / "solution" / CHAPTER)
    work.chmod(0o755)
    points = json.loads((REPO / "chapters" / "speed.json").read_text())["chapters"][CHAPTER]["points"]

    p = grade(a.build_dir, work / "solution", "json", work / "solution.json")
    expect(p.returncode == 0, "the solution grades")
    if p.returncode == 0:
        c = json.loads((work / "solution.json").read_text())["chapters"][0]
        s = c.get("speed") or {}
        expect(c["score"] == c["points"], "the solution has every correctness point")
        expect(s.get("status") == "ok", f"its speed was timed (status {s.get('status')}: {s.get('message')})")
        expect(s.get("max_points") == points, f"out of the rubric's {points} speed points")
        expect(0 <= s.get("points", -1) <= points and (s.get("ratio") or 0) > 0, "a ratio and points in range")
        sizes = s.get("sizes") or [{}]
        expect(all(x.get("reference_ms", 0) > 0 and x.get("student_ms", 0) > 0 and x.get("copy_ms", 0) > 0
                   for x in sizes), "the reference, the student's and the copy were each timed")
        expect(c["score"] == c["points"] and json.loads((work / "solution.json").read_text())["score"] == c["score"],
               "the speed points are not added to the correctness points")
    print("\n".join(["", f"{len(failures)} failure(s)"] + failures) if failures else "\nall passed", flush=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
