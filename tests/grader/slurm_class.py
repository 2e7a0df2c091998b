#!/usr/bin/python3
# A class graded on a real Slurm: a private one-node cluster (slurm_cluster.py: munged, slurmctld,
# slurmd in a temporary folder) grades a class of six on chapter 00 with `lab grade --slurm`, and
# the result must equal the local `--class` run with the same seed: the CSV byte for byte, every
# student's JSON report but for the test cases' durations. One task is cancelled while it runs:
# --collect must name that student with the state CANCELLED and grade no one else less, and
# --resume must complete the class. Skips (exit status 77) where the daemons cannot start.
#
#   slurm_class.py --work DIR --build-dir DIR
"""lab grade --slurm against a one-node Slurm cluster (see tests/grader/CMakeLists.txt)."""

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import List

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
sys.path.insert(0, str(REPO / "tests" / "mutants"))
sys.path.insert(0, str(HERE))

import mutant  # noqa: E402
from slurm_cluster import ClusterUnavailable, SlurmCluster  # noqa: E402

CHAPTER = "00_sequential"
FILE = "sequential_scan.cuh"
SEED = "4242"
SKIP = 77
CANCELLED = "bob"   # the student whose task is cancelled while it grades

failures: List[str] = []


def expect(ok: bool, what: str) -> None:
    print(("ok    " if ok else "FAIL  ") + what, flush=True)
    if not ok:
        failures.append(what)


def make_class(root: Path) -> Path:
    """Two solutions, two stubs, a mutant and a hostile submission (a crash before main)."""
    cls = root / "class"
    for name, base in (("alice", "solutions"), (CANCELLED, "solutions"), ("carol", "exercises"),
                       ("dave", "exercises"), ("mallory", "exercises")):
        shutil.copytree(REPO / base / CHAPTER, cls / name / CHAPTER)
    attack = (HERE / "hostile" / "crash.attack").read_text()
    with open(cls / "mallory" / CHAPTER / FILE, "a") as f:
        f.write("\n" + attack)
    mutant.apply(mutant.parse(REPO / "tests" / "mutants" / CHAPTER / "wrong_identity.mutant"), cls / "eve")
    return cls


def grade(env, *args: str) -> subprocess.CompletedProcess:
    cmd = [sys.executable, "-m", "scanlab_grade", *args]
    print("+ " + " ".join(cmd), flush=True)
    t0 = time.monotonic()
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
    print(p.stdout, end="", flush=True)
    print(f"(exit status {p.returncode} after {time.monotonic() - t0:.1f} s)", flush=True)
    return p


def reports(folder: Path) -> dict:
    """Each student's JSON report without the test cases' durations (which vary run to run)."""
    found = {}
    for path in sorted(folder.glob("*.json")):
        r = json.loads(path.read_text())
        for c in r["chapters"]:
            for t in c["tests"]:
                t.pop("duration", None)
        found[path.name] = r
    return found


def wait_for(what: str, ready, seconds: float) -> bool:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if ready():
            return True
        time.sleep(0.1)
    expect(False, f"{what} within {seconds:g} s")
    return False


def queue(env) -> str:
    return subprocess.run(["squeue", "-h", "-o", "%i %T"], env=env, text=True, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT).stdout


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--work", required=True)
    ap.add_argument("--build-dir", required=True)
    a = ap.parse_args()
    work = Path(a.work) / "slurm"
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    work.chmod(0o755)
    cls = make_class(work)
    env = dict(os.environ, PYTHONPATH=str(REPO / "grader"))
    common = ["--build-dir", a.build_dir, "--class", str(cls), "--chapters", "00", "--report", "json",
              "--seed", SEED, "--timeout", "10"]
    t0 = time.monotonic()

    # Slurm's daemons keep their state, sockets and key outside the work folder (a short path: a
    # Unix socket's name is at most 107 bytes).
    with tempfile.TemporaryDirectory(prefix="scanlab-slurm-") as tmp:
        try:
            cluster = SlurmCluster(Path(tmp)).__enter__()
        except ClusterUnavailable as e:
            print(f"SKIP: a one-node Slurm cluster does not start here: {e}", flush=True)
            return SKIP
        try:
            print(f"(the cluster started in {time.monotonic() - t0:.1f} s)", flush=True)
            senv = dict(cluster.env, PYTHONPATH=env["PYTHONPATH"])
            run_on_slurm(senv, work, common)
        finally:
            cluster.stop()
            print(f"(the Slurm part took {time.monotonic() - t0:.1f} s)", flush=True)

    t1 = time.monotonic()
    local = grade(env, *common, "--csv", str(work / "local.csv"), "--out", str(work / "local_reports"))
    expect(local.returncode == 0, "the local --class run succeeds")
    print(f"(the local run took {time.monotonic() - t1:.1f} s)", flush=True)
    compare(work)
    print("\n".join(["", f"{len(failures)} failure(s)"] + failures) if failures else "\nall passed", flush=True)
    return 1 if failures else 0


def run_on_slurm(env, work: Path, common: List[str]) -> None:
    csv = work / "slurm.csv"
    slurm = [*common, "--csv", str(csv), "--out", str(work / "slurm_reports"), "--slurm", "--cpus-per-task", "1"]
    state = work / "slurm_slurm"
    p = grade(env, *slurm)
    expect(p.returncode == 0, "--slurm submits")
    ids = dict(re.findall(r"^(prepare|array|merge) job ([0-9]+)", p.stdout, re.M))
    expect(set(ids) == {"prepare", "array", "merge"}, "--slurm prints the prepare, array and merge job ids")
    if set(ids) != {"prepare", "array", "merge"}:
        return
    spec = json.loads((state / "spec.json").read_text())
    k = spec["students"].index(CANCELLED)

    # Cancel one task while it grades: once its batch script has begun, before it ends.
    started = state / "students" / str(k) / "started"
    if wait_for(f"{CANCELLED}'s task starts", started.is_file, 120):
        subprocess.run(["scancel", f"{ids['array']}_{k}"], env=env, check=True)
        print(f"(cancelled task {ids['array']}_{k}, {CANCELLED!r}, while it ran)", flush=True)
    wait_for("every job of the submission ends", lambda: not re.search(
        rf"^({ids['array']}_|{ids['merge']} )", queue(env), re.M), 240)
    expect(not (state / "students" / str(k) / "done").exists(),
           f"{CANCELLED}'s task did not finish (it was cancelled mid-run)")

    merge_log = (state / f"merge-{ids['merge']}.out")
    merged = merge_log.read_text() if merge_log.is_file() else "(no merge log)"
    print("--- the merge job's output:\n" + merged, flush=True)
    expect(f"NOT GRADED {CANCELLED!r}: CANCELLED" in merged, "the merge job names the cancelled student as CANCELLED")

    p = grade(env, *slurm[:-2], "--collect")  # --collect needs no --cpus-per-task
    expect(p.returncode == 1, "--collect exits with 1 while a student is not graded")
    expect(re.search(rf"^NOT GRADED {CANCELLED!r}: CANCELLED", p.stdout, re.M) is not None,
           "--collect names the cancelled student, with Slurm's state CANCELLED")
    expect(p.stdout.count("NOT GRADED") == 1, "--collect names no other student")
    rows = csv.read_text().splitlines()
    expect(len(rows) == 6 and not any(r.startswith(CANCELLED + ",") for r in rows),
           "the CSV holds the five students graded and not the cancelled one")
    expect(not (work / "slurm_reports" / f"{CANCELLED}.json").exists(), "no report for the cancelled student")

    p = grade(env, *slurm, "--resume", "--wait")
    expect(p.returncode == 0, "--resume --wait completes the class")
    expect(re.search(rf"^array job [0-9]+ \(1 students: tasks {k}\)", p.stdout, re.M) is not None,
           "--resume submits only the cancelled student")
    expect("NOT GRADED" not in p.stdout, "after --resume every student is graded")


def compare(work: Path) -> None:
    local_csv, slurm_csv = work / "local.csv", work / "slurm.csv"
    if not (local_csv.is_file() and slurm_csv.is_file()):
        expect(False, "both CSVs were written")
        return
    print("--- local CSV:\n" + local_csv.read_text(), flush=True)
    expect(local_csv.read_bytes() == slurm_csv.read_bytes(), "the Slurm CSV equals the local one byte for byte")
    lr, sr = reports(work / "local_reports"), reports(work / "slurm_reports")
    expect(len(lr) == 6 and sorted(lr) == sorted(sr), "both runs wrote the six students' reports")
    for name in sorted(lr):
        expect(lr[name] == sr.get(name), f"{name}: the Slurm report equals the local one (but for durations)")
    scores = {r["student"]: r["score"] for r in lr.values()}
    full = lr["alice.json"]["points"] if "alice.json" in lr else -1
    expect(scores.get("alice") == scores.get(CANCELLED) == full > 0, "the solutions score full marks")
    expect(scores.get("carol") == scores.get("dave") == scores.get("mallory") == 0,
           "the stubs and the hostile submission score 0")
    expect(0 < scores.get("eve", -1) < full, "the mutant loses points")


if __name__ == "__main__":
    sys.exit(main())
