"""A class graded on a Slurm cluster: `lab grade --class DIR --csv FILE --slurm`.

Three jobs, all running this package from the shared checkout:

  prepare   `lab grade --prepare` on a node (the nodes' compilers, and for --gpu a node with the
            GPU, build the grader's checkers and runtime; the submitting node may have neither)
  array     one task per student (--dependency=afterok:prepare): grades that student, in the
            sandbox, on its node, into the state folder (the student's JSON and report)
  merge     --dependency=afterany:array: `--collect`, which writes the class CSV and reports as the
            local --class does, from the state folder, and names every student not graded

A task per student, not per student and chapter: the grader builds a student's chapters side by
side and shares one runner cache among them; a chapter-level array would pay a task's set-up (the
queue, the sandbox probe, the build check, the checker's start) once per chapter, 13 times over.

The state folder (default: next to the CSV, `<csv stem>_slurm/`) holds spec.json (the class, the
students in order, the seed, the options, the jobs submitted) and students/K/ per student: the
task's batch script writes `started` before grading and `done` (the exit status) after; the grader
writes grade.json and the report. A student is graded exactly when `done` says 0 and grade.json
reads back; anything else is named, with the state Slurm gives (sacct; on a cluster without
accounting, `scontrol show job`, which keeps finished jobs for MinJobAge; when neither knows, what
the markers show, and no more).
"""

import argparse
import json
import os
import random
import re
import shlex
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Dict, List, Optional, Tuple

from scanlab_grade import report as reporting
from scanlab_grade.chapters import Chapter, chapter_list
from scanlab_grade.doctest_run import TestResult
from scanlab_grade.speed import SpeedResult

REPO = Path(__file__).resolve().parents[2]
# Slurm states in which a task may still grade its student: --resume leaves those alone.
ACTIVE = {"PENDING", "RUNNING", "CONFIGURING", "COMPLETING", "REQUEUED", "REQUEUE_FED", "REQUEUE_HOLD",
          "RESIZING", "SUSPENDED", "STOPPED", "SIGNALING", "STAGE_OUT"}
POLL_SECONDS = 2.0


def say(msg: str) -> None:
    print(f"scanlab-grade: {msg}", file=sys.stderr, flush=True)


class SlurmError(Exception):
    pass


# ------------------------------------------------------------------------------------------------
# Options


def add_options(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("a class on a Slurm cluster (with --class)")
    g.add_argument("--slurm", action="store_true",
                   help="grade the class on Slurm: submit a job array (a task per student) and a job "
                        "that merges the grades; prints the job ids and returns")
    g.add_argument("--partition", metavar="P", help="the partition to submit to")
    g.add_argument("--gpus-per-task", metavar="N", help="GPUs per student's task (with --gpu; default 1)")
    g.add_argument("--cpus-per-task", metavar="N", default="2",
                   help="CPUs per student's task: its compilers and checkers at once (default: 2)")
    g.add_argument("--time", metavar="T", help="time limit of a student's task (Slurm's format: "
                                               "minutes, MM:SS, HH:MM:SS or D-HH:MM:SS)")
    g.add_argument("--wait", action="store_true", help="wait for the jobs, then collect")
    g.add_argument("--collect", action="store_true",
                   help="write the class CSV and reports from the grades there are, and list the "
                        "students not graded with their tasks' Slurm states")
    g.add_argument("--resume", action="store_true",
                   help="submit again the students whose tasks failed, were cancelled or timed out")
    g.add_argument("--state", metavar="DIR",
                   help="the jobs' shared folder (default: next to the CSV, <csv name>_slurm)")
    g.add_argument("--slurm-task", metavar="DIR", help=argparse.SUPPRESS)  # a task, on its node


def validate(a: argparse.Namespace, UsageError) -> None:
    slurm_only = [("--partition", a.partition), ("--gpus-per-task", a.gpus_per_task),
                  ("--time", a.time), ("--wait", a.wait), ("--collect", a.collect),
                  ("--resume", a.resume), ("--state", a.state)]
    if not a.slurm:
        for name, value in slurm_only:
            if value:
                raise UsageError(f"{name} goes with --slurm")
        if a.slurm_task and not a.class_dir:
            raise UsageError("--slurm-task goes with --class")
        return
    if not a.class_dir:
        raise UsageError("--slurm grades a class: give --class DIR --csv FILE")
    if a.prepare:
        raise UsageError("--slurm prepares the grader's build in a job of its own; leave out --prepare")
    if a.collect and a.resume:
        raise UsageError("--collect and --resume do not go together (--resume --wait collects)")
    if a.gpus_per_task is not None:
        if not a.gpu:
            raise UsageError("--gpus-per-task goes with --gpu")
        if not re.fullmatch(r"[1-9][0-9]?", a.gpus_per_task):
            raise UsageError(f"--gpus-per-task: give a whole number from 1 to 99, not '{a.gpus_per_task}'")
    elif a.gpu:
        a.gpus_per_task = "1"
    if not re.fullmatch(r"[1-9][0-9]{0,2}", a.cpus_per_task):
        raise UsageError(f"--cpus-per-task: give a whole number from 1 to 999, not '{a.cpus_per_task}'")
    if a.time is not None and not re.fullmatch(r"([0-9]+-)?[0-9]+(:[0-9]{1,2}){0,2}", a.time):
        raise UsageError(f"--time: '{a.time}' is not a Slurm time (minutes, MM:SS, HH:MM:SS, D-HH:MM:SS)")


def state_dir(a: argparse.Namespace) -> Path:
    if a.state:
        return Path(a.state).resolve()
    csv_path = Path(a.csv).resolve()
    return csv_path.with_name(csv_path.stem + "_slurm")


# ------------------------------------------------------------------------------------------------
# The state folder


def _write_atomic(path: Path, text: str) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text)
    os.replace(tmp, path)


def load_spec(state: Path) -> dict:
    try:
        return json.loads((state / "spec.json").read_text())
    except (OSError, ValueError) as e:
        raise SlurmError(f"{state} holds no submission of a class (spec.json: {e})") from None


def save_spec(state: Path, spec: dict) -> None:
    _write_atomic(state / "spec.json", json.dumps(spec, indent=2) + "\n")


def student_folder(state: Path, k: int) -> Path:
    return state / "students" / str(k)


def grade_from_json(d: dict, chapters: List[Chapter]) -> reporting.Grade:
    """The Grade that report.report_json wrote (the inverse of it, field for field: the unit test
    checks that a round trip gives the same JSON)."""
    by_id = {c.id: c for c in chapters}
    results = []
    for c in d["chapters"]:
        chapter = by_id.get(f"{c['chapter']}_{c['slug']}")
        if chapter is None:
            raise ValueError(f"chapter {c['chapter']}_{c['slug']} is not one of this class's chapters")
        tests = [TestResult(t["name"], int(t["points"]), bool(t["passed"]), t["message"] or "",
                            list(t["failures"]), float(t["duration"]), bool(t.get("crashed", False)),
                            t["order"] or "")
                 for t in c["tests"]]
        r = reporting.ChapterResult(chapter, c["status"], tests, int(c["points"]), c["compile_error"] or "",
                                    list(c["notes"]))
        if c.get("speed") is not None:
            r.speed = SpeedResult.from_json(c["speed"])
        results.append(r)
    g = reporting.Grade(d["exercises"], d["seed"], d["backend"], list(d["orders"]), results,
                        student=d["student"] or "", sandbox=d["sandbox"])
    for key in ("notes", "gradable"):  # fields of the report that not every version has
        if key in d:
            setattr(g, key, d[key])
    return g


# ------------------------------------------------------------------------------------------------
# What Slurm knows of the tasks


def _run(cmd: List[str]) -> subprocess.CompletedProcess:
    try:
        return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                              stdin=subprocess.DEVNULL, timeout=60)
    except (OSError, subprocess.TimeoutExpired) as e:
        return subprocess.CompletedProcess(cmd, 127, "", str(e))


def _task_ids(text: str) -> List[int]:
    """Slurm's array task list: '3', '2-5', '1,3,7-9%2' (a throttle after %)."""
    ids: List[int] = []
    for part in text.split("%")[0].strip("[]").split(","):
        m = re.fullmatch(r"([0-9]+)(?:-([0-9]+))?", part.strip())
        if m:
            ids += range(int(m.group(1)), int(m.group(2) or m.group(1)) + 1)
    return ids


def task_states(array_ids: List[str]) -> Dict[Tuple[str, int], str]:
    """(array job, task) -> Slurm state, for the tasks Slurm still knows: sacct where the cluster
    keeps accounting, else the controller's own records (`scontrol show job`: queued and running
    jobs, and finished ones for MinJobAge, 300 s by default)."""
    states: Dict[Tuple[str, int], str] = {}
    if not array_ids:
        return states
    p = _run(["sacct", "-n", "-P", "-X", "-j", ",".join(array_ids), "-o", "JobID,State"])
    if p.returncode == 0:
        for line in p.stdout.splitlines():
            job, _, state = line.partition("|")
            m = re.fullmatch(r"([0-9]+)_(.+)", job.strip())
            if m:
                for t in _task_ids(m.group(2)):
                    states[(m.group(1), t)] = state.split()[0] if state.split() else "UNKNOWN"
        return states
    for array in array_ids:
        p = _run(["scontrol", "show", "job", "-o", array])
        if p.returncode != 0:
            continue  # forgotten by the controller
        for line in p.stdout.splitlines():
            fields = dict(re.findall(r"(\w+)=(\S*)", line))
            if fields.get("ArrayJobId") == array and "ArrayTaskId" in fields:
                for t in _task_ids(fields["ArrayTaskId"]):
                    states[(array, t)] = fields.get("JobState", "UNKNOWN")
    return states


def queued_jobs() -> Optional[set]:
    """The ids of this user's jobs in the queue (array tasks by their array's id too)."""
    p = _run(["squeue", "-h", "--me", "-o", "%A %F"])
    if p.returncode != 0:
        return None
    return {x for line in p.stdout.splitlines() for x in line.split()}


# ------------------------------------------------------------------------------------------------
# Students' states


def student_state(state: Path, spec: dict, k: int, known: Dict[Tuple[str, int], str]) -> Tuple[str, str]:
    """(state, words): state is GRADED, a Slurm state (PENDING, RUNNING, CANCELLED, TIMEOUT,
    FAILED, ...), or one the markers show where Slurm no longer knows the task."""
    folder = student_folder(state, k)
    done = folder / "done"
    rc = done.read_text().strip() if done.is_file() else None
    if rc == "0" and (folder / "grade.json").is_file():
        return "GRADED", ""
    latest = next((s for s in reversed(spec["submissions"]) if k in s["tasks"]), None)
    job = f"{latest['array']}_{k}" if latest else "?"
    logs = sorted(folder.glob("slurm-*.out"))
    log = f"; log: {logs[-1]}" if logs else ""
    slurm_state = known.get((latest["array"], k)) if latest else None
    if slurm_state in ACTIVE:
        return slurm_state, f"{slurm_state} (job {job})"
    if slurm_state and slurm_state != "COMPLETED":
        detail = f", exit status {rc}" if rc not in (None, "0") else ""
        return slurm_state, f"{slurm_state} (job {job}{detail}{log})"
    if rc is not None and rc != "0":
        return "FAILED", f"FAILED (job {job}: the grader's exit status {rc}{log})"
    if rc == "0":
        return "FAILED", f"FAILED (job {job}: ended without writing the grade{log})"
    if (folder / "started").is_file():
        return "ENDED", (f"ENDED UNFINISHED (job {job} started and did not finish: cancelled, timed out "
                         f"or killed; Slurm no longer says which{log})")
    if slurm_state == "COMPLETED":
        return "FAILED", f"FAILED (job {job} completed without grading{log})"
    return "NOT_STARTED", (f"NOT STARTED (job {job}: Slurm no longer knows it, and it never began; "
                           "was the prepare job cancelled or did it fail?)")


# ------------------------------------------------------------------------------------------------
# Submitting


def _python_command(args: List[str]) -> str:
    return " ".join(shlex.quote(x) for x in
                    ["env", f"PYTHONPATH={REPO / 'grader'}", sys.executable, "-m", "scanlab_grade", *args])


def grading_options(a: argparse.Namespace, spec: dict) -> List[str]:
    """The options every job grades with (absolute paths: a node's working folder may differ)."""
    opts = ["--class", spec["class_dir"], "--csv", spec["csv"], "--report", spec["report"],
            "--chapters", ",".join(spec["chapters"]), "--seed", str(spec["seed"]),
            "--orders", ",".join(a.orders), "--timeout", f"{a.timeout:g}",
            "--build-timeout", f"{a.build_timeout:g}"]
    if spec["out"]:
        opts += ["--out", spec["out"]]
    for flag, value in (("--build-dir", a.build_dir), ("--scratch", a.scratch), ("--runner-cache", a.runner_cache)):
        if value:
            opts += [flag, str(Path(value).resolve())]
    for flag in ("gpu", "no_sandbox", "verbose"):
        if getattr(a, flag):
            opts.append("--" + flag.replace("_", "-"))
    if a.speed:
        opts.append("--speed")
    if a.speed_rubric:
        opts += ["--speed-rubric", str(Path(a.speed_rubric).resolve())]
    if a.speed_runs > 1:
        opts += ["--speed-runs", str(a.speed_runs)]
    return opts


def write_scripts(a: argparse.Namespace, state: Path, spec: dict) -> None:
    opts = grading_options(a, spec)
    prepare = ["--prepare", "--chapters", ",".join(spec["chapters"])]
    for flag, value in (("--build-dir", a.build_dir),):
        if value:
            prepare += [flag, str(Path(value).resolve())]
    if a.gpu:
        prepare.append("--gpu")
    students = shlex.quote(str(state / "students"))
    scripts = {
        "prepare.sh": _python_command(prepare),
        # `started` before, `done` (the exit status) only when the grader ends by itself: a task
        # that Slurm cancels or times out is signalled, with its shell, before `done` is written.
        "task.sh": "\n".join([
            f"d={students}/\"$SLURM_ARRAY_TASK_ID\"",
            'echo "$SLURM_JOB_ID $(hostname) $(date -u +%FT%TZ)" > "$d/started"',
            _python_command([*opts, "--slurm-task", str(state)]) + ' --jobs "${SLURM_CPUS_PER_TASK:-1}"',
            "rc=$?",
            'echo "$rc" > "$d/done.tmp" && mv "$d/done.tmp" "$d/done"',
            'exit "$rc"']),
        "merge.sh": _python_command([*opts, "--slurm", "--collect", "--state", str(state)]),
    }
    for name, body in scripts.items():
        path = state / name
        _write_atomic(path, "#!/bin/sh\n# Written by lab grade --slurm; runs on a node of the cluster.\n"
                            + body + "\n")
        path.chmod(0o755)


def sbatch(args: List[str]) -> str:
    p = _run(["sbatch", "--parsable", *args])
    if p.returncode != 0:
        raise SlurmError(f"sbatch {' '.join(args)}: {p.stderr.strip() or p.stdout.strip()}")
    return p.stdout.strip().split(";")[0]


def submit_jobs(a: argparse.Namespace, state: Path, spec: dict, tasks: List[int]) -> dict:
    common = ["--partition", a.partition] if a.partition else []
    gpus = (["--ntasks=1", f"--gpus-per-task={a.gpus_per_task}"] if a.gpu else [])
    prep = sbatch([*common, *gpus, "--job-name=scanlab-prepare", f"--cpus-per-task={a.cpus_per_task}",
                   "-o", str(state / "prepare-%j.out"), str(state / "prepare.sh")])
    try:
        array = sbatch([*common, *gpus, "--job-name=scanlab-grade", f"--cpus-per-task={a.cpus_per_task}",
                        *([f"--time={a.time}"] if a.time else []),
                        f"--array={','.join(str(t) for t in tasks)}",
                        f"--dependency=afterok:{prep}", "--kill-on-invalid-dep=yes",
                        "-o", str(state / "students" / "%a" / "slurm-%A.out"), str(state / "task.sh")])
        merge = sbatch([*common, "--job-name=scanlab-merge", "--cpus-per-task=1",
                        f"--dependency=afterany:{array}", "-o", str(state / "merge-%j.out"),
                        str(state / "merge.sh")])
    except SlurmError:
        _run(["scancel", prep])
        raise
    submission = {"prepare": prep, "array": array, "merge": merge, "tasks": tasks}
    spec["submissions"].append(submission)
    save_spec(state, spec)
    print(f"prepare job {prep}", flush=True)
    print(f"array job {array} ({len(tasks)} students: tasks {','.join(str(t) for t in tasks)})", flush=True)
    print(f"merge job {merge}", flush=True)
    return submission


def submit(a: argparse.Namespace, chapters: List[Chapter], state: Path) -> int:
    from scanlab_grade import cli
    if (state / "spec.json").exists():
        raise SlurmError(f"{state} holds an earlier submission of a class: --collect or --resume it, "
                         "or remove the folder (or give --state) to start again")
    class_dir = Path(a.class_dir).resolve()
    students, skipped = cli.class_students(class_dir)
    for note in skipped:
        say(f"skipped {note}")
    if not students:
        raise SlurmError(f"--class: {a.class_dir} has no student folders")
    seed = a.seed if a.seed is not None else random.SystemRandom().randrange(1, 10**9)
    state.mkdir(parents=True, exist_ok=True)
    for k in range(len(students)):
        student_folder(state, k).mkdir(parents=True, exist_ok=True)
    spec = {"class_dir": str(class_dir), "csv": str(Path(a.csv).resolve()),
            "out": str(Path(a.out).resolve()) if a.out else "", "report": a.report,
            "chapters": [c.id for c in chapters], "seed": seed,
            "students": [s.name for s in students], "submissions": []}
    save_spec(state, spec)
    write_scripts(a, state, spec)
    say(f"seed {seed}; state folder {state}")
    sub = submit_jobs(a, state, spec, list(range(len(students))))
    return wait_and_collect(a, state, sub) if a.wait else 0


def wait_and_collect(a: argparse.Namespace, state: Path, sub: dict) -> int:
    ids = {sub["prepare"], sub["array"], sub["merge"]}
    say(f"waiting for jobs {', '.join(sorted(ids))} ...")
    while True:
        queued = queued_jobs()
        if queued is None:
            raise SlurmError("squeue failed while waiting; the jobs go on: --collect later")
        if not ids & queued:
            break
        time.sleep(POLL_SECONDS)
    return collect(a, state)


def resume(a: argparse.Namespace, state: Path) -> int:
    spec = load_spec(state)
    known = task_states(sorted({s["array"] for s in spec["submissions"]}))
    again, busy = [], []
    for k, name in enumerate(spec["students"]):
        st, words = student_state(state, spec, k, known)
        if st == "GRADED":
            continue
        (busy if st in ACTIVE else again).append((k, name, words))
    for _, name, words in busy:
        say(f"not resubmitted, its task is still queued or running: {name!r}: {words}")
    if not again:
        say("nothing to resubmit")
        return 0 if not busy else 1
    for k, name, words in again:
        say(f"resubmitting {name!r}: {words}")
        folder = student_folder(state, k)
        for marker in ("started", "done", "grade.json"):
            (folder / marker).unlink(missing_ok=True)
        for report in folder.glob("report.*"):
            report.unlink()
    write_scripts(a, state, spec)
    sub = submit_jobs(a, state, spec, [k for k, _, _ in again])
    return wait_and_collect(a, state, sub) if a.wait else 0


# ------------------------------------------------------------------------------------------------
# Collecting


def collect(a: argparse.Namespace, state: Path) -> int:
    from scanlab_grade import cli
    spec = load_spec(state)
    by_id = {c.id: c for c in chapter_list(REPO)}
    chapters = [by_id[c] for c in spec["chapters"] if c in by_id]
    if len(chapters) != len(spec["chapters"]):
        raise SlurmError("the chapters of the submission are no longer in chapters/chapters.json")
    reports_dir = Path(spec["out"]) if spec["out"] else Path(spec["csv"]).with_name(
        Path(spec["csv"]).stem + "_reports")
    reports_dir.mkdir(parents=True, exist_ok=True)
    ext = cli.EXTENSIONS[spec["report"]]
    known = task_states(sorted({s["array"] for s in spec["submissions"]}))
    rows, missing = [], []
    for k, name in enumerate(spec["students"]):
        st, words = student_state(state, spec, k, known)
        folder = student_folder(state, k)
        if st == "GRADED":
            try:
                g = grade_from_json(json.loads((folder / "grade.json").read_text()), chapters)
                if g.student != name:
                    raise ValueError(f"the grade is {g.student!r}'s")
                shutil.copyfile(folder / f"report.{ext}", reports_dir / f"{cli.safe_file_name(name)}.{ext}")
                rows.append(g)
                continue
            except (OSError, ValueError, KeyError, TypeError) as e:
                st, words = "FAILED", f"FAILED (its grade does not read back: {e})"
        missing.append((name, words))
    cli.write_class(Path(spec["csv"]), chapters, rows, reports_dir)
    print(f"graded {len(rows)} of {len(spec['students'])} students", flush=True)
    for name, words in missing:
        print(f"NOT GRADED {name!r}: {words}", flush=True)
    if missing:
        say("the CSV holds only the students graded; `--resume` submits the others again")
        return 1
    return 0


# ------------------------------------------------------------------------------------------------
# Entry points


def main(a: argparse.Namespace, chapters: List[Chapter]) -> int:
    """--slurm on the submitting node: submit, --collect or --resume."""
    state = state_dir(a)
    try:
        if a.collect:
            return collect(a, state)
        if shutil.which("sbatch") is None:
            raise SlurmError("no sbatch here: submit from a node of the cluster (Debian package slurm-client)")
        if a.resume:
            return resume(a, state)
        return submit(a, chapters, state)
    except SlurmError as e:
        say(str(e))
        return 2


def grade_task(a: argparse.Namespace, build, box, chapters: List[Chapter], seed: int, scratch_root: Path) -> int:
    """One task of the array: grades the student SLURM_ARRAY_TASK_ID of the submission."""
    from scanlab_grade import cli
    state = Path(a.slurm_task)
    spec = load_spec(state)
    try:
        k = int(os.environ["SLURM_ARRAY_TASK_ID"])
        name = spec["students"][k]
    except (KeyError, ValueError, IndexError):
        say("--slurm-task runs as a task of the array lab grade --slurm submits (SLURM_ARRAY_TASK_ID)")
        return 2
    student = Path(spec["class_dir"]) / name
    if student.is_symlink() or not student.is_dir():
        say(f"{student} is no longer a student folder")
        return 2
    folder = student_folder(state, k)
    report = folder / f"report.{cli.EXTENSIONS[a.report]}"
    g = cli.grade_student(a, build, box, chapters, seed, scratch_root / "student", student, report)
    _write_atomic(folder / "grade.json", json.dumps(reporting.report_json(g), indent=2) + "\n")
    say(f"graded {name!r}: {g.score} / {g.points}")
    return 0
