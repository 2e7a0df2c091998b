"""The speed grade (`lab grade --gpu --speed`): a student's operation timed against the reference
solution and a device-to-device copy, in one process on the grading GPU, for the speed points an
instructor sets per chapter (chapters/speed.json, or a course's own file: --speed-rubric).

Trust. The student's code is built and run in the sandbox, as the correctness runner is. The
reference is compiled by the grader, outside the sandbox, from solutions/ (tests/grade/speed/NN.cu
with the solution's folder, every lab namespace renamed so that the two copies do not collide),
into an object the student's build never sees: the student's entry is compiled alone (sandbox,
no solutions, no reference object), and only the link (sandbox) and the run see the reference's
machine code. The residual limit: in the one process, the student's code could seek out the
reference's entry point and call it as its own. The speed grade is given only to code that passed
every correctness test, and an instructor who doubts a figure can read the code; it is not a
guarantee against a determined cheat. The book's instructor page says so.

The runner (tests/grade/speed/speed_main.cu) writes a JSON line per size; this module scores them.
A speed grade never changes the correctness grade: it is reported beside it.
"""

import argparse
import dataclasses
import json
import math
import os
import re
import subprocess
import threading
from pathlib import Path
from typing import Dict, List, Optional, Tuple

from scanlab_grade import build as building
from scanlab_grade import sandbox as sandboxing
from scanlab_grade.chapters import Chapter

REPO = Path(__file__).resolve().parents[2]
DEFAULT_RUBRIC = REPO / "chapters" / "speed.json"
SPEED_DIR = REPO / "tests" / "grade" / "speed"
TOO_SLOW = 100.0  # a student's run past this many times the reference's ends the speed grade


class RubricError(Exception):
    pass


@dataclasses.dataclass
class Rubric:
    sizes: List[int]
    emu_sizes: List[int]
    points: int
    thresholds: List[Tuple[float, int]]  # (ratio at least, points), highest ratio first

    def points_for(self, ratio: float) -> int:
        return next((p for r, p in self.thresholds if ratio >= r), 0)


@dataclasses.dataclass
class SpeedResult:
    points: int              # 0 unless the output was right and the ratio reached a threshold
    max_points: int
    status: str              # ok | not_timed | too_slow | fault | wrong | timeout | error
    message: str = ""
    ratio: Optional[float] = None   # reference time / student time, geometric mean over sizes
    sizes: List[dict] = dataclasses.field(default_factory=list)  # the runner's lines (the last run's)
    backend: str = "gpu"
    runs: List[float] = dataclasses.field(default_factory=list)  # each run's ratio (--speed-runs)

    def to_json(self) -> dict:
        return {"points": self.points, "max_points": self.max_points, "status": self.status,
                "message": self.message or None, "ratio": None if self.ratio is None else round(self.ratio, 4),
                "sizes": self.sizes, "backend": self.backend, "runs": [round(r, 4) for r in self.runs]}

    @staticmethod
    def from_json(d: dict) -> "SpeedResult":
        return SpeedResult(int(d["points"]), int(d["max_points"]), d["status"], d["message"] or "",
                           d["ratio"], list(d["sizes"]), d["backend"], list(d.get("runs", [])))

    def words(self) -> str:
        """One line for the text report."""
        if self.status != "ok":
            return f"speed {self.points} / {self.max_points}  {self.message}"
        per = ", ".join(f"2^{int(math.log2(s['n']))}: {s['reference_ms'] / s['student_ms']:.2f}"
                        if s["n"] & (s["n"] - 1) == 0 else f"{s['n']}: {s['reference_ms'] / s['student_ms']:.2f}"
                        for s in self.sizes)
        note = " (emulator: its times mean nothing; the plumbing only)" if self.backend == "emu" else ""
        if len(self.runs) > 1:
            note = f"; the median of {len(self.runs)} runs, {min(self.runs):.3f} to {max(self.runs):.3f}" + note
        return (f"speed {self.points} / {self.max_points}  {self.ratio:.2f} x the reference's speed "
                f"({per}){note}")


def _size(text, where: str) -> int:
    m = re.fullmatch(r"2\^([0-9]{1,2})", str(text))
    n = 1 << int(m.group(1)) if m else (int(text) if re.fullmatch(r"[0-9]{1,12}", str(text)) else 0)
    if not 1 <= n <= 1 << 32:
        raise RubricError(f"{where}: '{text}' is not a size (a whole number or 2^K)")
    return n


def load_rubrics(path: Path) -> Dict[str, Rubric]:
    try:
        data = json.loads(Path(path).read_text())
        chapters = data["chapters"]
        if not isinstance(chapters, dict):
            raise TypeError("'chapters' is not an object")
    except (OSError, ValueError, KeyError, TypeError) as e:
        raise RubricError(f"{path}: {e}") from None
    rubrics = {}
    for cid, r in chapters.items():
        where = f"{path}: {cid}"
        try:
            points = int(r["points"])
            thresholds = sorted(((float(t[0]), int(t[1])) for t in r["thresholds"]), reverse=True)
            sizes = [_size(s, where) for s in r["sizes"]]
            emu = [_size(s, where) for s in r.get("emu_sizes", ["2^12"])]
        except (KeyError, TypeError, ValueError, IndexError) as e:
            raise RubricError(f"{where}: needs sizes, points and thresholds [[ratio, points], ...] ({e})") from None
        if points < 0 or not thresholds or not sizes or any(p < 0 or p > points or x <= 0 for x, p in thresholds):
            raise RubricError(f"{where}: thresholds need ratios above 0 and points from 0 to {points}")
        if any(p1 < p2 for (_, p1), (_, p2) in zip(thresholds, thresholds[1:])):
            raise RubricError(f"{where}: a higher ratio must not give fewer points")
        rubrics[cid] = Rubric(sizes, emu, points, thresholds)
    return rubrics


def add_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--speed", action="store_true",
                   help="also time each chapter that has a speed rubric against the reference solution "
                        "(with --gpu; on the emulator the figures mean nothing) and give its speed points")
    p.add_argument("--speed-runs", metavar="N", default="1",
                   help="time each chapter N times in a row and score the median ratio (the spread of "
                        "the N shows how much the figure varies; default: 1)")
    p.add_argument("--speed-rubric", metavar="FILE",
                   help=f"the speed rubrics (default: {DEFAULT_RUBRIC.relative_to(REPO)})")


def validate(a: argparse.Namespace, UsageError) -> None:
    if a.speed_rubric and not a.speed:
        raise UsageError("--speed-rubric goes with --speed")
    if not re.fullmatch(r"[1-9][0-9]?", a.speed_runs):
        raise UsageError(f"--speed-runs: give a whole number from 1 to 99, not '{a.speed_runs}'")
    a.speed_runs = int(a.speed_runs)
    if a.speed_runs > 1 and not a.speed:
        raise UsageError("--speed-runs goes with --speed")
    a.speed_rubrics = {}
    if a.speed:
        try:
            a.speed_rubrics = load_rubrics(Path(a.speed_rubric) if a.speed_rubric else DEFAULT_RUBRIC)
        except RubricError as e:
            raise UsageError(f"--speed-rubric: {e}") from None


# ------------------------------------------------------------------------------------------------
# Building


def _compile(build: building.GraderBuild, chapter: Chapter, source: Path, include: Optional[Path],
             side: str, out: Path) -> List[str]:
    """The command that compiles one unit of the speed runner into an object."""
    defines = [f"-DSCANLAB_SPEED_SIDE={side}"]
    if side == "reference":  # its own copy of every lab template and kernel
        defines += ["-Dscanlab=scanlab_speed_reference", f"-Dch{chapter.nn}=ch{chapter.nn}_speed_reference"]
    includes = (["-I", str(include)] if include else []) + ["-I", str(build.repo / "chapters" / chapter.id),
                                                             "-I", str(SPEED_DIR)]
    if build.backend == "emu":
        return [str(build.dir / "bin" / "scanlab-emucc"), str(source), "-c", "-o", str(out), *includes, *defines]
    nvcc, arch = _nvcc(build)
    return [nvcc, "-std=c++17", "-O3", arch, "--expt-relaxed-constexpr", "-lineinfo",
            "-I", str(build.repo / "common" / "include"), *includes, *defines, "-c", str(source), "-o", str(out)]


def _nvcc(build: building.GraderBuild) -> Tuple[str, str]:
    # The same compiler and architecture as the correctness runner (GraderBuild.runner_command).
    cmd = build.runner_command(Chapter("00", "x"), Path("/src"), Path("/out"))
    arch = next(x for x in cmd if x.startswith("-arch"))
    return cmd[0], arch


def _link(build: building.GraderBuild, objects: List[Path], out: Path) -> List[str]:
    if build.backend == "emu":
        return [str(build.dir / "bin" / "scanlab-emucc"), "-o", str(out), *map(str, objects)]
    nvcc, arch = _nvcc(build)
    return [nvcc, arch, *map(str, objects), "-o", str(out)]


class SpeedGrader:
    """One grading run's speed grades: the reference's and the main's objects are built once (by
    the grader, outside the sandbox), each student's entry in the sandbox."""

    def __init__(self, build: building.GraderBuild, box: sandboxing.Sandbox, rubrics: Dict[str, Rubric],
                 root: Path, build_timeout: float, seed: int, run_timeout: float = 300.0, runs: int = 1):
        self.build, self.box, self.rubrics, self.root = build, box, rubrics, root
        self.build_timeout, self.seed = build_timeout, seed
        # The whole timing run's limit: the runner's own watch (TOO_SLOW x the reference) ends a
        # slow kernel long before; this ends one the runner cannot watch (a hang in its set-up).
        self.run_timeout = run_timeout
        self.runs = runs
        self._lock = threading.Lock()
        self._trusted: Dict[str, Tuple[Optional[List[Path]], str]] = {}

    def _trusted_objects(self, chapter: Chapter) -> Tuple[Optional[List[Path]], str]:
        with self._lock:
            if chapter.id not in self._trusted:
                folder = self.root / chapter.id
                folder.mkdir(parents=True, exist_ok=True)
                folder.chmod(0o755)
                main_o, ref_o = folder / "main.o", folder / "reference.o"
                solution = self.build.repo / "solutions" / chapter.id
                error = "" if solution.is_dir() else (
                    "no speed grade: it times the reference solution, which only the instructor's "
                    "repository holds (solutions/ is not here)")
                main_cmd = _compile(self.build, chapter, SPEED_DIR / "speed_main.cu", None, "main", main_o)
                for cmd in [] if error else (main_cmd,
                            _compile(self.build, chapter, SPEED_DIR / f"{chapter.id}.cu", solution, "reference",
                                     ref_o)):
                    try:
                        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                           stdin=subprocess.DEVNULL, timeout=self.build_timeout)
                    except subprocess.TimeoutExpired:
                        error = "the grader's build of the reference's speed runner took too long"
                        break
                    if p.returncode != 0:
                        text = p.stdout.decode(errors="replace")
                        error = ("the grader could not build the reference's speed runner (a problem of the "
                                 "grader's, not yours): " + building.compiler_message(text))
                        break
                for o in (main_o, ref_o):
                    if o.exists():
                        o.chmod(0o644)
                self._trusted[chapter.id] = (None, error) if error else ([main_o, ref_o], "")
            return self._trusted[chapter.id]

    def _sandboxed(self, cmd: List[str], read_only: List[Path], writable: Path, timeout: float,
                   limits) -> Tuple[Optional[int], str]:
        env = {"PATH": "/usr/local/cuda/bin:/usr/bin:/bin", "HOME": "/tmp", "TMPDIR": "/tmp", "LANG": "C.UTF-8"}
        wrapped = self.box.wrap(cmd, read_only=read_only, writable=[writable], chdir=writable, env=env, limits=limits)
        try:
            p = subprocess.run(wrapped, cwd=writable, env=None if self.box.enabled else dict(os.environ, **env),
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL,
                               timeout=timeout, start_new_session=True)
        except subprocess.TimeoutExpired:
            return None, ""
        return p.returncode, p.stdout.decode(errors="replace") + "\n" + p.stderr.decode(errors="replace")

    def grade(self, chapter: Chapter, all_passed: bool, src: Path, work: Path) -> Optional[SpeedResult]:
        """The speed grade of the student's files in src (staged by the correctness grade), or None
        where the chapter has no rubric."""
        rubric = self.rubrics.get(chapter.id)
        if rubric is None:
            return None
        result = SpeedResult(0, rubric.points, "not_timed", backend=self.build.backend)
        if not all_passed:
            result.message = "not timed: speed points need every correctness test of the chapter passed"
            return result
        trusted, error = self._trusted_objects(chapter)
        if trusted is None:
            result.status, result.message = "error", error
            return result
        building.remove_tree(work)
        work.mkdir(parents=True)
        sandboxing.make_writable_for_sandbox(work)
        student_o, runner = work / "student.o", work / "speed_runner"
        tools = self.build.read_only_paths(chapter) + [SPEED_DIR]
        rc, text = self._sandboxed(_compile(self.build, chapter, SPEED_DIR / f"{chapter.id}.cu", src, "student",
                                            student_o), tools + [src], work, self.build_timeout,
                                   sandboxing.BUILD_LIMITS)
        if rc != 0:
            result.status = "error"
            result.message = ("not timed: the speed runner did not build: "
                              + (building.compiler_message(text).splitlines() or ["timed out"])[0])
            return result
        rc, text = self._sandboxed(_link(self.build, [student_o, *trusted], runner), tools + trusted, work,
                                   self.build_timeout, sandboxing.BUILD_LIMITS)
        if rc != 0:
            result.status, result.message = "error", "not timed: the speed runner did not link"
            return result
        return self.run_repeated(rubric, runner, work, result)

    def run_repeated(self, rubric: Rubric, runner: Path, work: Path, result: SpeedResult) -> SpeedResult:
        """self.runs timing runs of one runner: the median ratio decides, any failure ends it."""
        ratios = []
        for _ in range(self.runs):
            last = self.run(rubric, runner, work, dataclasses.replace(result))
            if last.status != "ok":
                return last
            ratios.append(last.ratio)
        ratios.sort()
        k = len(ratios)
        last.runs = ratios
        last.ratio = ratios[k // 2] if k % 2 else 0.5 * (ratios[k // 2 - 1] + ratios[k // 2])
        last.points = rubric.points_for(last.ratio)
        return last

    def run(self, rubric: Rubric, runner: Path, work: Path, result: SpeedResult) -> SpeedResult:
        sizes = rubric.emu_sizes if self.build.backend == "emu" else rubric.sizes
        cmd = [str(runner), "--sizes", ",".join(map(str, sizes)), "--limit", f"{TOO_SLOW:g}",
               "--seed", str(self.seed)]
        if self.build.backend == "emu":
            cmd += ["--reps", "3", "--warmup", "1"]
        limits = sandboxing.RUN_LIMITS
        if self.box.gpu:
            limits = sandboxing.Limits(cpu_seconds=limits.cpu_seconds, address_space=None,
                                       processes=limits.processes, file_size=limits.file_size)
        timeout = self.run_timeout
        rc, text = self._sandboxed(cmd, [], work, timeout, limits)  # the runner is in work, its own
        if rc is None:
            result.status = "timeout"
            result.message = f"no speed points: the timing run took longer than {timeout:g} s and was stopped"
            return result
        lines = []
        for line in text.splitlines():
            try:
                d = json.loads(line)
            except ValueError:
                continue
            if isinstance(d, dict) and "status" in d:
                lines.append(d)
        bad = next((d for d in lines if d["status"] != "ok"), None)
        if bad is not None:
            what = {"too_slow": "too slow", "fault": "it failed", "wrong": "wrong output"}.get(bad["status"], "")
            result.status = bad["status"] if bad["status"] in ("too_slow", "fault", "wrong") else "error"
            result.message = (f"no speed points ({what or 'the timing run failed'} at n = {bad['n']}): "
                              f"{bad.get('message', '')}")
            if bad["status"] == "reference_wrong":
                result.message = f"no speed grade: a problem of the grader's, not yours: {bad.get('message', '')}"
            return result
        if len(lines) != len(sizes) or rc != 0:
            result.status = "fault"
            why = f"signal {-rc}" if rc < 0 else f"exit status {rc}"
            result.message = f"no speed points: the timing run ended ({why}) before it timed every size"
            return result
        ratios = [d["reference_ms"] / d["student_ms"] for d in lines if d["student_ms"] > 0]
        if len(ratios) != len(lines):
            result.status, result.message = "error", "no speed points: a time of zero was measured"
            return result
        result.sizes = lines
        result.ratio = math.exp(sum(math.log(r) for r in ratios) / len(ratios))
        result.status = "ok"
        result.points = rubric.points_for(result.ratio)
        return result


_graders = threading.Lock()


def grade_speed(a: argparse.Namespace, build: building.GraderBuild, box: sandboxing.Sandbox, g, scratch: Path,
                seed: int) -> None:
    """Adds a speed grade to each chapter of the Grade g that has a rubric (--speed): the files
    the correctness grade staged in scratch/NN_slug/src. One SpeedGrader per grading run (its
    reference objects built once, in the run's scratch folder, for every student)."""
    with _graders:
        grader = getattr(a, "_speed_grader", None)
        if grader is None:
            root = scratch.parent / "speed-reference"
            root.mkdir(exist_ok=True)
            root.chmod(0o755)
            grader = a._speed_grader = SpeedGrader(build, box, a.speed_rubrics, root, a.build_timeout, seed,
                                                   runs=a.speed_runs)
    for r in g.chapters:
        passed = r.status == "graded" and bool(r.tests) and all(t.passed for t in r.tests)
        r.speed = grader.grade(r.chapter, passed, scratch / r.chapter.id / "src", scratch / r.chapter.id / "speed")
