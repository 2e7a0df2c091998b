"""Running a checker: doctest's XML reporter read as it is written, one test case at a time, so a
checker that is stopped (a time limit) still yields the test cases it finished; a stopped checker
is started again after the test case it was in."""

import dataclasses
import os
import re
import signal
import subprocess
import time
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Dict, List, Optional, Tuple

from scanlab_grade.chapters import points_of
from scanlab_grade.findings import dedup, dedup_message


class GradeError(Exception):
    """A problem of the grader or its set-up (not of the student's code): exit status 3."""


def _squash(text: Optional[str]) -> str:
    return " ".join((text or "").split())


def _lines(text: Optional[str]) -> str:
    """A checker's message on one line, its own lines kept apart by " | " (a hint or an emulator
    finding starts a line of its own)."""
    return " | ".join(s for s in (_squash(line) for line in (text or "").splitlines()) if s)


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
    """One failed check in words: its message (what the checker said) when it has one, else the
    expression and where it is."""
    infos = [_lines(i.text) for i in e.findall("Info") if _lines(i.text)]
    exc = e.find("Exception")
    if exc is not None:
        return "; ".join(infos + [f"threw: {_squash(exc.text)}"])
    if infos:
        return "; ".join(infos)
    where = f"{Path(e.get('filename', '?')).name}:{e.get('line', '?')}"
    what = f"{e.get('type', 'CHECK')}({_squash(e.findtext('Original'))}) is false"
    expanded = _squash(e.findtext("Expanded"))
    if expanded and expanded not in ("false", _squash(e.findtext("Original"))):
        what += f" ({expanded})"
    return f"{what} at {where}"


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
                # FAIL_CHECK: a hint keeps its own line; the INFO contexts in force come first, as
                # for a failed CHECK (they say which case failed, and may carry its hint).
                infos = [_lines(i.text) for i in child.findall("Info") if _lines(i.text)]
                details.append("; ".join(infos + [_lines(child.findtext("Text"))]))
        if not passed and not details:
            details.append("failed")
        details = dedup(details)  # each emulator finding once per test, with its count
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


def _command(program) -> List[str]:
    """A program to run: a path, or a command (a sandbox in front of the program)."""
    return [str(x) for x in program] if isinstance(program, (list, tuple)) else [str(program)]


def list_tests(binary, env: Dict[str, str], cwd: Path) -> Optional[List[str]]:
    """Test case names in run order (doctest --list-test-cases -r=xml), or None if that fails."""
    try:
        p = subprocess.run(_command(binary) + ["--list-test-cases", "-r=xml"], env=env, cwd=cwd,
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


def test_case_filter(names: List[str]) -> str:
    """doctest's --test-case filter for exactly these names: a comma separates them, so a comma
    (or a backslash) in a name is escaped with a backslash."""
    return ",".join(re.sub(r"([,\\])", r"\\\1", n) for n in names)


def run_tests(binary, names: List[str], env: Dict[str, str], workdir: Path, label: str,
              timeout: float, only: bool = False) -> Tuple[Dict[str, TestResult], List[str]]:
    """Runs every test case of `binary` (whose cases are `names`, in order), restarting after the
    one that crashed, hung or stopped the program, so one bad test costs only its own points.
    With `only`, `names` is a part of the cases and only those run. Returns results by name and
    the emulator's messages (deadlock reports and the like)."""
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
        cmd = _command(binary) + ["-r=xml", f"--out={xml_path}", "--duration=true", "--no-skipped-summary=true",
               f"--first={first}"]
        if only:
            cmd.append(f"--test-case={test_case_filter(names)}")
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
                runner = Path(_command(binary)[-1]).name
                raise GradeError(f"{runner}: expected test case '{names[index]}', got '{r.name}'")
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
            tail = [line for line in _tail_lines(log_path, 3) if not line.startswith("scanlab seed:")][-2:]
        if tail:
            reason += " | " + " | ".join(tail)
        reason = dedup_message(reason)
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


