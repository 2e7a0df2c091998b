"""Scores and reports: the one result model of a grading run (Grade, ChapterResult, TestResult)
and every format it is written in: text for a person, JSON for scripts, JUnit for CI dashboards, a
class's CSV (every cell escaped against spreadsheet formula injection), and the results files of the
platforms courses grade on (Gradescope's and PrairieLearn's results.json, the Markdown summary of a
GitHub Classroom run). Every format renders the model; none reads doctest's output itself."""

import csv
import dataclasses
import datetime
import html
import io
import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Callable, List, Optional

from scanlab_grade.chapters import Chapter, declared_tests
from scanlab_grade.doctest_run import TestResult

# The note of a chapter graded on some of its test cases (--test); a class's CSV repeats it.
IN_PART = "graded in part"


@dataclasses.dataclass
class ChapterResult:
    chapter: Chapter
    status: str = "graded"       # graded | compile_error | missing | not_run
    tests: List[TestResult] = dataclasses.field(default_factory=list)
    points: int = 0
    compile_error: str = ""
    notes: List[str] = dataclasses.field(default_factory=list)
    # With --speed, where the chapter has a speed rubric: a speed.SpeedResult, reported beside the
    # points and never added to them.
    speed: object = None

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
    # About the submission as a whole, for the student: how it was read (a platform's upload), or
    # why it could not be graded.
    notes: List[str] = dataclasses.field(default_factory=list)
    gradable: bool = True        # False: the submission could not be graded at all (see notes)

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
        if c.speed is not None:
            print(f"      {c.speed.words()}", file=out)
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
        "gradable": g.gradable,
        "notes": g.notes,
        "chapters": [{
            "chapter": c.chapter.nn,
            "slug": c.chapter.slug,
            "status": c.status,
            "score": c.score,
            "points": c.points,
            "compile_error": c.compile_error or None,
            "notes": c.notes,
            **({"speed": c.speed.to_json()} if c.speed is not None else {}),
            "tests": [{
                "name": t.name,
                "points": t.points,
                "score": t.score,
                "passed": t.passed,
                "message": t.message or None,
                "failures": t.details,
                "order": t.order or None,
                "crashed": t.crashed,
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


# ------------------------------------------------------------------------------------------------
# The model read back from a JSON report, and the model of a submission that was never graded. A
# platform's adapter runs the grader as a program of its own (so that nothing a grade does, not even
# a crash of the grader, keeps it from writing the platform's results file) and reads its JSON
# report back into the model here.


class ReportError(Exception):
    pass


def grade_from_json(data: dict, chapters: List[Chapter]) -> Grade:
    """The Grade a JSON report (report_json) was written from; chapters: the lab's chapter list,
    for the chapters' titles and files."""
    known = {c.nn: c for c in chapters}
    try:
        results = []
        for c in data["chapters"]:
            r = ChapterResult(known.get(c["chapter"]) or Chapter(c["chapter"], c["slug"]),
                              status=c["status"], points=int(c["points"]),
                              compile_error=c.get("compile_error") or "", notes=list(c.get("notes") or []))
            r.tests = [TestResult(t["name"], int(t["points"]), bool(t["passed"]), t.get("message") or "",
                                  list(t.get("failures") or []), float(t.get("duration") or 0.0),
                                  bool(t.get("crashed")), t.get("order") or "") for t in c["tests"]]
            results.append(r)
        return Grade(data["exercises"], int(data["seed"]), data["backend"], list(data["orders"]), results,
                     student=data.get("student") or "", sandbox=data.get("sandbox", "on"),
                     notes=list(data.get("notes") or []), gradable=bool(data.get("gradable", True)))
    except (KeyError, TypeError, ValueError, AttributeError) as e:
        raise ReportError(f"not a scanlab JSON report ({type(e).__name__}: {e})") from None


def not_graded(repo: Path, chapters: List[Chapter], exercises: str, why: str, status: str = "not_run") -> Grade:
    """Zero for chapters that were never graded (a submission that could not be read, a grader
    that stopped): every test case each chapter declares, failed, and `why` for the student."""
    results = []
    for ch in chapters:
        r = ChapterResult(ch, status=status)
        r.tests = [TestResult(t.name, t.points, False, "not graded (the summary says why)")
                   for t in declared_tests(repo / "tests" / "grade" / f"{ch.id}.cu")]
        r.points = sum(t.points for t in r.tests)
        results.append(r)
    return Grade(exercises, 0, "emu", [], results, notes=[why], gradable=False)


def relabel(g: Grade, change: Callable[[str], str]) -> None:
    """Applies `change` to every message of the grade (to show a student's files by the names
    they handed in, not by where a platform's adapter put them)."""
    g.notes = [change(n) for n in g.notes]
    for c in g.chapters:
        c.compile_error = change(c.compile_error)
        c.notes = [change(n) for n in c.notes]
        for t in c.tests:
            t.message = change(t.message)
            t.details = [change(d) for d in t.details]


# ------------------------------------------------------------------------------------------------
# The platforms' formats. What a student reads there is what the text report shows: the first wrong
# element, the hint and the emulator's findings, each on a line of its own.

OUTPUT_LIMIT = 8000  # characters of one test's output (PrairieLearn takes 1 MB in all)


def _clip(text: str, limit: int = OUTPUT_LIMIT) -> str:
    if len(text) <= limit:
        return text
    return text[:limit] + f"\n... ({len(text) - limit} more characters not shown)"


def test_output(c: ChapterResult, t: TestResult) -> str:
    """One test case in words: "passed", or its first failure (each hint or finding on a line of
    its own), the emulator order it failed under, and its other failures."""
    if t.passed:
        return "passed"
    if c.status != "graded":
        return t.message
    lines = [part for part in t.message.split(" | ") if part]
    if t.order and t.order != "default":
        lines.append(f"(failed under the emulator's '{t.order}' order of threads and blocks)")
    others = t.details[1:]
    if others:
        lines += ["", f"{len(others)} more failure{'s' if len(others) > 1 else ''}:"]
        lines += ["- " + d for d in others[:20]]
    return "\n".join(lines)


def summary_text(g: Grade) -> str:
    """The submission at a glance: how it was read, each chapter's score and why a chapter was not
    graded (the compiler's first error), and the total."""
    lines = list(g.notes)
    if lines:
        lines.append("")
    for c in g.chapters:
        lines.append(f"{c.chapter.id:<28} {c.score:>4} / {c.points:<4}  {_status_words(c)}")
        if c.status != "graded" and c.compile_error:
            lines += ["    " + line for line in c.compile_error.splitlines()]
        lines += [f"    note: {n}" for n in c.notes]
    lines.append(f"{'total':<28} {g.score:>4} / {g.points}")
    if g.sandbox != "on":
        lines.append(f"sandbox: {g.sandbox}")
    return "\n".join(lines)


def report_gradescope(g: Grade, execution_time: Optional[float] = None) -> dict:
    """Gradescope's results.json (its autograder specification): one test per grading test case
    with its score, max_score, status and output, and the summary as the submission's output.
    stdout (the grader's log, with the platform's paths) is for the instructor only."""
    tests = []
    for c in g.chapters:
        for k, t in enumerate(c.tests, 1):
            tests.append({"name": f"{c.chapter.id}: {t.name}", "number": f"{c.chapter.nn}.{k}",
                          "score": t.score, "max_score": t.points,
                          "status": "passed" if t.passed else "failed",
                          "output": _clip(test_output(c, t)), "visibility": "visible"})
    if execution_time is None:
        execution_time = sum(t.duration for c in g.chapters for t in c.tests)
    return {"score": g.score, "execution_time": max(0, int(round(execution_time))),
            "output": _clip(summary_text(g), 4 * OUTPUT_LIMIT), "visibility": "visible",
            "stdout_visibility": "hidden", "tests": tests}


def report_prairielearn(g: Grade) -> dict:
    """PrairieLearn's results.json (its external grading documentation): score in [0, 1], and the
    tests that <pl-external-grader-results> shows. A submission that could not be graded at all is
    not gradable: PrairieLearn then counts no attempt, gives no points and shows format_errors."""
    score = min(1.0, max(0.0, g.score / g.points)) if g.points else 0.0
    first = g.notes[0] if (g.notes and not g.gradable) else f"{g.score} of {g.points} points"
    out = {"gradable": g.gradable, "score": round(score, 6), "message": _clip(first, 2000),
           "output": _clip(summary_text(g), 4 * OUTPUT_LIMIT), "tests": []}
    if not g.gradable:
        out["format_errors"] = [_clip(n, 2000) for n in g.notes] or ["the submission could not be graded"]
    for c in g.chapters:
        for t in c.tests:
            out["tests"].append({"name": f"{c.chapter.id}: {t.name}", "description": c.chapter.title or c.chapter.id,
                                 "points": t.score, "max_points": t.points,
                                 "message": "passed" if t.passed else _clip(t.message.split(" | ")[0], 2000),
                                 "output": _clip(test_output(c, t))})
    return out


def _md_cell(text: str) -> str:
    return html.escape(" ".join(str(text).split())).replace("|", "&#124;")


def _md_code(text: str) -> str:
    """Text in a fenced block that no backtick run in it can close."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}text\n{text}\n{fence}"


def report_markdown(grades: List[Grade]) -> str:
    """A GitHub job summary (Markdown) of one or more grades: the score table, then what the text
    report says about each test case that failed (the first wrong element and the hints)."""
    chapters = [c for g in grades for c in g.chapters]
    score, points = sum(c.score for c in chapters), sum(c.points for c in chapters)
    out = ["## scanlab grade", "", f"**{score} / {points} points**", ""]
    for g in grades:
        out += [f"> {_md_cell(n)}" for n in g.notes]
    out += ["", "| chapter | score | points | result |", "|---|---:|---:|---|"]
    for c in chapters:
        out.append(f"| {_md_cell(c.chapter.id)} | {c.score} | {c.points} | {_md_cell(_status_words(c).rstrip(':'))} |")
    for c in chapters:
        failed = [t for t in c.tests if not t.passed]
        if c.status != "graded":
            out += ["", f"### {_md_cell(c.chapter.id)}: {_md_cell(_status_words(c).rstrip(':'))}"]
            if c.compile_error:
                out += ["", _md_code(c.compile_error)]
        elif failed:
            out += ["", f"### {_md_cell(c.chapter.id)}: {len(failed)} test{'s' if len(failed) > 1 else ''} failed"]
            for t in failed:
                out += ["", f"- **{_md_cell(t.name)}** ({t.points} pts)", "", _md_code(test_output(c, t))]
        out += ["", *[f"- note: {_md_cell(n)}" for n in c.notes]] if c.notes else []
    return "\n".join(out) + "\n"


def render(g: Grade, kind: str, replay: str) -> str:
    if kind == "json":
        return json.dumps(report_json(g), indent=2) + "\n"
    if kind == "junit":
        return report_junit(g)
    if kind == "gradescope":
        return json.dumps(report_gradescope(g), indent=2) + "\n"
    if kind == "prairielearn":
        return json.dumps(report_prairielearn(g), indent=2) + "\n"
    if kind == "markdown":
        return report_markdown([g])
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
        # With --speed: the speed points, beside the others and not in the total (last, so that the
        # columns before them are where they always are).
        speed = any(c.speed is not None for g in rows for c in g.chapters)
        w.writerow(["student"] + [c.id for c in chapters] + ["total", "points", "sandbox", "notes"]
                   + (["speed", "speed_points"] if speed else []))
        for g in rows:
            notes = "; ".join([f"{c.chapter.id}: {c.status.replace('_', ' ')}"
                               + (f" ({c.compile_error.splitlines()[0]})"
                                  if c.compile_error and c.status != "compile_error" else "")
                               for c in g.chapters if c.status != "graded"]
                              + [f"{c.chapter.id}: {n}" for c in g.chapters for n in c.notes
                                 if n.startswith(IN_PART)])
            w.writerow([csv_cell(x) for x in
                        [g.student] + [c.score for c in g.chapters] + [g.score, g.points, g.sandbox, notes]
                        + ([sum(c.speed.points for c in g.chapters if c.speed is not None),
                            sum(c.speed.max_points for c in g.chapters if c.speed is not None)] if speed else [])])
