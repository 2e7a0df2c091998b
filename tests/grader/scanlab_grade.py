#!/usr/bin/python3
# scanlab-grade: grades a folder of exercises (a student's copy of exercises/) chapter by chapter.
#
# Builds each chapter's doctest grading program (tests/grade/NN_slug.cu) out of the tree, against a
# snapshot of the student's folder, runs it under a per-test time limit with doctest's XML reporter,
# and scores the test cases by the points in their descriptions (doctest::description("points: N"),
# 1 when absent). Reports as text, JSON or JUnit; grades a whole class into a CSV.
#
# Builds on doctest's reporters (the XML one is parsed here, element by element, so a crashed or
# killed run still yields the test cases it finished) and on the CMake project's own
# scanlab_add_chapter(), which already builds grade_NN_slug_exercise_<backend> against
# SCANLAB_EXERCISES_DIR. Python standard library only: `lab grade` runs it with Debian's
# /usr/bin/python3.
"""Grade scanlab exercises: ./lab grade --help"""

import argparse
import concurrent.futures
import csv
import dataclasses
import datetime
import fcntl
import hashlib
import io
import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Dict, List, Optional, Tuple

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

COMPILE_ERROR_LINES = 20
MAX_STAGED_FILE_BYTES = 4 << 20


class GradeError(Exception):
    """A problem of the grader or its set-up (not of the student's code): exit status 3."""


def say(msg: str) -> None:
    print(f"scanlab-grade: {msg}", file=sys.stderr, flush=True)


# ------------------------------------------------------------------------------------------------
# Chapters and their test cases


@dataclasses.dataclass
class Chapter:
    nn: str
    slug: str

    @property
    def id(self) -> str:
        return f"{self.nn}_{self.slug}"

    def target(self, backend: str) -> str:
        return f"grade_{self.id}_exercise_{backend}"


def chapter_list(repo: Path) -> List[Chapter]:
    """Chapters registered in chapters/CMakeLists.txt (in order) that have a grading test."""
    text = (repo / "chapters" / "CMakeLists.txt").read_text()
    chapters = []
    for m in re.finditer(r"^\s*scanlab_add_chapter\(\s*([0-9]+)\s+([A-Za-z0-9_]+)", text, re.M):
        ch = Chapter(m.group(1), m.group(2))
        if (repo / "tests" / "grade" / f"{ch.id}.cu").is_file():
            chapters.append(ch)
    return chapters


def select_chapters(all_chapters: List[Chapter], spec: Optional[str]) -> List[Chapter]:
    if not spec:
        return list(all_chapters)
    chosen = []
    for item in (s.strip() for s in spec.split(",")):
        if not item:
            continue
        match = [c for c in all_chapters
                 if (item.isdigit() and int(item) == int(c.nn)) or item in (c.slug, c.id)]
        if not match:
            known = ", ".join(c.id for c in all_chapters)
            raise ValueError(f"--chapters: no graded chapter '{item}' (graded chapters: {known})")
        if match[0] not in chosen:
            chosen.append(match[0])
    return chosen


def points_of(description: Optional[str]) -> int:
    m = re.search(r"points:\s*([0-9]+)", description or "")
    return int(m.group(1)) if m else 1


@dataclasses.dataclass
class DeclaredTest:
    name: str
    points: int


def _strip_comments(src: str) -> str:
    """Blanks out // and /* */ comments, keeping string and character literals intact."""
    out = []
    i, n = 0, len(src)
    while i < n:
        c = src[i]
        if src.startswith("//", i):
            j = src.find("\n", i)
            i = n if j < 0 else j
        elif src.startswith("/*", i):
            j = src.find("*/", i + 2)
            i = n if j < 0 else j + 2
            out.append(" ")
        elif c == '"' or (c == "'" and not (i and src[i - 1].isalnum())):  # not 1'000'000
            j = i + 1
            while j < n and src[j] != c:
                j += 2 if src[j] == "\\" else 1
            out.append(src[i:j + 1])
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def _skip_literal(src: str, i: int) -> int:
    """The index just past the string or character literal that starts at src[i]."""
    q, j = src[i], i + 1
    while j < len(src) and src[j] != q:
        j += 2 if src[j] == "\\" else 1
    return j + 1


def _c_string_literals(text: str) -> List[str]:
    """The decoded contents of the leading run of adjacent string literals in text."""
    parts = []
    for m in re.finditer(r'\s*"((?:[^"\\]|\\.)*)"', text):
        if parts and m.start() != end:
            break
        if not parts and text[:m.start()].strip():
            break
        parts.append(re.sub(r"\\(.)", r"\1", m.group(1)))
        end = m.end()
    return parts


def declared_tests(source: Path) -> List[DeclaredTest]:
    """TEST_CASE("name" * doctest::description("points: N")) declarations of a grading source, in
    source order (doctest's default file order). Used for the points a chapter is worth when its
    program cannot be built or run; the running program's own descriptions win when it runs."""
    src = _strip_comments(source.read_text())
    tests = []
    head = re.compile(r"(?<![A-Za-z0-9_])TEST_CASE\s*\(")
    i = 0
    while i < len(src):
        if src[i] == '"' or (src[i] == "'" and not (i and src[i - 1].isalnum())):
            i = _skip_literal(src, i)
            continue
        m = head.match(src, i)
        if not m:
            i += 1
            continue
        depth, j = 1, m.end()
        while j < len(src) and depth:
            if src[j] == '"' or (src[j] == "'" and not src[j - 1].isalnum()):
                j = _skip_literal(src, j)
                continue
            if src[j] == "(":
                depth += 1
            elif src[j] == ")":
                depth -= 1
            j += 1
        i = j
        args = src[m.end():j - 1]
        name = "".join(_c_string_literals(args))
        desc = re.search(r"description\s*\(((?:\s*\"(?:[^\"\\]|\\.)*\")+)\s*\)", args)
        tests.append(DeclaredTest(name, points_of("".join(_c_string_literals(desc.group(1)))
                                                  if desc else None)))
    return tests


# ------------------------------------------------------------------------------------------------
# doctest's XML reporter, read incrementally


def _squash(text: Optional[str]) -> str:
    return " ".join((text or "").split())


@dataclasses.dataclass
class TestResult:
    name: str
    points: int
    passed: bool
    message: str = ""           # the first failure, one line
    details: List[str] = dataclasses.field(default_factory=list)  # every failure, one line each
    duration: float = 0.0
    crashed: bool = False
    order: str = ""             # the emulator order under which it failed

    @property
    def score(self) -> int:
        return self.points if self.passed else 0


def describe_expression(e: ET.Element) -> str:
    infos = [_squash(i.text) for i in e.findall("Info") if _squash(i.text)]
    where = f"{Path(e.get('filename', '?')).name}:{e.get('line', '?')}"
    exc = e.find("Exception")
    if exc is not None:
        what = f"{e.get('type', 'CHECK')}({_squash(e.findtext('Original'))}) threw: {_squash(exc.text)}"
    else:
        what = f"{e.get('type', 'CHECK')}({_squash(e.findtext('Original'))}) is false"
        expanded = _squash(e.findtext("Expanded"))
        if expanded and expanded not in ("false", _squash(e.findtext("Original"))):
            what += f" ({expanded})"
    return "; ".join(infos + [f"{what} at {where}"])


class DoctestXmlReader:
    """Feeds on the bytes doctest's XML reporter writes and collects finished test cases; `open`
    is the test case that started and has not finished (the one running when a process died)."""

    def __init__(self) -> None:
        self._parser = ET.XMLPullParser(events=("start", "end"))
        self._stack: List[ET.Element] = []
        self.finished: List[TestResult] = []
        self.open: Optional[Tuple[str, int]] = None
        self.started = 0
        self.broken = False

    def feed(self, data: bytes) -> None:
        if self.broken or not data:
            return
        try:
            self._parser.feed(data)
            # Expat 2.6 and later may hold back a complete start tag until more bytes arrive
            # ("reparse deferral"); flush() (Python 3.12.3+, 3.11.9+) parses what is here, so
            # the test case a dying process was running is still seen as started.
            flush = getattr(self._parser, "flush", None)
            if flush is not None:
                flush()
            self._drain()
        except ET.ParseError:
            self.broken = True  # a half-written element from a dying process: keep what we have

    def _drain(self) -> None:
        for event, elem in self._parser.read_events():
            if event == "start":
                self._stack.append(elem)
                if (elem.tag == "TestCase" and len(self._stack) >= 2 and self._stack[-2].tag == "TestSuite"
                        and elem.get("skipped") != "true"):  # skipped: outside --first
                    self.open = (elem.get("name", ""), points_of(elem.get("description")))
                    self.started += 1
            else:
                self._stack.pop()
                if elem.tag == "TestCase" and self.open is not None:
                    self.finished.append(self._result(elem))
                    self.open = None
                    elem.clear()

    @staticmethod
    def _result(tc: ET.Element) -> TestResult:
        overall = tc.find("OverallResultsAsserts")
        passed = overall is not None and overall.get("test_case_success") == "true"
        details, crashed = [], False
        for child in tc.iter():
            if child.tag == "Expression" and child.get("success") == "false":
                details.append(describe_expression(child))
            elif child.tag == "Exception" and child.get("crash") is not None:
                crashed = crashed or child.get("crash") == "true"
                kind = "crashed" if child.get("crash") == "true" else "exception"
                details.append(f"{kind}: {_squash(child.text)}")
            elif child.tag == "Message" and "ERROR" in (child.get("type") or ""):
                details.append(f"{_squash(child.findtext('Text'))} at "
                               f"{Path(child.get('filename', '?')).name}:{child.get('line', '?')}")
        if not passed and not details:
            details.append("failed")
        duration = float(overall.get("duration", 0) or 0) if overall is not None else 0.0
        return TestResult(name=tc.get("name", ""), points=points_of(tc.get("description")),
                          passed=passed, message=details[0] if details else "",
                          details=details, duration=duration, crashed=crashed)


# ------------------------------------------------------------------------------------------------
# Running one grading program


def _tail_lines(path: Path, count: int, pattern: Optional[str] = None) -> List[str]:
    try:
        lines = path.read_text(errors="replace").splitlines()
    except OSError:
        return []
    if pattern:
        lines = [line for line in lines if re.search(pattern, line)]
    return [line.rstrip() for line in lines[-count:]]


def _exit_reason(rc: int, timed_out: bool, timeout: float) -> str:
    if timed_out:
        return f"timed out: still running after {timeout:g} s (killed)"
    if rc < 0:
        try:
            name = signal.Signals(-rc).name
        except ValueError:
            name = f"signal {-rc}"
        return f"crashed: killed by {name}"
    if rc == 124:
        return "deadlock or endless loop: the emulator's watchdog ended the run"
    return f"the test program exited with status {rc} in the middle of this test"


def list_tests(binary: Path, env: Dict[str, str], cwd: Path) -> Optional[List[str]]:
    """Test case names in run order (doctest --list-test-cases -r=xml), or None if that fails."""
    try:
        p = subprocess.run([str(binary), "--list-test-cases", "-r=xml"], env=env, cwd=cwd,
                           stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL,
                           timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return None
    text = p.stdout.decode(errors="replace")
    start = text.find("<?xml")
    if start < 0:
        return None
    try:
        root = ET.fromstring(text[start:])
    except ET.ParseError:
        return None
    return [tc.get("name", "") for tc in root.iter("TestCase")]


def run_tests(binary: Path, names: List[str], env: Dict[str, str], workdir: Path, label: str,
              timeout: float) -> Tuple[Dict[str, TestResult], List[str]]:
    """Runs every test case of `binary` (whose cases are `names`, in order), restarting after the
    one that crashed, hung or stopped the program, so one bad test costs only its own points.
    Returns results by name and the emulator's messages (deadlock reports and the like)."""
    results: Dict[str, TestResult] = {}
    first = 1  # doctest's --first is 1-based
    attempt = 0
    notes: List[str] = []
    while first <= len(names):
        attempt += 1
        xml_path = workdir / f"{label}.{attempt}.xml"
        log_path = workdir / f"{label}.{attempt}.log"
        for p in (xml_path, log_path):
            p.unlink(missing_ok=True)
        cmd = [str(binary), "-r=xml", f"--out={xml_path}", "--duration=true", "--no-skipped-summary=true",
               f"--first={first}"]
        reader = DoctestXmlReader()
        timed_out = False
        with open(log_path, "wb") as log:
            proc = subprocess.Popen(cmd, env=env, cwd=workdir, stdout=log, stderr=subprocess.STDOUT,
                                    stdin=subprocess.DEVNULL, start_new_session=True)
            offset, seen, since = 0, -1, time.monotonic()
            while True:
                rc = proc.poll()
                offset = _feed_from(xml_path, offset, reader)
                if reader.started != seen:
                    seen, since = reader.started, time.monotonic()
                if rc is not None:
                    break
                if time.monotonic() - since > timeout:
                    timed_out = True
                    try:
                        os.killpg(proc.pid, signal.SIGKILL)
                    except ProcessLookupError:
                        pass
                    rc = proc.wait()
                    break
                time.sleep(0.02)
            _feed_from(xml_path, offset, reader)
        for line in _tail_lines(log_path, 6, r"scanlab emulator|deadlock|racecheck|race"):
            if line not in notes:
                notes.append(line)

        index = first - 1
        for r in reader.finished:
            if index >= len(names):
                break
            if r.name != names[index]:
                raise GradeError(f"{binary.name}: expected test case '{names[index]}', got '{r.name}'")
            results[r.name] = r
            index += 1
        if index >= len(names):
            break
        if reader.finished and reader.finished[-1].crashed and reader.open is None:
            first = index + 1  # doctest reported the crash in the test it happened in
            continue
        # The program stopped inside (or before) test `index`: that test fails, the rest run anew.
        name = names[index]
        reason = _exit_reason(rc, timed_out, timeout)
        tail = _tail_lines(log_path, 3, r"scanlab emulator")
        if not tail and not timed_out:
            tail = [l for l in _tail_lines(log_path, 3) if not l.startswith("scanlab seed:")][-2:]
        if tail:
            reason += " | " + " | ".join(tail)
        points = reader.open[1] if reader.open is not None and reader.open[0] == name else None
        results[name] = TestResult(name=name, points=points if points is not None else -1,
                                   passed=False, message=reason, details=[reason],
                                   crashed=not timed_out)
        first = index + 2
    return results, notes


def _feed_from(path: Path, offset: int, reader: DoctestXmlReader) -> int:
    try:
        with open(path, "rb") as f:
            f.seek(offset)
            data = f.read()
    except FileNotFoundError:
        return offset
    reader.feed(data)
    return offset + len(data)


# ------------------------------------------------------------------------------------------------
# The out-of-tree build


@dataclasses.dataclass
class ChapterResult:
    chapter: Chapter
    status: str = "graded"       # graded | compile_error | missing | not_run
    tests: List[TestResult] = dataclasses.field(default_factory=list)
    points: int = 0
    compile_error: str = ""
    notes: List[str] = dataclasses.field(default_factory=list)

    @property
    def score(self) -> int:
        return sum(t.score for t in self.tests)


class GraderBuild:
    """One CMake build tree for grading (per backend), configured once from the repo with
    SCANLAB_EXERCISES_DIR pointing at a staging folder inside it. Each grading run copies the
    student's chapter folders there (only files whose content changed, so Ninja rebuilds only
    what changed) and builds only the grade_NN_slug_exercise_<backend> targets: the emulator is
    compiled once for every student, and solutions/ is never on an include path."""

    def __init__(self, repo: Path, build_dir: Path, backend: str, jobs: int, verbose: bool):
        self.repo, self.dir, self.backend, self.jobs, self.verbose = repo, build_dir, backend, jobs, verbose
        self.stage = build_dir / "exercises"
        self._lock_file = None

    def __enter__(self):
        self.dir.mkdir(parents=True, exist_ok=True)
        self._lock_file = open(self.dir.parent / f"{self.dir.name}.lock", "w")
        try:
            fcntl.flock(self._lock_file, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            say(f"waiting for another grading run that uses {self.dir} ...")
            fcntl.flock(self._lock_file, fcntl.LOCK_EX)
        return self

    def __exit__(self, *exc):
        if self._lock_file:
            fcntl.flock(self._lock_file, fcntl.LOCK_UN)
            self._lock_file.close()

    def _run(self, cmd: List[str], env=None, check=True) -> subprocess.CompletedProcess:
        if self.verbose:
            say("+ " + " ".join(cmd))
        p = subprocess.run(cmd, cwd=self.repo, env=env, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        p.text = p.stdout.decode(errors="replace")
        if check and p.returncode != 0:
            raise GradeError(f"command failed ({p.returncode}): {' '.join(cmd)}\n{p.text[-4000:]}")
        return p

    def configure(self) -> None:
        if (self.dir / "CMakeCache.txt").is_file() and (self.dir / "build.ninja").is_file():
            # Re-runs CMake when the project's CMake files changed since (a chapter was added):
            # the same check Ninja makes before any build, done here before the targets are read.
            self._run([self._ninja(), "-C", str(self.dir), "build.ninja"])
            return
        say(f"configuring the grader build in {self.dir} (once; later runs reuse it)")
        self.stage.mkdir(parents=True, exist_ok=True)
        if self.backend == "emu":
            backends = ["-DSCANLAB_EMU=ON", "-DSCANLAB_CUDA=OFF"]
        else:
            backends = ["-DSCANLAB_EMU=OFF", "-DSCANLAB_CUDA=ON"]
        self._run(["cmake", "-S", str(self.repo), "-B", str(self.dir), "-G", "Ninja",
                   "-DCMAKE_BUILD_TYPE=RelWithDebInfo", *backends,
                   "-DSCANLAB_GPU_TESTS=OFF", "-DSCANLAB_BOOK_TESTS=OFF",
                   f"-DSCANLAB_EXERCISES_DIR={self.stage}"])

    def _ninja(self) -> str:
        m = re.search(r"^CMAKE_MAKE_PROGRAM:[A-Z]+=(.+)$", (self.dir / "CMakeCache.txt").read_text(), re.M)
        return m.group(1).strip() if m else "ninja"

    def has_targets(self, chapters: List[Chapter]) -> List[Chapter]:
        """The chapters whose grading target this build has (scanlab_add_chapter made it)."""
        p = self._run([self._ninja(), "-C", str(self.dir), "-t", "targets", "all"])
        known = {line.split(":")[0] for line in p.text.splitlines()}
        return [c for c in chapters if c.target(self.backend) in known]

    def check_no_solutions(self, chapters: List[Chapter]) -> None:
        """Refuses to grade if any compile command of the grading targets names solutions/."""
        p = self._run([self._ninja(), "-C", str(self.dir), "-t", "commands",
                       *[c.target(self.backend) for c in chapters]])
        solutions = str(self.repo / "solutions")
        if solutions in p.text:
            raise GradeError("the grading targets' compile commands name solutions/: fix "
                             "scanlab_add_chapter() in cmake/ScanlabChapters.cmake")

    def stage_chapter(self, chapter: Chapter, source: Path) -> List[str]:
        """Mirrors source/NN_slug into the staging folder. Returns notes on skipped files."""
        src, dst = source / chapter.id, self.stage / chapter.id
        notes = []
        wanted = set()
        changed = False
        for path in sorted(src.rglob("*")):
            rel = path.relative_to(src)
            if any(part.startswith(".") for part in rel.parts):
                continue
            if path.is_symlink():
                notes.append(f"skipped symbolic link {chapter.id}/{rel}")
                continue
            if path.is_dir():
                continue
            if path.stat().st_size > MAX_STAGED_FILE_BYTES:
                notes.append(f"skipped {chapter.id}/{rel}: larger than {MAX_STAGED_FILE_BYTES >> 20} MiB")
                continue
            wanted.add(rel)
            target = dst / rel
            data = path.read_bytes()
            if target.is_file() and not target.is_symlink() and target.read_bytes() == data:
                continue  # unchanged: keep its time stamp so nothing rebuilds
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)  # a fresh time stamp, never the student's (it may be older)
            changed = True
        if dst.is_dir():
            for path in sorted(dst.rglob("*"), reverse=True):
                rel = path.relative_to(dst)
                if path.is_file() and rel not in wanted:
                    path.unlink()
                    changed = True
                elif path.is_dir() and not any(path.iterdir()):
                    path.rmdir()
        if changed:
            self._forget_translation(chapter)
        return notes

    def _forget_translation(self, chapter: Chapter) -> None:
        """Removes the emulator translation of the chapter's grading source. The translator
        rewrites its .cpp only when that text changes, and CMake's Ninja rules restat custom
        commands, so a change in an included exercise header alone (which lands in a translated
        copy Ninja does not know as an output) would not recompile the test program."""
        for d in self.dir.glob(f"**/emu_src/{chapter.target('emu')}"):
            for cpp in d.glob("*.cpp"):
                cpp.unlink()

    def unstage_chapter(self, chapter: Chapter) -> None:
        shutil.rmtree(self.stage / chapter.id, ignore_errors=True)

    def build_base(self) -> None:
        """The emulator, the doctest main and the translator: not the student's code, so a failure
        here is the grader's problem."""
        if self.backend == "emu":
            targets = ["scanlab_emu", "scanlab_emu_translate", "scanlab_doctest_main"]
        else:
            targets = ["scanlab_doctest_main"]
        t0 = time.monotonic()
        self._run(["cmake", "--build", str(self.dir), "-j", str(self.jobs), "--target", *targets])
        if time.monotonic() - t0 > 5:
            say(f"built the {self.backend} runtime in {time.monotonic() - t0:.0f} s")

    def binary(self, chapter: Chapter) -> Path:
        return self.dir / "bin" / self.backend / f"grade_{chapter.id}_exercise"

    def build_chapters(self, chapters: List[Chapter]) -> Dict[str, str]:
        """Builds the chapters' grading programs with `ninja -k 0`; returns {chapter id: compiler
        output} for each chapter that did not build (its stale program, if any, is removed)."""
        if not chapters:
            return {}
        env = dict(os.environ, NINJA_STATUS="[scanlab-grade %f/%t] ")
        p = self._run(["cmake", "--build", str(self.dir), "-j", str(self.jobs), "--target",
                       *[c.target(self.backend) for c in chapters], "--", "-k", "0"],
                      env=env, check=False)
        failed: Dict[str, List[str]] = {}
        block: Optional[List[str]] = None
        for line in p.text.splitlines():
            if line.startswith("FAILED: "):
                owner = next((c.id for c in chapters if c.target(self.backend) in line), None)
                block = failed.setdefault(owner or "", [])
                block.append(line)
            elif line.startswith("[scanlab-grade ") or line.startswith("ninja: "):
                block = None
            elif block is not None:
                block.append(line)
        errors = {}
        for c in chapters:
            if c.id in failed:
                errors[c.id] = self._compiler_message(failed[c.id])
                self.binary(c).unlink(missing_ok=True)
        if p.returncode != 0 and not errors:
            raise GradeError(f"the build failed outside the students' code:\n{p.text[-4000:]}")
        if "" in failed and not errors:
            raise GradeError("a build step failed that belongs to no chapter:\n" + "\n".join(failed[""][:40]))
        return errors

    def _compiler_message(self, block: List[str]) -> str:
        # Ninja prints "FAILED: output", then the command, then its output: keep the output and
        # start at the context lines ("In file included from ...") just before the first error.
        lines = [l for l in block[2:] if l.strip()]
        first = next((i for i, l in enumerate(lines) if re.search(r"\berror\b", l)), 0)
        start = max(0, first - 3)
        while start < first and not re.search(r"In file included|In (instantiation|function|member)|required from", lines[start]):
            start += 1
        return "\n".join(lines[start:start + COMPILE_ERROR_LINES])


# ------------------------------------------------------------------------------------------------
# Grading


@dataclasses.dataclass
class Grade:
    exercises: str
    seed: int
    backend: str
    orders: List[str]
    chapters: List[ChapterResult]
    student: str = ""

    @property
    def score(self) -> int:
        return sum(c.score for c in self.chapters)

    @property
    def points(self) -> int:
        return sum(c.points for c in self.chapters)


def run_environment(seed: int, order: Optional[str], timeout: float) -> Dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("SCANLAB_EMU_") and k != "SCANLAB_SEED"}
    env["SCANLAB_SEED"] = str(seed)
    if order:
        env.update(EMU_ORDERS[order])
        env["SCANLAB_EMU_SEED"] = str(seed)
        # The emulator's own watchdog names the kernel that stopped making progress.
        env["SCANLAB_EMU_WATCHDOG"] = str(max(1, min(20, int(timeout) - 1)))
    return env


def grade_folder(build: GraderBuild, exercises: Path, chapters: List[Chapter], seed: int,
                 orders: List[str], timeout: float) -> Grade:
    results = []
    present = []
    for ch in chapters:
        r = ChapterResult(ch)
        declared = declared_tests(build.repo / "tests" / "grade" / f"{ch.id}.cu")
        r.tests = [TestResult(t.name, t.points, False, "not run") for t in declared]
        r.points = sum(t.points for t in declared)
        if not (exercises / ch.id).is_dir():
            r.status = "missing"
            r.compile_error = f"no folder {ch.id}/ in {exercises}"
            build.unstage_chapter(ch)
            for t in r.tests:
                t.message = "not graded: the chapter's folder is missing"
        else:
            r.notes += build.stage_chapter(ch, exercises)
            present.append(ch)
        results.append(r)

    say(f"building {', '.join(c.id for c in present) or 'nothing'} for {exercises}")
    errors = build.build_chapters(present)
    workdir = build.dir / "runs"
    workdir.mkdir(exist_ok=True)
    # Every (chapter, order) run is its own process; they run side by side, --jobs at a time (the
    # emulator runs a program on one core).
    runs = []
    for r in results:
        ch = r.chapter
        if r.status == "missing":
            continue
        if ch.id in errors:
            r.status = "compile_error"
            r.compile_error = errors[ch.id].replace(str(build.stage), str(exercises))
            for t in r.tests:
                t.message = "not graded: the chapter does not compile"
            continue
        names = list_tests(build.binary(ch), run_environment(seed, None, timeout), workdir)
        if names is None:
            r.status = "not_run"
            r.compile_error = "the grading program did not start (doctest could not list its tests)"
            continue
        for order in (orders if build.backend == "emu" else [None]):
            runs.append((r, names, order))

    def run_one(run):
        r, names, order = run
        label = f"{r.chapter.id}.{order or build.backend}"
        return run_tests(build.binary(r.chapter), names, run_environment(seed, order, timeout),
                         workdir, label, timeout)

    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, build.jobs)) as pool:
        outcomes = list(pool.map(run_one, runs))

    combined: Dict[str, Dict[str, TestResult]] = {}
    for (r, names, order), (found, notes) in zip(runs, outcomes):
        declared = {t.name: t.points for t in r.tests}
        r.notes += [n for n in notes if n not in r.notes]
        best = combined.setdefault(r.chapter.id, {})
        for name in names:
            t = found[name]
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
        return text.replace(str(build.stage), str(exercises))

    for r in results:
        r.notes = [unstage(n) for n in r.notes]
        for t in combined.get(r.chapter.id, {}).values():
            t.message = unstage(t.message)
            t.details = [unstage(d) for d in t.details]
        if r.chapter.id in combined:
            names = [n for n in combined[r.chapter.id]]
            declared = {t.name for t in r.tests}
            r.tests = list(combined[r.chapter.id].values())
            r.points = sum(t.points for t in r.tests)
            if set(names) != declared:
                r.notes.append("the grading program's test cases differ from those declared in "
                               f"tests/grade/{r.chapter.id}.cu (points are taken from the program)")
    return Grade(str(exercises), seed, build.backend, orders if build.backend == "emu" else [], results)


# ------------------------------------------------------------------------------------------------
# Reports

_XML_BAD = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


def _xml_text(s: str) -> str:
    return _XML_BAD.sub("?", s)


def report_text(g: Grade, replay: str) -> str:
    out = io.StringIO()
    where = "GPU" if g.backend == "gpu" else f"emulator, orders {', '.join(g.orders)}"
    print(f"scanlab grade: {g.exercises}", file=out)
    print(f"  on the {where}; seed {g.seed} (replay: {replay})", file=out)
    print("", file=out)
    for c in g.chapters:
        print(f"  {c.chapter.id:<28} {c.score:>4} / {c.points:<4}  {_status_words(c)}", file=out)
        if c.status == "graded":
            for t in c.tests:
                if not t.passed:
                    when = f" [order: {t.order}]" if t.order and t.order != "default" else ""
                    print(f"      FAILED ({t.points} pts) {t.name}{when}", file=out)
                    print(f"          {t.message}", file=out)
        elif c.compile_error:
            for line in c.compile_error.splitlines():
                print(f"      | {line}", file=out)
        for n in c.notes:
            print(f"      note: {n}", file=out)
    print(f"  {'-' * 42}", file=out)
    pct = 100.0 * g.score / g.points if g.points else 0.0
    print(f"  {'total':<28} {g.score:>4} / {g.points:<4}  ({pct:.0f}%)", file=out)
    return out.getvalue()


def _status_words(c: ChapterResult) -> str:
    if c.status == "compile_error":
        return "does not compile:"
    if c.status == "missing":
        return "missing"
    if c.status == "not_run":
        return "did not run:"
    passed = sum(1 for t in c.tests if t.passed)
    return f"{passed} of {len(c.tests)} tests passed"


def report_json(g: Grade) -> dict:
    return {
        "exercises": g.exercises,
        "student": g.student or None,
        "seed": g.seed,
        "backend": g.backend,
        "orders": g.orders,
        "chapters": [{
            "chapter": c.chapter.nn,
            "slug": c.chapter.slug,
            "status": c.status,
            "score": c.score,
            "points": c.points,
            "compile_error": c.compile_error or None,
            "notes": c.notes,
            "tests": [{
                "name": t.name,
                "points": t.points,
                "score": t.score,
                "passed": t.passed,
                "message": t.message or None,
                "failures": t.details,
                "order": t.order or None,
                "duration": round(t.duration, 6),
            } for t in c.tests],
        } for c in g.chapters],
        "score": g.score,
        "points": g.points,
    }


def report_junit(g: Grade) -> str:
    """JUnit in the shape doctest's junit reporter writes (testsuites > testsuite > testcase >
    failure), one testsuite per chapter, plus what doctest cannot report: a chapter that does not
    compile is one <error> test case, and the points are properties."""
    root = ET.Element("testsuites", name="scanlab grade", tests=str(sum(len(c.tests) for c in g.chapters)))
    failures = errors = 0
    for c in g.chapters:
        suite = ET.SubElement(root, "testsuite", name=c.chapter.id, tests=str(len(c.tests)),
                              timestamp=datetime.datetime.now().isoformat(timespec="seconds"))
        props = ET.SubElement(suite, "properties")
        for k, v in (("score", c.score), ("points", c.points), ("seed", g.seed), ("status", c.status),
                     ("exercises", g.exercises)):
            ET.SubElement(props, "property", name=k, value=_xml_text(str(v)))
        s_fail = s_err = 0
        if c.status != "graded":
            s_err = 1
            case = ET.SubElement(suite, "testcase", classname=c.chapter.id, name="build", time="0")
            err = ET.SubElement(case, "error", message=_xml_text(_status_words(c).rstrip(":")),
                                type=c.status)
            err.text = _xml_text(c.compile_error)
        for t in c.tests:
            case = ET.SubElement(suite, "testcase", classname=c.chapter.id, name=_xml_text(t.name),
                                 time=f"{t.duration:.6f}", points=str(t.points))
            if c.status != "graded":
                ET.SubElement(case, "skipped", message=_xml_text(t.message))
            elif not t.passed:
                s_fail += 1
                f = ET.SubElement(case, "failure", message=_xml_text(t.message),
                                  type="crash" if t.crashed else "assertion")
                f.text = _xml_text("\n".join(t.details))
        suite.set("failures", str(s_fail))
        suite.set("errors", str(s_err))
        failures += s_fail
        errors += s_err
    root.set("failures", str(failures))
    root.set("errors", str(errors))
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


def render(g: Grade, kind: str, replay: str) -> str:
    if kind == "json":
        return json.dumps(report_json(g), indent=2) + "\n"
    if kind == "junit":
        return report_junit(g)
    return report_text(g, replay)


# ------------------------------------------------------------------------------------------------
# Command line


def parse_args(argv: List[str]) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        prog="lab grade",
        description="Grade a folder of scanlab exercises (default: the repo's own exercises/) or a "
                    "class of them. Builds out of the tree, in build/grade/, never touching the folder.")
    p.add_argument("--exercises", metavar="DIR", help="the folder to grade (default: exercises/)")
    p.add_argument("--chapters", metavar="LIST", help="chapters to grade, e.g. 00,01 (default: all)")
    p.add_argument("--report", choices=["text", "json", "junit"], default="text")
    p.add_argument("--out", metavar="PATH",
                   help="write the report here (default: stdout); with --class, the folder for "
                        "the per-student reports (default: next to the CSV)")
    p.add_argument("--gpu", action="store_true", help="build with nvcc and run on the GPU")
    p.add_argument("--class", dest="class_dir", metavar="DIR",
                   help="grade every subfolder of DIR as one student's exercises folder")
    p.add_argument("--csv", metavar="FILE", help="with --class: the CSV of scores to write")
    p.add_argument("--seed", type=int, help="replay a run: the seed of its random inputs")
    p.add_argument("--orders", default=DEFAULT_ORDERS,
                   help="emulator orders each test must pass under (default, reverse, random; "
                        f"default: {DEFAULT_ORDERS})")
    p.add_argument("--timeout", type=float, default=60.0, metavar="SECONDS",
                   help="time limit per test case (default: 60)")
    p.add_argument("--build-dir", metavar="DIR",
                   help="the grader's build folder (default: build/grade/emu or build/grade/gpu)")
    p.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    p.add_argument("--verbose", action="store_true", help="print the build commands")
    p.add_argument("--prepare", action="store_true",
                   help="only configure the grader build and build the runtime (for CI caches)")
    a = p.parse_args(argv)
    if a.class_dir and a.exercises:
        p.error("--class and --exercises do not go together")
    if a.class_dir and not a.csv:
        p.error("--class needs --csv FILE")
    if a.csv and not a.class_dir:
        p.error("--csv goes with --class")
    if a.seed is not None and a.seed < 0:
        p.error("--seed must be a non-negative integer")
    a.orders = [o.strip() for o in a.orders.split(",") if o.strip()]
    for o in a.orders:
        if o not in EMU_ORDERS:
            p.error(f"--orders: '{o}' is not one of {', '.join(EMU_ORDERS)}")
    if not a.orders:
        p.error("--orders needs at least one order")
    if a.timeout <= 0:
        p.error("--timeout must be positive")
    return a


def gpu_present() -> bool:
    try:
        return subprocess.run(["nvidia-smi", "-L"], stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL).returncode == 0 and shutil.which("nvcc") is not None
    except OSError:
        return False


def replay_command(a: argparse.Namespace, seed: int, exercises: Optional[str]) -> str:
    parts = ["./lab grade"]
    if exercises:
        parts += ["--exercises", exercises]
    if a.chapters:
        parts += ["--chapters", a.chapters]
    if a.gpu:
        parts.append("--gpu")
    elif a.orders != DEFAULT_ORDERS.split(","):
        parts += ["--orders", ",".join(a.orders)]
    parts += ["--seed", str(seed)]
    return " ".join(parts)


EXTENSIONS = {"text": "txt", "json": "json", "junit": "xml"}


def main(argv: List[str]) -> int:
    a = parse_args(argv)
    repo = REPO
    chapters_all = chapter_list(repo)
    try:
        chapters = select_chapters(chapters_all, a.chapters)
    except ValueError as e:
        say(str(e))
        return 2
    if a.gpu and not gpu_present():
        say("--gpu: no usable GPU here (nvidia-smi -L and nvcc are needed); grade on the emulator instead")
        return 2
    backend = "gpu" if a.gpu else "emu"
    build_dir = Path(a.build_dir).resolve() if a.build_dir else repo / "build" / "grade" / backend
    seed = a.seed if a.seed is not None else random.SystemRandom().randrange(1, 10**9)
    say(f"seed {seed} (replay with --seed {seed})")

    if a.class_dir:
        class_dir = Path(a.class_dir).resolve()
        if not class_dir.is_dir():
            say(f"--class: no such folder: {a.class_dir}")
            return 2
        students = sorted(p for p in class_dir.iterdir() if p.is_dir() and not p.name.startswith("."))
        if not students:
            say(f"--class: {a.class_dir} has no student folders")
            return 2
        csv_path = Path(a.csv)
        reports_dir = Path(a.out) if a.out else csv_path.with_name(csv_path.stem + "_reports")
        reports_dir.mkdir(parents=True, exist_ok=True)
    else:
        exercises = Path(a.exercises).resolve() if a.exercises else repo / "exercises"
        if not exercises.is_dir():
            say(f"--exercises: no such folder: {a.exercises}")
            return 2
        if not any((exercises / c.id).is_dir() for c in chapters):
            say(f"warning: {exercises} has none of the folders {', '.join(c.id for c in chapters)}")

    try:
        with GraderBuild(repo, build_dir, backend, a.jobs, a.verbose) as build:
            build.configure()
            buildable = build.has_targets(chapters)
            for c in chapters:
                if c not in buildable:
                    say(f"warning: chapter {c.id} has no target {c.target(backend)} in this build; not graded")
            chapters = buildable
            if not chapters:
                raise GradeError("no chapter to grade")
            build.check_no_solutions(chapters)
            build.build_base()
            if a.prepare:
                say(f"the grader build in {build.dir} is ready")
                return 0
            if not a.class_dir:
                g = grade_folder(build, exercises, chapters, seed, a.orders, a.timeout)
                text = render(g, a.report, replay_command(a, seed, a.exercises))
                if a.out:
                    Path(a.out).write_text(text)
                    say(f"wrote {a.out}: {g.score} / {g.points}")
                else:
                    sys.stdout.write(text)
                return 0
            rows = []
            for student in students:
                say(f"grading {student.name}")
                g = grade_folder(build, student, chapters, seed, a.orders, a.timeout)
                g.student = student.name
                report = reports_dir / f"{student.name}.{EXTENSIONS[a.report]}"
                report.write_text(render(g, a.report, replay_command(a, seed, str(student))))
                rows.append(g)
                print(f"{student.name:<24} {g.score:>5} / {g.points}", flush=True)
            with open(csv_path, "w", newline="") as f:
                w = csv.writer(f)
                w.writerow(["student"] + [c.id for c in chapters] + ["total", "points", "notes"])
                for g in rows:
                    notes = "; ".join(f"{c.chapter.id}: {c.status.replace('_', ' ')}"
                                      for c in g.chapters if c.status != "graded")
                    w.writerow([g.student] + [c.score for c in g.chapters] + [g.score, g.points, notes])
            say(f"wrote {csv_path} ({len(rows)} students) and the reports in {reports_dir}")
            return 0
    except GradeError as e:
        say(f"error: {e}")
        return 3


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
