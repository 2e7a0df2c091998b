"""Scores and reports: text for a person, JSON for scripts, JUnit for CI dashboards, and a class's
CSV (every cell escaped against spreadsheet formula injection)."""

import csv
import dataclasses
import datetime
import io
import json
import re
import xml.etree.ElementTree as ET
from typing import List

from scanlab_grade.chapters import Chapter
from scanlab_grade.doctest_run import TestResult

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


@dataclasses.dataclass
class Grade:
    exercises: str
    seed: int
    backend: str
    orders: List[str]
    chapters: List[ChapterResult]
    student: str = ""
    sandbox: str = "on"          # "on", or why it was off

    @property
    def score(self) -> int:
        return sum(c.score for c in self.chapters)

    @property
    def points(self) -> int:
        return sum(c.points for c in self.chapters)


_XML_BAD = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


def _xml_text(s: str) -> str:
    return _XML_BAD.sub("?", s)


def report_text(g: Grade, replay: str) -> str:
    out = io.StringIO()
    where = "GPU" if g.backend == "gpu" else f"emulator, orders {', '.join(g.orders)}"
    print(f"scanlab grade: {g.exercises}", file=out)
    print(f"  on the {where}; seed {g.seed} (replay: {replay})", file=out)
    print(f"  sandbox: {g.sandbox}", file=out)
    print("", file=out)
    for c in g.chapters:
        print(f"  {c.chapter.id:<28} {c.score:>4} / {c.points:<4}  {_status_words(c)}", file=out)
        if c.status == "graded":
            for t in c.tests:
                if not t.passed:
                    when = f" [order: {t.order}]" if t.order and t.order != "default" else ""
                    print(f"      FAILED ({t.points} pts) {t.name}{when}", file=out)
                    for part in t.message.split(" | "):  # each hint or finding on a line of its own
                        print(f"          {part}", file=out)
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
        "sandbox": g.sandbox,
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
                     ("exercises", g.exercises), ("sandbox", g.sandbox)):
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


def csv_cell(value) -> str:
    """A CSV cell a spreadsheet shows as text: a leading =, +, -, @, tab or carriage return would
    make it a formula (OWASP's CSV injection advice: prefix a single quote)."""
    text = str(value)
    if text and text[0] in "=+-@\t\r" and not re.fullmatch(r"-?[0-9]+", text):
        return "'" + text
    return text


def write_csv(path, chapters: List[Chapter], rows: List[Grade]) -> None:
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["student"] + [c.id for c in chapters] + ["total", "points", "sandbox", "notes"])
        for g in rows:
            notes = "; ".join(f"{c.chapter.id}: {c.status.replace('_', ' ')}"
                              + (f" ({c.compile_error.splitlines()[0]})"
                                 if c.compile_error and c.status != "compile_error" else "")
                              for c in g.chapters if c.status != "graded")
            w.writerow([csv_cell(x) for x in
                        [g.student] + [c.score for c in g.chapters] + [g.score, g.points, g.sandbox, notes]])
