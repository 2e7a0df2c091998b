"""scanlab-grade's command line: grade one folder of exercises, or a class of them."""

import argparse
import concurrent.futures
import hashlib
import json
import math
import os
import random
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Dict, List, Optional, Tuple

from scanlab_grade import build as building
from scanlab_grade import report as reporting
from scanlab_grade import sandbox as sandboxing
from scanlab_grade import slurm, speed
from scanlab_grade.chapters import Chapter, ManifestError, chapter_list, declared_tests, select_chapters
from scanlab_grade.doctest_run import GradeError, TestResult, list_tests, run_tests
from scanlab_grade.runner_store import RunnerStore

REPO = Path(__file__).resolve().parents[2]

# Emulator orders a chapter is run under by default: a test passes only if it passes under each.
# Races that one order hides, the other usually shows (an in-place Hillis-Steele step is right when
# higher threads run first, a missing barrier when lower ones do).
EMU_ORDERS = {
    "default": {"SCANLAB_EMU_THREAD_ORDER": "forward", "SCANLAB_EMU_SCHEDULE": "in-order"},
    "reverse": {"SCANLAB_EMU_THREAD_ORDER": "reverse", "SCANLAB_EMU_SCHEDULE": "reverse"},
    "random": {"SCANLAB_EMU_THREAD_ORDER": "random", "SCANLAB_EMU_SCHEDULE": "random"},
}
DEFAULT_ORDERS = "default,reverse"
EXTENSIONS = {"text": "txt", "json": "json", "junit": "xml"}
MAX_SEED = (1 << 63) - 1


def say(msg: str) -> None:
    print(f"scanlab-grade: {msg}", file=sys.stderr, flush=True)


# ------------------------------------------------------------------------------------------------
# Options: every one checked before any work, so that no run is lost at its end


class UsageError(Exception):
    pass


def _seconds(name: str, text: str) -> float:
    try:
        t = float(text)
    except ValueError:
        raise UsageError(f"{name}: '{text}' is not a number of seconds") from None
    if not math.isfinite(t) or t <= 0 or t > 86400:
        raise UsageError(f"{name}: give a time between 0 and 86400 seconds, not {text}")
    return t


def _check_output_file(name: str, path: Path) -> None:
    """Opens the file for appending (and removes it again if it was not there): a report that
    cannot be written is found now, not after every student was graded."""
    if path.is_dir():
        raise UsageError(f"{name}: {path} is a folder; name a file")
    existed = path.exists()
    try:
        with open(path, "a"):
            pass
    except OSError as e:
        raise UsageError(f"{name}: cannot write {path}: {e.strerror}") from None
    if not existed:
        path.unlink()


def _check_output_folder(name: str, path: Path) -> None:
    """Creates the folder (it is about to be used) and checks that a file can be made in it."""
    if path.exists() and not path.is_dir():
        raise UsageError(f"{name}: {path} exists and is not a folder")
    try:
        path.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=path):
            pass
    except OSError as e:
        raise UsageError(f"{name}: cannot use {path} as a folder: {e.strerror}") from None


def parse_args(argv: List[str]) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        prog="lab grade",
        description="Grade a folder of scanlab exercises (default: the checkout's exercises/) or a "
                    "class of them. Each chapter's runner is built from the student's files and run "
                    "in a sandbox; the chapter's checker decides the points.")
    p.add_argument("--exercises", metavar="DIR", help="the folder to grade (default: exercises/)")
    p.add_argument("--chapters", metavar="LIST", nargs="+",
                   help="chapters to grade, e.g. 00,01 or 00 01 (default: all)")
    p.add_argument("--report", choices=["text", "json", "junit"], default="text")
    p.add_argument("--out", metavar="PATH",
                   help="write the report here (default: stdout); with --class, the folder for "
                        "the per-student reports (default: next to the CSV)")
    p.add_argument("--gpu", action="store_true", help="build with nvcc and run on the GPU")
    p.add_argument("--class", dest="class_dir", metavar="DIR",
                   help="grade every subfolder of DIR as one student's exercises folder")
    p.add_argument("--csv", metavar="FILE", help="with --class: the CSV of scores to write")
    p.add_argument("--seed", metavar="N", help="replay a run: the seed of its random inputs")
    p.add_argument("--orders", default=DEFAULT_ORDERS,
                   help="emulator orders each test must pass under (default, reverse, random; "
                        f"default: {DEFAULT_ORDERS})")
    p.add_argument("--timeout", default="60", metavar="SECONDS",
                   help="time limit per test case (default: 60)")
    p.add_argument("--build-timeout", default="300", metavar="SECONDS",
                   help="time limit for building one chapter of one student (default: 300)")
    p.add_argument("--build-dir", metavar="DIR",
                   help="the grader's own build folder (default: build/grade/emu or build/grade/gpu)")
    p.add_argument("--scratch", metavar="DIR",
                   help="where students' files are built and run (default: a new folder in the "
                        "system's temporary folder, removed afterwards)")
    p.add_argument("--runner-cache", metavar="DIR", default=os.environ.get("SCANLAB_GRADE_RUNNER_CACHE") or None,
                   help="keep the runners built from students' files here, and reuse them in later "
                        "runs for the same files, grader and compiler (a folder of yours alone; "
                        "default: $SCANLAB_GRADE_RUNNER_CACHE, else none: every run builds its own)")
    p.add_argument("--jobs", default=str(os.cpu_count() or 2), metavar="N",
                   help="at most N compilers and checkers at once, for all students together "
                        "(default: the number of cores)")
    p.add_argument("--no-sandbox", action="store_true",
                   help="build and run students' code without the sandbox (only where the machine "
                        "cannot make one; every report says so)")
    p.add_argument("--verbose", action="store_true", help="print the build commands")
    p.add_argument("--prepare", action="store_true",
                   help="only configure the grader's build and build the checkers and the runtime")
    p.add_argument("--test", dest="tests", action="append", metavar="NAME",
                   help="grade only this test case of the one chapter in --chapters (its name as the "
                        "report shows it; repeat for more): the points are those of the cases run, "
                        "and the report (with --class, each student's, and the CSV's notes) says the "
                        "chapter was graded in part")
    speed.add_options(p)
    slurm.add_options(p)
    a = p.parse_args(argv)
    if a.chapters is not None:  # "--chapters 08 11" is "--chapters 08,11"
        a.chapters = ",".join(a.chapters)
    try:
        validate(a)
    except UsageError as e:
        p.error(str(e))
    return a


def validate(a: argparse.Namespace) -> None:
    if a.class_dir and a.exercises:
        raise UsageError("--class and --exercises do not go together")
    if a.class_dir and not a.csv:
        raise UsageError("--class needs --csv FILE")
    if a.csv and not a.class_dir:
        raise UsageError("--csv goes with --class")
    if a.seed is not None:
        if not re.fullmatch(r"[0-9]{1,19}", a.seed) or int(a.seed) > MAX_SEED:
            raise UsageError(f"--seed: give a whole number from 0 to {MAX_SEED}, not '{a.seed}'")
        a.seed = int(a.seed)
    if not re.fullmatch(r"[0-9]{1,4}", a.jobs) or not 1 <= int(a.jobs) <= 1024:
        raise UsageError(f"--jobs: give a whole number from 1 to 1024, not '{a.jobs}'")
    a.jobs = int(a.jobs)
    a.orders = [o.strip() for o in a.orders.split(",") if o.strip()]
    for o in a.orders:
        if o not in EMU_ORDERS:
            raise UsageError(f"--orders: '{o}' is not one of {', '.join(EMU_ORDERS)}")
    if not a.orders:
        raise UsageError("--orders needs at least one order")
    a.timeout = _seconds("--timeout", a.timeout)
    a.build_timeout = _seconds("--build-timeout", a.build_timeout)
    if a.tests and (a.slurm or a.speed):
        raise UsageError("--test grades in part: not with --slurm or --speed")
    if a.exercises and not Path(a.exercises).is_dir():
        raise UsageError(f"--exercises: no such folder: {a.exercises}")
    if a.class_dir and not Path(a.class_dir).is_dir():
        raise UsageError(f"--class: no such folder: {a.class_dir}")
    if a.csv:
        _check_output_file("--csv", Path(a.csv))
    if a.out:
        if a.class_dir:
            _check_output_folder("--out", Path(a.out))
        else:
            _check_output_file("--out", Path(a.out))
    if a.build_dir:
        _check_output_folder("--build-dir", Path(a.build_dir))
    if a.scratch:
        _check_output_folder("--scratch", Path(a.scratch))
    a.runner_store = None
    if a.runner_cache:
        try:
            a.runner_store = RunnerStore(Path(a.runner_cache).resolve())
        except GradeError as e:
            raise UsageError(str(e)) from None
    speed.validate(a, UsageError)
    slurm.validate(a, UsageError)


# ------------------------------------------------------------------------------------------------
# Grading one folder


def runner_argv(box: sandboxing.Sandbox, binary: Path, run_dir: Path, order: Optional[str], seed: int,
                timeout: float) -> List[str]:
    """The command the checker starts the runner with: the runner in the sandbox, with the
    emulator's thread and block orders of this run."""
    env = {"PATH": "/usr/bin:/bin", "HOME": "/tmp", "TMPDIR": "/tmp", "LANG": "C.UTF-8",
           "SCANLAB_SEED": str(seed)}
    if order:
        env.update(EMU_ORDERS[order])
        env["SCANLAB_EMU_SEED"] = str(seed)
        # The emulator's own watchdog names the kernel that stopped making progress.
        env["SCANLAB_EMU_WATCHDOG"] = str(max(1, min(20, int(timeout) - 1)))
        # Its race checker names the two lines of a missing barrier in the failure message (it
        # changes no result: a race shows as wrong output or not at all).
        env["SCANLAB_EMU_RACECHECK"] = "1"
    if not box.enabled:
        return ["/usr/bin/env", "-i", *[f"{k}={v}" for k, v in sorted(env.items())], str(binary)]
    limits = sandboxing.RUN_LIMITS
    if box.gpu:
        limits = sandboxing.Limits(cpu_seconds=limits.cpu_seconds, address_space=None,
                                   processes=limits.processes, file_size=limits.file_size)
    return box.wrap([str(binary)], read_only=[binary.parent], writable=[run_dir], chdir=run_dir,
                    env=env, limits=limits)


def checker_environment(seed: int, runner: List[str], timeout: float) -> Dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("SCANLAB_EMU_") and not k.startswith("SCANLAB_GRADE") and k != "SCANLAB_SEED"}
    env["SCANLAB_SEED"] = str(seed)
    env["SCANLAB_GRADE_RUNNER"] = json.dumps(runner)
    env["SCANLAB_GRADE_CALL_TIMEOUT"] = str(timeout)
    return env


def grade_folder(build: building.GraderBuild, box: sandboxing.Sandbox, exercises: Path, label: str,
                 chapters: List[Chapter], seed: int, orders: List[str], timeout: float,
                 build_timeout: float, scratch: Path, only_tests: Optional[List[str]] = None) -> reporting.Grade:
    """Grades one student's folder; no failure of one chapter stops the others. With only_tests,
    only those test cases run (and count)."""
    results = []
    for ch in chapters:
        r = reporting.ChapterResult(ch)
        declared = declared_tests(build.repo / "tests" / "grade" / f"{ch.id}.cu")
        if only_tests:
            chosen = [t for t in declared if t.name in only_tests]
            r.notes.append(f"{reporting.IN_PART}: {len(chosen)} of its {len(declared)} test cases (--test)")
            declared = chosen
        r.tests = [TestResult(t.name, t.points, False, "not run") for t in declared]
        r.points = sum(t.points for t in declared)
        results.append(r)

    # The folder each chapter's runner was built from, when it is another student's (a runner
    # reused for identical files): its paths in messages are this student's files.
    built_from: Dict[str, Path] = {}

    # Stage and build every chapter side by side (each build waits for one of build.slots).
    def prepare(r: reporting.ChapterResult) -> Optional[Path]:
        ch = r.chapter
        work = scratch / ch.id
        building.remove_tree(work)
        work.mkdir(parents=True)
        scratch.chmod(0o711)
        notes, error = building.stage_files(ch, exercises, work / "src")
        r.notes += notes
        if error:
            r.status = "missing"
            r.compile_error = error
            for t in r.tests:
                t.message = "not graded: " + error
            return None
        binary, message, source = building.build_runner(build, box, ch, work, label, build_timeout)
        if source is not None and source != work / "src":
            built_from[ch.id] = source
        if binary is None:
            r.status = "compile_error"
            r.compile_error = message
            for t in r.tests:
                t.message = "not graded: the chapter does not compile"
        return binary

    say(f"building {', '.join(c.id for c in chapters)} for {label}")
    with concurrent.futures.ThreadPoolExecutor(max_workers=len(results)) as pool:
        binaries = list(pool.map(prepare, results))

    runs = []
    for r, binary in zip(results, binaries):
        if binary is None:
            continue
        run_dir = scratch / r.chapter.id / "run"
        run_dir.mkdir(exist_ok=True)
        sandboxing.make_writable_for_sandbox(run_dir)
        env = checker_environment(seed, ["/bin/true"], timeout)
        names = list_tests(build.checker(r.chapter), env, scratch)
        if names is None:
            r.status = "not_run"
            r.compile_error = "the chapter's grading program did not start (doctest could not list its tests)"
            continue
        if only_tests:
            names = [n for n in names if n in only_tests]
        for order in (orders if build.backend == "emu" else [None]):
            runs.append((r, names, order, binary, run_dir))

    def run_one(run) -> Tuple[Dict[str, TestResult], List[str]]:
        r, names, order, binary, run_dir = run
        tag = f"{r.chapter.id}.{order or build.backend}"
        try:
            env = checker_environment(seed, runner_argv(box, binary, run_dir, order, seed, timeout), timeout)
            with build.slots:  # one of the machine's --jobs
                return run_tests(build.checker(r.chapter), names, env, scratch, tag, timeout + 15,
                                 only=bool(only_tests))
        except GradeError as e:
            return {}, [f"the checker could not finish: {e}"]

    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, len(runs))) as pool:
        outcomes = list(pool.map(run_one, runs))

    combined: Dict[str, Dict[str, TestResult]] = {}
    passed_in: Dict[Tuple[str, str], List[str]] = {}
    for (r, names, order, _, _), (found, notes) in zip(runs, outcomes):
        for name in names:
            if name in found and found[name].passed:
                passed_in.setdefault((r.chapter.id, name), []).append(order or "")
        declared = {t.name: t.points for t in r.tests}
        r.notes += [n for n in notes if n not in r.notes]
        best = combined.setdefault(r.chapter.id, {})
        for name in names:
            t = found.get(name) or TestResult(name, declared.get(name, 1), False, "not run")
            if t.points < 0:
                t.points = declared.get(name, 1)
            if order and not t.passed:
                t.order = order
            prev = best.get(name)
            if prev is None or (prev.passed and not t.passed):
                if prev is not None:
                    t.duration = max(t.duration, prev.duration)
                best[name] = t

    # Messages name the student's files, not the grader's copies of them.
    def unstage(text: str) -> str:
        for chapter_id, source in built_from.items():
            text = text.replace(str(source) + "/", f"{label}/{chapter_id}/")
        return text.replace(str(scratch) + "/", f"{label}/").replace("/src/", "/")

    for r in results:
        r.notes = [unstage(n) for n in r.notes]
        if r.chapter.id not in combined:
            continue
        found = combined[r.chapter.id]
        declared = {t.name: t.points for t in r.tests}
        # Points come only from the test cases declared in tests/grade/NN_slug.cu.
        tests = []
        for name, t in found.items():
            if name not in declared:
                r.notes.append(f"ignored a test case that tests/grade/{r.chapter.id}.cu does not declare: {name}")
                continue
            t.points = declared[name]
            if not t.passed and passed_in.get((r.chapter.id, name)):
                t.message += (f" | hint: right under the order '{passed_in[(r.chapter.id, name)][0]}' and wrong "
                              f"under '{t.order}': the result depends on the order threads or blocks run in, "
                              "which is a race (a missing __syncthreads(), or a value read before the thread "
                              "or block that writes it has written it)")
            t.message = unstage(t.message)
            t.details = [unstage(d) for d in t.details]
            tests.append(t)
        for name in declared:
            if name not in found:
                tests.append(TestResult(name, declared[name], False, "not run by the checker"))
        r.tests = tests
        r.points = sum(t.points for t in r.tests)
    return reporting.Grade(str(exercises), seed, build.backend, orders if build.backend == "emu" else [],
                           results, sandbox="on" if box.enabled else f"off ({box.reason})")


# ------------------------------------------------------------------------------------------------
# Command line


def gpu_present() -> bool:
    try:
        return subprocess.run(["nvidia-smi", "-L"], stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL).returncode == 0 and shutil.which("nvcc") is not None
    except OSError:
        return False


def replay_command(a: argparse.Namespace, seed: int, exercises: Optional[str]) -> str:
    """The command that grades the same code the same way again: a shell line, each word quoted
    where it needs it (a student's folder may hold spaces or quotes; a test case's name does)."""
    parts = ["./lab", "grade"]
    if exercises:
        parts += ["--exercises", exercises]
    if a.chapters:
        parts += ["--chapters", a.chapters]
    for name in a.tests or []:
        parts += ["--test", name]
    if a.gpu:
        parts.append("--gpu")
    elif a.orders != DEFAULT_ORDERS.split(","):
        parts += ["--orders", ",".join(a.orders)]
    parts += ["--seed", str(seed)]
    return shlex.join(parts)


def safe_file_name(name: str) -> str:
    """A report's file name for a student folder's name (which may hold spaces, quotes, unicode)."""
    clean = re.sub(r"[^A-Za-z0-9._-]", "_", name).lstrip(".") or "student"
    if clean != name:
        clean += "-" + hashlib.sha256(name.encode(errors="surrogateescape")).hexdigest()[:8]
    return clean


def class_students(class_dir: Path) -> Tuple[List[Path], List[str]]:
    """The student folders of a class and a note for every entry that is not graded."""
    students, skipped = [], []
    for p in sorted(class_dir.iterdir(), key=lambda x: x.name):
        if p.is_symlink():
            skipped.append(f"{p.name!r}: a symbolic link, not graded")
        elif not p.is_dir():
            skipped.append(f"{p.name!r}: not a folder, not graded")
        elif p.name.startswith("."):
            skipped.append(f"{p.name!r}: a hidden folder, not graded")
        else:
            students.append(p)
    return students, skipped


def main(argv: Optional[List[str]] = None) -> int:
    a = parse_args(sys.argv[1:] if argv is None else argv)
    repo = REPO
    try:
        chapters = select_chapters(chapter_list(repo), a.chapters)
    except (ValueError, ManifestError) as e:
        say(str(e))
        return 2
    if not chapters:
        say("no chapter to grade")
        return 2
    if a.tests:
        if len(chapters) != 1:
            say("--test: name one chapter with --chapters (test case names are a chapter's own)")
            return 2
        known = [t.name for t in declared_tests(repo / "tests" / "grade" / f"{chapters[0].id}.cu")]
        unknown = [t for t in a.tests if t not in known]
        if unknown:
            say(f"--test: chapter {chapters[0].id} has no test case {unknown[0]!r}")
            return 2
    if a.slurm:  # the submitting node: it only submits and collects (the nodes grade)
        return slurm.main(a, chapters)
    if a.gpu and not gpu_present():
        say("--gpu: no usable GPU here (nvidia-smi -L and nvcc are needed); grade on the emulator instead")
        return 2
    backend = "gpu" if a.gpu else "emu"
    build_dir = Path(a.build_dir).resolve() if a.build_dir else repo / "build" / "grade" / backend
    scratch_parent = Path(a.scratch or tempfile.gettempdir())
    # No student file is compiled without the sandbox, unless the instructor says so (--prepare
    # compiles none: it builds only the grader's own programs).
    try:
        box = sandboxing.require(a.no_sandbox or a.prepare, gpu=a.gpu,
                                 reach=[repo, build_dir, scratch_parent])
    except sandboxing.Refused as e:
        say(str(e))
        return e.exit_code
    if a.no_sandbox:
        say("the sandbox is off (--no-sandbox): students' code runs as you, with your files and the "
            "network in reach; every report says so")
    seed = a.seed if a.seed is not None else random.SystemRandom().randrange(1, 10**9)
    say(f"seed {seed} (replay with --seed {seed})")

    scratch_root = Path(tempfile.mkdtemp(prefix="scanlab-grade-", dir=scratch_parent))
    scratch_root.chmod(0o711)  # the sandbox's user may pass through, not list
    try:
        with building.GraderBuild(repo, build_dir, backend, a.jobs, a.verbose) as build:
            build.build(chapters)
            if a.prepare:
                say(f"the grader build in {build.dir} is ready")
                return 0
            build.runners = building.RunnerCache(build, scratch_root / "runners", a.runner_store)
            if not a.class_dir:
                exercises = Path(a.exercises).resolve() if a.exercises else repo / "exercises"
                g = grade_folder(build, box, exercises, str(exercises), chapters, seed, a.orders,
                                 a.timeout, a.build_timeout, scratch_root / "student", a.tests)
                if a.speed:
                    speed.grade_speed(a, build, box, g, scratch_root / "student", seed)
                text = reporting.render(g, a.report, replay_command(a, seed, a.exercises))
                if a.out:
                    Path(a.out).write_text(text)
                    say(f"wrote {a.out}: {g.score} / {g.points}")
                else:
                    sys.stdout.write(text)
                return 0
            if a.slurm_task:  # one student of a class, on a Slurm node
                return slurm.grade_task(a, build, box, chapters, seed, scratch_root)
            return grade_class(a, build, box, chapters, seed, scratch_root)
    except GradeError as e:
        say(f"error: {e}")
        return 3
    finally:
        shutil.rmtree(scratch_root, ignore_errors=True)


def grade_class(a: argparse.Namespace, build: building.GraderBuild, box: sandboxing.Sandbox,
                chapters: List[Chapter], seed: int, scratch_root: Path) -> int:
    class_dir = Path(a.class_dir).resolve()
    students, skipped = class_students(class_dir)
    for note in skipped:
        say(f"skipped {note}")
    if not students:
        say(f"--class: {a.class_dir} has no student folders")
        return 2
    csv_path = Path(a.csv)
    reports_dir = class_reports_dir(a)
    reports_dir.mkdir(parents=True, exist_ok=True)
    # Students are graded side by side, each in its own scratch folder: twice --jobs of them at a
    # time, so that while one waits (for a build of files another handed in too, for its last
    # checker) the next one's work is ready for the free slot. At most --jobs compilers and
    # checkers run at once (build.slots); the limit on students only bounds the scratch space.

    def grade_one(k_student) -> reporting.Grade:
        k, student = k_student
        report = reports_dir / f"{safe_file_name(student.name)}.{EXTENSIONS[a.report]}"
        return grade_student(a, build, box, chapters, seed, scratch_root / f"student-{k}", student, report)

    with concurrent.futures.ThreadPoolExecutor(max_workers=2 * max(1, a.jobs)) as pool:
        rows = list(pool.map(grade_one, enumerate(students)))
    write_class(csv_path, chapters, rows, reports_dir)
    return 0


def class_reports_dir(a: argparse.Namespace) -> Path:
    """Where a class's per-student reports go: --out, or a folder next to the CSV."""
    csv_path = Path(a.csv)
    return Path(a.out) if a.out else csv_path.with_name(csv_path.stem + "_reports")


def grade_student(a: argparse.Namespace, build: building.GraderBuild, box: sandboxing.Sandbox,
                  chapters: List[Chapter], seed: int, scratch: Path, student: Path,
                  report: Path) -> reporting.Grade:
    """Grades one student of a class and writes the student's report (--report's format)."""
    say(f"grading {student.name!r}")
    g = grade_folder(build, box, student, str(student), chapters, seed, a.orders, a.timeout,
                     a.build_timeout, scratch, a.tests)
    if a.speed:
        speed.grade_speed(a, build, box, g, scratch, seed)
    shutil.rmtree(scratch, ignore_errors=True)
    g.student = student.name
    report.write_text(reporting.render(g, a.report, replay_command(a, seed, str(student))))
    return g


def write_class(csv_path: Path, chapters: List[Chapter], rows: List[reporting.Grade], reports_dir: Path) -> None:
    """A class's scores: one line each on stdout, and the CSV."""
    for g in rows:
        print(f"{g.student!r:<24} {g.score:>5} / {g.points}", flush=True)
    reporting.write_csv(csv_path, chapters, rows)
    say(f"wrote {csv_path} ({len(rows)} students) and the reports in {reports_dir}")
