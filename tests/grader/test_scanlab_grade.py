# Unit tests of the grader's parts that need no build: reading test declarations and points,
# reading doctest's XML (whole, cut off, crashed), restarting after a hang or a crash (against a
# stand-in test program that writes doctest-style XML), the reports, the drift check, the mutant
# format and the reuse of runners built from identical files (RunnerCache, with a stand-in build,
# within a run and across runs through a RunnerStore).
# Run by ctest as grader_selftest:  python3 -m unittest -v test_scanlab_grade
import csv
import json
import os
import shlex
import stat
import sys
import tempfile
import textwrap
import threading
import time
import unittest
import unittest.mock
import xml.etree.ElementTree as ET
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(REPO / "tests" / "mutants"))
sys.path.insert(0, str(REPO / "grader"))

import drift_check  # noqa: E402
import mutant  # noqa: E402
from scanlab_grade.build import RunnerCache, stage_files  # noqa: E402
from scanlab_grade.doctest_run import GradeError  # noqa: E402
from scanlab_grade.runner_store import RunnerStore  # noqa: E402
from scanlab_grade.chapters import Chapter, declared_tests, points_of, select_chapters  # noqa: E402
from scanlab_grade.cli import parse_args, replay_command, safe_file_name  # noqa: E402
from scanlab_grade.doctest_run import DoctestXmlReader, TestResult, list_tests, run_tests, test_case_filter  # noqa: E402
from scanlab_grade.report import IN_PART, ChapterResult, Grade, csv_cell, render, write_csv  # noqa: E402
from scanlab_grade import sandbox as sandboxing  # noqa: E402


class DeclaredTests(unittest.TestCase):
    def test_names_points_comments_and_concatenation(self):
        src = textwrap.dedent(r'''
            // TEST_CASE("commented out" * doctest::description("points: 99"))
            /* TEST_CASE("also commented" * doctest::description("points: 98")) */
            TEST_CASE("plain, with a comma (and parens)" * doctest::description("points: 10")) {
              CHECK(f("TEST_CASE(\"not a test\")", 1'000'000, ')') == 1);
            }
            TEST_CASE("joined " "literals \"quoted\"" *
                      doctest::description("points: " "7")) {}
            TEST_CASE("no description") {}
            TEST_CASE("other decorators" * doctest::timeout(5) * doctest::description("points:3")) {}
        ''')
        with tempfile.TemporaryDirectory() as d:
            path = Path(d) / "t.cu"
            path.write_text(src)
            got = [(t.name, t.points) for t in declared_tests(path)]
        self.assertEqual(got, [("plain, with a comma (and parens)", 10),
                               ('joined literals "quoted"', 7),
                               ("no description", 1),
                               ("other decorators", 3)])

    def test_every_grading_source_declares_points(self):
        sources = sorted(p for p in (REPO / "tests" / "grade").glob("*.cu") if not p.name.endswith("_runner.cu"))
        self.assertTrue(sources)
        for src in sources:
            tests = declared_tests(src)
            self.assertTrue(tests, src)
            self.assertEqual(len({t.name for t in tests}), len(tests), f"{src}: duplicate names")
            self.assertTrue(all(t.name and t.points > 0 for t in tests), src)
            # One scale for every chapter, so that a student's percentages compare across chapters.
            self.assertEqual(sum(t.points for t in tests), 100, f"{src}: the points add up to 100")

    def test_points_of(self):
        self.assertEqual(points_of("points: 15"), 15)
        self.assertEqual(points_of("hard case; points:2"), 2)
        self.assertEqual(points_of(""), 1)
        self.assertEqual(points_of(None), 1)


def doctest_xml(cases, complete=True):
    """XML in the shape of doctest 2.4's XML reporter. cases: (name, points, ok, extra xml)."""
    out = ['<?xml version="1.0" encoding="UTF-8"?>', '<doctest binary="t">', "  <Options/>", "  <TestSuite>"]
    for name, points, ok, extra in cases:
        out.append(f'    <TestCase name="{name}" filename="t.cu" line="1" description="points: {points}">')
        out.append(extra)
        if ok is not None:
            out.append(f'      <OverallResultsAsserts successes="1" failures="{0 if ok else 1}" '
                       f'test_case_success="{"true" if ok else "false"}" duration="0.5"/>')
            out.append("    </TestCase>")
    if complete:
        out += ["  </TestSuite>", "</doctest>"]
    return "\n".join(out)


FAILED_EXPR = """
      <Expression success="false" type="CHECK" filename="/x/01_hillis_steele.cu" line="87">
        <Original>
          r.ok
        </Original>
        <Expanded>
          false
        </Expanded>
        <Info>
          inclusive block scan, n = 33
        </Info>
        <Info>
          first mismatch at index 32: expected 5, got 7 (1 of 33 wrong)
        </Info>
      </Expression>"""


class XmlReader(unittest.TestCase):
    def read(self, text, chunk=7):
        r = DoctestXmlReader()
        data = text.encode()
        for i in range(0, len(data), chunk):  # fed in pieces, as a running program writes it
            r.feed(data[i:i + chunk])
        return r

    def test_complete_run(self):
        r = self.read(doctest_xml([("a", 10, True, ""), ("b &amp; c", 5, False, FAILED_EXPR)]))
        self.assertEqual([(t.name, t.points, t.passed) for t in r.finished],
                         [("a", 10, True), ("b & c", 5, False)])
        self.assertIsNone(r.open)
        msg = r.finished[1].message
        self.assertIn("n = 33", msg)
        self.assertIn("first mismatch at index 32", msg)
        self.assertNotIn("CHECK(", msg)  # the checker's message, not the expression that carried it
        self.assertEqual(r.finished[1].duration, 0.5)

    def test_fail_check_message_keeps_its_hint_line(self):
        # FAIL_CHECK("...\n  hint: ...") is a Message element: its lines are kept apart, as a CHECK's are.
        failed = ('      <Message type="ERROR" filename="f.cu" line="3">\n        <Text>\n'
                  '          thread 0 received 5, but the total is 7\n  hint: the scan is right\n'
                  '        </Text>\n      </Message>')
        r = self.read(doctest_xml([("a", 2, False, failed)]))
        self.assertEqual(r.finished[0].message, "thread 0 received 5, but the total is 7 | hint: the scan is right")

    def test_fail_check_message_keeps_its_context(self):
        # A FAIL_CHECK under INFO (a runner that crashed in a case whose context holds the hint):
        # the context comes first, as for a failed CHECK, then the message.
        failed = ('      <Message type="ERROR" filename="f.cu" line="3">\n        <Text>\n'
                  '          crashed: the runner exited with status 139\n        </Text>\n'
                  '        <Info>\n          tile = 64\n        </Info>\n'
                  '        <Info>\n          n = 5\n  hint: 32-bit\n        </Info>\n      </Message>')
        r = self.read(doctest_xml([("a", 2, False, failed)]))
        self.assertEqual(r.finished[0].message,
                         "tile = 64; n = 5 | hint: 32-bit; crashed: the runner exited with status 139")

    def test_cut_off_inside_a_test_case(self):
        text = doctest_xml([("a", 10, True, ""), ("hangs", 4, None, "")], complete=False)
        r = self.read(text)
        self.assertEqual([t.name for t in r.finished], ["a"])
        self.assertEqual(r.open, ("hangs", 4))
        self.assertEqual(r.started, 2)

    def test_half_written_element_keeps_what_finished(self):
        text = doctest_xml([("a", 1, True, "")], complete=False) + '\n    <TestCase name="b" filen'
        r = self.read(text)
        self.assertEqual([t.name for t in r.finished], ["a"])

    def test_crash_reported_by_doctest(self):
        crash = '      <Exception crash="true">\n        SIGSEGV - Segmentation violation signal\n      </Exception>'
        r = self.read(doctest_xml([("a", 2, False, crash)]))
        self.assertTrue(r.finished[0].crashed)
        self.assertIn("crashed: SIGSEGV", r.finished[0].message)

    def test_skipped_test_cases_are_not_runs(self):
        text = doctest_xml([("ran", 1, True, "")]).replace(
            "  <TestSuite>", '  <TestSuite>\n    <TestCase name="skipped" filename="t.cu" line="1" skipped="true"/>')
        r = self.read(text)
        self.assertEqual([t.name for t in r.finished], ["ran"])
        self.assertEqual(r.started, 1)


# A stand-in for a doctest program: lists and runs test cases by a plan in FAKE_PLAN, writing
# doctest-style XML to --out, honouring --first like doctest does (1-based).
FAKE_PROGRAM = r'''
import os, signal, sys, time
plan = os.environ["FAKE_PLAN"].split(",")
args = dict(a.split("=", 1) for a in sys.argv[1:] if "=" in a)
if "--list-test-cases" in sys.argv:
    print("scanlab seed: 1")
    print('<?xml version="1.0"?><doctest><TestSuite>' +
          "".join(f'<TestCase name="t{i}"/>' for i in range(len(plan))) + "</TestSuite></doctest>")
    sys.exit(0)
first = int(args.get("--first", "1"))
out = open(args["--out"], "w")
def w(s):
    out.write(s + "\n"); out.flush()
w('<?xml version="1.0" encoding="UTF-8"?>\n<doctest binary="fake">\n<TestSuite>')
for i, what in enumerate(plan):
    if i + 1 < first:
        continue
    w(f'<TestCase name="t{i}" filename="f.cu" line="{i}" description="points: {i + 1}">')
    if what == "hang":
        time.sleep(3600)
    if what == "segv":
        os.kill(os.getpid(), signal.SIGSEGV)
    if what == "exit":
        print("scanlab emulator: kernel `k` failed: deadlock", file=sys.stderr); sys.stderr.flush()
        os._exit(124)
    if what == "doctest_crash":
        w('<Exception crash="true">SIGABRT - Abort (abnormal termination) signal</Exception>')
        w('<OverallResultsAsserts successes="0" failures="0" test_case_success="false"/></TestCase>')
        w("</TestSuite></doctest>")
        os.kill(os.getpid(), signal.SIGABRT)
    ok = "true" if what == "pass" else "false"
    if what == "fail":
        w('<Expression success="false" type="CHECK" filename="f.cu" line="9"><Original>x</Original>'
          '<Info>wrong answer</Info></Expression>')
    w(f'<OverallResultsAsserts successes="1" failures="0" test_case_success="{ok}"/></TestCase>')
w("</TestSuite></doctest>")
'''


class RunTests(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        d = Path(self.dir.name)
        self.program = d / "fake_test_program"
        self.program.write_text(f"#!{sys.executable}\n" + FAKE_PROGRAM)
        self.program.chmod(self.program.stat().st_mode | stat.S_IXUSR)
        self.work = d

    def tearDown(self):
        self.dir.cleanup()

    def run_plan(self, plan, timeout=2.0):
        env = dict(os.environ, FAKE_PLAN=",".join(plan))
        names = list_tests(self.program, env, self.work)
        self.assertEqual(names, [f"t{i}" for i in range(len(plan))])
        results, notes = run_tests(self.program, names, env, self.work, "fake", timeout)
        return [results[n] for n in names], notes

    def test_every_kind_of_stop_costs_only_its_own_test(self):
        plan = ["pass", "hang", "pass", "segv", "fail", "exit", "doctest_crash", "pass"]
        got, notes = self.run_plan(plan, timeout=1.0)
        self.assertEqual([t.passed for t in got], [p == "pass" for p in plan])
        self.assertIn("timed out", got[1].message)
        self.assertIn("SIGSEGV", got[3].message)
        self.assertIn("wrong answer", got[4].message)
        self.assertIn("watchdog", got[5].message)
        self.assertIn("deadlock", got[5].message)
        self.assertIn("SIGABRT", got[6].message)
        # Points come from the program's descriptions, also for a test that never finished.
        self.assertEqual([t.points for t in got], list(range(1, len(plan) + 1)))
        self.assertTrue(any("deadlock" in n for n in notes))

    def test_all_pass(self):
        got, _ = self.run_plan(["pass"] * 3)
        self.assertTrue(all(t.passed for t in got))


class Options(unittest.TestCase):
    """Every option is checked before any work: no traceback, no run lost at its end."""

    def refused(self, *argv):
        with self.assertRaises(SystemExit) as e, open(os.devnull, "w") as null:
            old, sys.stderr = sys.stderr, null
            try:
                parse_args(list(argv))
            finally:
                sys.stderr = old
        self.assertEqual(e.exception.code, 2, argv)

    def test_bad_values_are_refused(self):
        with tempfile.TemporaryDirectory() as d:
            self.refused("--timeout", "nan")
            self.refused("--timeout", "inf")
            self.refused("--timeout", "-1")
            self.refused("--build-timeout", "0")
            self.refused("--seed", "100000000000000000000000")
            self.refused("--seed", "-1")
            self.refused("--jobs", "0")
            self.refused("--orders", "sideways")
            self.refused("--out", f"{d}/missing/report.txt")
            self.refused("--class", d, "--csv", d)            # a folder, not a file
            self.refused("--class", d, "--csv", f"{d}/no/such.csv")
            self.refused("--build-dir", "/proc/x")
            self.refused("--exercises", f"{d}/nothing")
            self.refused("--test", "x", "--speed")  # a speed grade times the whole chapter

    def test_test_case_filter_escapes_what_doctest_splits_on(self):
        # doctest splits its --test-case filter at commas; a name's own commas and backslashes are escaped.
        self.assertEqual(test_case_filter(["split, stably", "a\\b", "c"]), "split\\, stably,a\\\\b,c")

    def test_good_values_pass(self):
        with tempfile.TemporaryDirectory() as d:
            a = parse_args(["--timeout", "2.5", "--seed", "42", "--jobs", "3", "--out", f"{d}/r.txt"])
            self.assertEqual((a.timeout, a.seed, a.jobs), (2.5, 42, 3))

    def test_chapters_by_commas_or_by_spaces(self):
        self.assertEqual(parse_args(["--chapters", "08,11"]).chapters, "08,11")
        self.assertEqual(parse_args(["--chapters", "08", "11", "--seed", "1"]).chapters, "08,11")
        self.assertIsNone(parse_args([]).chapters)
        self.refused("--chapters")


class Replay(unittest.TestCase):
    """A report's replay line runs the same grade again, pasted into a shell as it is."""

    def words(self, line):
        return shlex.split(line)

    def test_plain(self):
        a = parse_args(["--chapters", "08", "--seed", "5"])
        self.assertEqual(replay_command(a, 5, None), "./lab grade --chapters 08 --seed 5")

    def test_folder_and_test_names_are_quoted(self):
        with tempfile.TemporaryDirectory() as d:
            folder = Path(d) / "Ann O'Neil $HOME"
            folder.mkdir()
            a = parse_args(["--exercises", str(folder), "--chapters", "08", "--test", "split, stably (n = 3)",
                            "--test", "it's odd", "--orders", "reverse"])
            line = replay_command(a, 7, str(folder))
            self.assertEqual(self.words(line), ["./lab", "grade", "--exercises", str(folder), "--chapters", "08",
                                                "--test", "split, stably (n = 3)", "--test", "it's odd",
                                                "--orders", "reverse", "--seed", "7"])
            replayed = parse_args(self.words(line)[2:])
            self.assertEqual((replayed.exercises, replayed.tests, replayed.orders, replayed.seed),
                             (a.exercises, a.tests, a.orders, 7))


class Staging(unittest.TestCase):
    """Only the chapter's named files are taken from a student, only as regular files."""

    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.root = Path(self.dir.name)
        self.student = self.root / "student"
        (self.student / "01_x").mkdir(parents=True)
        self.chapter = Chapter("01", "x", files=("a.cuh",))

    def tearDown(self):
        self.dir.cleanup()

    def stage(self):
        return stage_files(self.chapter, self.student, self.root / "dest")

    def test_regular_file_is_copied_and_extras_named(self):
        (self.student / "01_x" / "a.cuh").write_text("int a;")
        (self.student / "01_x" / "doctest.h").write_text("#define CHECK(...)")
        notes, error = self.stage()
        self.assertIsNone(error)
        self.assertEqual((self.root / "dest" / "a.cuh").read_text(), "int a;")
        self.assertFalse((self.root / "dest" / "doctest.h").exists())
        self.assertTrue(any("doctest.h" in n for n in notes))

    def test_links_fifos_and_missing_files_are_refused(self):
        target = self.root / "secret.cuh"
        target.write_text("secret")
        (self.student / "01_x" / "a.cuh").symlink_to(target)
        self.assertIn("symbolic link", self.stage()[1])
        (self.student / "01_x" / "a.cuh").unlink()
        os.mkfifo(self.student / "01_x" / "a.cuh")
        self.assertIn("not a regular file", self.stage()[1])   # refused at once, not waited on
        (self.student / "01_x" / "a.cuh").unlink()
        self.assertIn("missing", self.stage()[1])

    def test_a_linked_chapter_folder_is_refused(self):
        (self.student / "01_x").rmdir()
        (self.student / "01_x").symlink_to(self.root)
        self.assertIn("not a folder", self.stage()[1])


class Class(unittest.TestCase):
    def test_csv_cells_cannot_be_formulas(self):
        self.assertEqual(csv_cell("=1+1"), "'=1+1")
        self.assertEqual(csv_cell("@SUM(A1)"), "'@SUM(A1)")
        self.assertEqual(csv_cell("+cmd"), "'+cmd")
        self.assertEqual(csv_cell("-3"), "-3")
        self.assertEqual(csv_cell("ann"), "ann")
        self.assertEqual(csv_cell(17), "17")

    def test_report_file_names_are_safe_and_distinct(self):
        self.assertEqual(safe_file_name("ann"), "ann")
        odd = [safe_file_name(n) for n in ("a b", "a_b", "..x", "élève", "a\nb")]
        self.assertEqual(len(set(odd)), len(odd))
        for n in odd:
            self.assertRegex(n, r"^[A-Za-z0-9_][A-Za-z0-9._-]*$")


class Reports(unittest.TestCase):
    def grade(self):
        ch0, ch1 = Chapter("00", "sequential"), Chapter("01", "hillis_steele")
        r0 = ChapterResult(ch0, tests=[
            TestResult("ok <&> \"quoted\"", 10, True, duration=0.25),
            TestResult("bad", 5, False, "got \x01 garbage <x>", ["got \x01 garbage <x>"], order="reverse")])
        r0.points = 15
        r1 = ChapterResult(ch1, status="compile_error", compile_error="x.cuh:3: error: ‘this’",
                              tests=[TestResult("t", 7, False, "not graded")])
        r1.points = 7
        return Grade("/students/ann", 42, "emu", ["default", "reverse"], [r0, r1])

    def test_json(self):
        r = json.loads(render(self.grade(), "json", "replay"))
        self.assertEqual((r["score"], r["points"], r["seed"]), (10, 22, 42))
        self.assertEqual([(c["chapter"], c["score"], c["points"], c["status"]) for c in r["chapters"]],
                         [("00", 10, 15, "graded"), ("01", 0, 7, "compile_error")])
        self.assertEqual(r["chapters"][0]["tests"][1]["order"], "reverse")

    def test_junit_is_valid_xml_and_complete(self):
        root = ET.fromstring(render(self.grade(), "junit", "replay"))
        suites = root.findall("testsuite")
        self.assertEqual([s.get("name") for s in suites], ["00_sequential", "01_hillis_steele"])
        self.assertEqual(suites[0].get("failures"), "1")
        failure = suites[0].find("testcase[@name='bad']/failure")
        self.assertIn("garbage <x>", failure.get("message"))
        self.assertEqual(suites[1].get("errors"), "1")
        self.assertIn("error", suites[1].find("testcase[@name='build']/error").text)

    def test_text(self):
        text = render(self.grade(), "text", "./lab grade --seed 42")
        self.assertIn("10 / 15", text)
        self.assertIn("FAILED (5 pts) bad [order: reverse]", text)
        self.assertIn("does not compile", text)
        self.assertIn("| x.cuh:3: error", text)
        self.assertIn("./lab grade --seed 42", text)
        self.assertRegex(text, r"total\s+10 / 22")

    def test_a_class_graded_in_part_says_so_in_its_csv(self):
        g = self.grade()
        g.student = "ann"
        g.chapters[0].notes.append(f"{IN_PART}: 2 of its 9 test cases (--test)")
        g.chapters[1].notes.append("another note")
        with tempfile.TemporaryDirectory() as d:
            write_csv(Path(d) / "class.csv", [c.chapter for c in g.chapters], [g])
            with open(Path(d) / "class.csv", newline="") as f:
                row = next(csv.DictReader(f))
        self.assertEqual(row["notes"], "01_hillis_steele: compile error; "
                                       "00_sequential: graded in part: 2 of its 9 test cases (--test)")
        self.assertEqual((row["total"], row["points"]), ("10", "22"))

    def test_select_chapters(self):
        chs = [Chapter("00", "sequential"), Chapter("01", "hillis_steele")]
        self.assertEqual(select_chapters(chs, "1"), [chs[1]])
        self.assertEqual(select_chapters(chs, "01,00,1"), [chs[1], chs[0]])
        self.assertEqual(select_chapters(chs, "sequential"), [chs[0]])
        self.assertEqual(select_chapters(chs, None), chs)
        with self.assertRaises(ValueError):
            select_chapters(chs, "7")


class Drift(unittest.TestCase):
    SOLUTION = "a\n// BEGIN TODO\nanswer\n// END TODO\nb\n"

    def compare(self, exercise, solution=SOLUTION):
        with tempfile.TemporaryDirectory() as d:
            e, s = Path(d) / "e", Path(d) / "s"
            e.write_text(exercise)
            s.write_text(solution)
            return drift_check.compare(e, s)

    def test_todo_regions_may_differ(self):
        self.assertEqual(self.compare("a\n// BEGIN TODO\n// TODO(student): write it\n(void)x;\n// END TODO\nb\n"), [])

    def test_drift_outside_is_found(self):
        problems = self.compare("a\n// BEGIN TODO\n// END TODO\nB\n")
        self.assertEqual(len(problems), 1)
        self.assertIn(":4 differs", problems[0])

    def test_comments_and_blank_lines_may_differ(self):
        self.assertEqual(self.compare("// teaching note\na\n\n// BEGIN TODO\n// END TODO\n  // hint\nb\n"), [])

    def test_snippet_markers_must_match(self):
        solution = "// --8<-- [start:x]\na\n// BEGIN TODO\n// END TODO\nb\n// --8<-- [end:x]\n"
        self.assertEqual(self.compare(solution, solution), [])
        self.assertTrue(self.compare("a\n// BEGIN TODO\n// END TODO\nb\n// --8<-- [end:x]\n", solution))

    def test_trailing_comments_are_code(self):
        self.assertTrue(self.compare("a  // note\n// BEGIN TODO\n// END TODO\nb\n"))

    def test_missing_or_extra_lines_are_found(self):
        self.assertTrue(self.compare("a\n// BEGIN TODO\n// END TODO\nb\nextra\n"))
        self.assertTrue(self.compare("a\n// BEGIN TODO\n// END TODO\n"))

    def test_markers_must_pair(self):
        self.assertTrue(self.compare("a\n// BEGIN TODO\nb\n"))
        self.assertTrue(self.compare("a\n// END TODO\nb\n"))
        self.assertTrue(self.compare("a\n// BEGIN TODO\n// BEGIN TODO\n// END TODO\nb\n"))

    def test_region_count_must_match(self):
        self.assertTrue(self.compare("a\nb\n"))

    def test_the_repo_has_no_drift(self):
        self.assertEqual(drift_check.check_tree(REPO / "exercises", REPO / "solutions"), [])


class Mutants(unittest.TestCase):
    def write(self, text):
        d = Path(self.tmp.name) / "07_example"
        d.mkdir(exist_ok=True)
        p = d / "m.mutant"
        p.write_text(textwrap.dedent(text))
        return p

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()

    def tearDown(self):
        self.tmp.cleanup()

    def test_parse_and_apply_once(self):
        m = mutant.parse(self.write("""\
            # A comment.
            file: x.cuh
            orders: default
            @@ find
              y = 1;
            @@ replace
              y = 2;
            @@ end
            @@ find
            z
            @@ replace
            @@ end
            """))
        self.assertEqual((m.chapter, m.file, m.orders, m.about), ("07_example", "x.cuh", "default", "A comment."))
        self.assertEqual(mutant.mutate(m, "a\n  y = 1;\nz\nb\n"), "a\n  y = 2;\nb\n")

    def test_find_must_match_exactly_once(self):
        m = mutant.parse(self.write("file: x\n@@ find\nq\n@@ replace\nr\n@@ end\n"))
        with self.assertRaisesRegex(mutant.MutantError, "nowhere"):
            mutant.mutate(m, "a\n")
        with self.assertRaisesRegex(mutant.MutantError, "2 times"):
            mutant.mutate(m, "q\nq\n")

    def test_malformed_files_are_errors(self):
        for text in ("@@ find\na\n@@ replace\nb\n@@ end\n",          # no file:
                     "file: x\n",                                    # no edit
                     "file: x\n@@ find\na\n@@ replace\nb\n",         # not closed
                     "file: x\n@@ find\na\n@@ replace\na\n@@ end\n",  # changes nothing
                     "file: x\nbogus line\n"):
            with self.assertRaises(mutant.MutantError, msg=text):
                mutant.parse(self.write(text))

    def test_every_mutant_in_the_suite_applies(self):
        paths = mutant.all_mutants()
        self.assertGreaterEqual(len(paths), 10)
        for path in paths:
            m = mutant.parse(path)
            original = (REPO / "solutions" / m.chapter / m.file).read_text()
            self.assertNotEqual(mutant.mutate(m, original), original, path)


class StandInRunnerBuild:
    """A stand-in for the grader's build and for compiling a student's runner."""

    class FakeBuild:
        verbose = False

        def __init__(self, shared: Path):
            self.shared = shared  # stands for the headers, libraries and tools a build reads

        def runner_command(self, chapter, src, out):
            return ["emucc", f"{chapter.id}_runner.cu", "-I", str(src), "-o", str(out)]

        def compiler_version(self):
            return b"c++ 12"

        def read_only_paths(self, chapter):
            return [self.shared]

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.root = Path(self.tmp.name)
        (self.root / "shared").mkdir()
        (self.root / "shared" / "runner.hpp").write_text("// the lab's header\n")
        self.build = self.FakeBuild(self.root / "shared")
        self.chapter = Chapter("07", "decoupled_lookback", files=("decoupled_lookback.cuh",))
        self.compiles = []

    def tearDown(self):
        self.tmp.cleanup()

    def student(self, name: str, text: str) -> Path:
        src = self.root / name / "src"
        src.mkdir(parents=True)
        (src / "decoupled_lookback.cuh").write_text(text)
        return src

    def compiler(self, src: Path, ok: bool = True, gate: threading.Event = None):
        def compile_here():
            self.compiles.append(src)
            if gate is not None:
                gate.wait(10)
            if not ok:
                return None, f"{src}: error"
            out = src.parent / "out"
            out.mkdir()
            (out / "runner").write_text(f"built from {src}")
            return out / "runner", ""
        return compile_here


class RunnerReuse(StandInRunnerBuild, unittest.TestCase):
    """RunnerCache: one build per distinct input in a grading run, kept in the grader's folder."""

    def test_identical_files_share_one_build_kept_outside_the_students_folders(self):
        cache = RunnerCache(self.build, self.root / "runners")
        a, b = self.student("a", "same\n"), self.student("b", "same\n")
        ra = cache.get(self.chapter, a, self.compiler(a))
        rb = cache.get(self.chapter, b, self.compiler(b))
        self.assertEqual(self.compiles, [a])
        self.assertEqual(ra, rb)
        binary, message, built_from = rb
        self.assertEqual((message, built_from), ("", a))
        self.assertEqual(binary.parent.parent, self.root / "runners")  # the grader's copy
        self.assertEqual(binary.read_text(), f"built from {a}")
        (a.parent / "out" / "runner").write_text("changed by the student's run")
        self.assertEqual(binary.read_text(), f"built from {a}")

    def test_any_other_byte_or_shared_input_builds_again(self):
        cache = RunnerCache(self.build, self.root / "runners")
        a, b = self.student("a", "same\n"), self.student("b", "same \n")
        cache.get(self.chapter, a, self.compiler(a))
        cache.get(self.chapter, b, self.compiler(b))
        self.assertEqual(self.compiles, [a, b])
        key = cache.key(self.chapter, a)
        (self.root / "shared" / "runner.hpp").write_text("// another header\n")
        self.assertNotEqual(RunnerCache(self.build, self.root / "runners2").key(self.chapter, a), key)

    def test_a_failed_build_is_not_shared(self):
        cache = RunnerCache(self.build, self.root / "runners")
        a, b = self.student("a", "broken\n"), self.student("b", "broken\n")
        self.assertEqual(cache.get(self.chapter, a, self.compiler(a, ok=False)), (None, f"{a}: error", None))
        self.assertEqual(cache.get(self.chapter, b, self.compiler(b, ok=False)), (None, f"{b}: error", None))
        self.assertEqual(self.compiles, [a, b])

    def test_a_second_student_waits_for_the_build_under_way(self):
        cache = RunnerCache(self.build, self.root / "runners")
        a, b = self.student("a", "same\n"), self.student("b", "same\n")
        gate = threading.Event()
        results = {}

        def grade(name: str, src: Path, gate: threading.Event = None) -> threading.Thread:
            def run():
                results[name] = cache.get(self.chapter, src, self.compiler(src, gate=gate))
            thread = threading.Thread(target=run)
            thread.start()
            return thread

        first = grade("a", a, gate)  # its build holds on until the gate opens
        while not self.compiles:
            time.sleep(0.01)
        second = grade("b", b)
        time.sleep(0.1)
        self.assertNotIn("b", results)  # waiting, not building
        gate.set()
        first.join(10)
        second.join(10)
        self.assertEqual(self.compiles, [a])
        self.assertEqual(results["a"], results["b"])


class RunnerKeptAcrossRuns(StandInRunnerBuild, unittest.TestCase):
    """RunnerStore (--runner-cache): a later grading run given the same files copies the runner an
    earlier one built, unless a system file its build read changed; runs that share the store at
    once build it once; the store stays under its size and refuses a folder others may write."""

    def setUp(self):
        super().setUp()
        self.header = self.root / "system" / "vector"  # a system header, outside the digest
        self.header.parent.mkdir()
        self.header.write_text("// the C++ library\n")

    def compiler(self, src: Path, ok: bool = True, gate: threading.Event = None):
        build = super().compiler(src, ok, gate)

        def compile_here():
            binary, message = build()
            if binary is not None:  # as scanlab-emucc's -MD writes it
                (binary.parent / "deps.d").write_text(f"runner: {src}/decoupled_lookback.cuh \\\n {self.header}\n")
            return binary, message
        return compile_here

    def run_(self, store: RunnerStore, name: str, text: str = "same\n"):
        """One grading run of one student: its own RunnerCache folder, the shared store."""
        src = self.student(name, text)
        cache = RunnerCache(self.build, self.root / f"runners-{name}", store)
        return src, cache.get(self.chapter, src, self.compiler(src))

    def test_a_later_run_copies_the_runner_an_earlier_run_built(self):
        store = RunnerStore(self.root / "store")
        a, (binary_a, _, _) = self.run_(store, "a")
        b, (binary_b, message, built_from) = self.run_(RunnerStore(self.root / "store"), "b")
        self.assertEqual(self.compiles, [a])
        self.assertEqual((message, built_from), ("", a))  # messages map a's paths to b's files
        self.assertEqual(binary_b.parent.parent, self.root / "runners-b")  # b's own copy, not the store's
        self.assertEqual(binary_b.read_text(), f"built from {a}")
        c, _ = self.run_(store, "c", "other\n")
        self.assertEqual(self.compiles, [a, c])

    def test_a_changed_system_header_builds_again(self):
        store = RunnerStore(self.root / "store")
        a, _ = self.run_(store, "a")
        self.header.write_text("// the C++ library, upgraded\n")
        b, (binary, _, built_from) = self.run_(store, "b")
        self.assertEqual(self.compiles, [a, b])
        self.assertEqual((binary.read_text(), built_from), (f"built from {b}", b))

    def test_a_damaged_copy_is_built_again(self):
        store = RunnerStore(self.root / "store")
        a, _ = self.run_(store, "a")
        stored = next((self.root / "store").glob("*/runner.z"))
        stored.write_bytes(stored.read_bytes()[:-3])  # cut short
        b, (binary, message, built_from) = self.run_(store, "b")
        self.assertEqual(self.compiles, [a, b])
        self.assertEqual((binary.read_text(), message, built_from), (f"built from {b}", "", b))
        c, (binary, _, built_from) = self.run_(store, "c")  # the new build was kept
        self.assertEqual((self.compiles, built_from), ([a, b], b))

    def test_a_copy_that_cannot_be_written_is_left_out(self):
        store = RunnerStore(self.root / "store")
        with unittest.mock.patch("scanlab_grade.runner_store.os.rename", side_effect=OSError(28, "No space")):
            a, (binary, message, _) = self.run_(store, "a")
        self.assertEqual((binary.read_text(), message), (f"built from {a}", ""))
        store_files = list((self.root / "store").glob("*/runner.z")) + list((self.root / "store" / "new").iterdir())
        self.assertEqual(store_files, [])

    def test_a_failed_build_is_not_kept(self):
        store = RunnerStore(self.root / "store")
        for name in ("a", "b"):
            src = self.student(name, "broken\n")
            cache = RunnerCache(self.build, self.root / f"runners-{name}", store)
            self.assertEqual(cache.get(self.chapter, src, self.compiler(src, ok=False)), (None, f"{src}: error", None))
        self.assertEqual(len(self.compiles), 2)

    def test_runs_at_once_build_once(self):
        gate, results = threading.Event(), {}
        a, b = self.student("a", "same\n"), self.student("b", "same\n")

        def grade(name: str, src: Path, gate: threading.Event = None) -> threading.Thread:
            cache = RunnerCache(self.build, self.root / f"runners-{name}", RunnerStore(self.root / "store"))
            def run():
                results[name] = cache.get(self.chapter, src, self.compiler(src, gate=gate))
            thread = threading.Thread(target=run)
            thread.start()
            return thread

        first = grade("a", a, gate)
        while not self.compiles:
            time.sleep(0.01)
        second = grade("b", b)
        time.sleep(0.1)
        self.assertNotIn("b", results)  # waiting on the store's lock, not building
        gate.set()
        first.join(10)
        second.join(10)
        self.assertEqual(self.compiles, [a])
        self.assertEqual(results["b"][1:], ("", a))

    def test_the_runners_used_longest_ago_are_evicted_first(self):
        store = RunnerStore(self.root / "store")
        self.run_(store, "a", "a\n")
        entry = next(p for p in (self.root / "store").iterdir() if len(p.name) == 64)
        store.max_bytes = 2 * sum(f.stat().st_size for f in entry.iterdir()) + 16  # room for two
        self.run_(store, "b", "b\n")
        self.run_(store, "a2", "a\n")  # a is used again: b is now the one used longest ago
        self.run_(store, "c", "c\n")  # a third: b goes
        self.run_(store, "a3", "a\n")
        self.run_(store, "c2", "c\n")
        self.run_(store, "b2", "b\n")  # built again
        self.assertEqual([s.parent.name for s in self.compiles], ["a", "b", "c", "b2"])

    def test_a_folder_others_may_write_is_refused(self):
        folder = self.root / "open"
        folder.mkdir()
        folder.chmod(0o777)
        with self.assertRaisesRegex(GradeError, "this user alone"):
            RunnerStore(folder)
        (self.root / "file").write_text("")
        with self.assertRaisesRegex(GradeError, "not a folder"):
            RunnerStore(self.root / "file")


class SandboxUsers(unittest.TestCase):
    """As root, every sandbox runs as a user of its own: the process limit (RLIMIT_NPROC) counts a
    user's processes machine-wide, so a shared user would let one submission's forks make another
    student's runner, graded beside it, fail to start."""

    @unittest.skipUnless(os.geteuid() == 0, "the grader changes users only as root")
    def test_two_sandboxes_get_different_users_and_each_runs_as_its_folders_owner(self):
        with tempfile.TemporaryDirectory() as d:
            a, b, b_out = Path(d, "a"), Path(d, "b"), Path(d, "b", "out")
            a.mkdir()
            b_out.mkdir(parents=True)
            sandboxing.make_writable_for_sandbox(a)
            sandboxing.make_writable_for_sandbox(b, b_out)
            ua, ub = a.stat().st_uid, b.stat().st_uid
            self.assertNotEqual(ua, ub)
            self.assertEqual(b_out.stat().st_uid, ub)
            self.assertGreaterEqual(min(ua, ub), sandboxing.SANDBOX_UID_BASE)
            self.assertEqual(sandboxing.sandbox_user([a]), ua)
            self.assertEqual(sandboxing.sandbox_user([b]), ub)
            self.assertEqual(sandboxing.sandbox_user([]), sandboxing.NOBODY)
            argv = sandboxing.Sandbox(True).wrap(["true"], read_only=[], writable=[b], chdir=b, env={},
                                                 limits=sandboxing.Limits())
            self.assertIn(f"--reuid={ub}", argv)

    def test_a_folder_others_may_not_pass_through_is_named(self):
        with tempfile.TemporaryDirectory() as d:  # made with mode 0700
            closed = Path(d).resolve()
            inner = closed / "clone" / "build"
            inner.mkdir(parents=True)
            self.assertEqual(sandboxing.first_closed_folder([Path("/usr"), inner]), closed)
            self.assertEqual(sandboxing.first_closed_folder([inner / "not-yet"]), closed)
            closed.chmod(0o711)
            self.assertIsNone(sandboxing.first_closed_folder([Path("/usr"), inner, inner / "not-yet"]))
            (closed / "clone").chmod(0o700)
            self.assertEqual(sandboxing.first_closed_folder([inner]), closed / "clone")

    @unittest.skipUnless(os.geteuid() == 0, "the grader changes users only as root")
    def test_root_without_cap_sys_admin_refuses_a_closed_folder(self):
        """Root's unprivileged sandbox (no CAP_SYS_ADMIN: bubblewrap in a user namespace, as the
        sandbox's user) cannot reach a checkout under a folder made by `mktemp -d`: every
        submission would get a compile error. require() refuses first and says what to do. (Root's
        privileged sandbox reaches it: tests/grader/closed_folder.py.)"""
        unprivileged = sandboxing.Sandbox(True, "", False, privileged=False)
        with tempfile.TemporaryDirectory() as d, \
                unittest.mock.patch.object(sandboxing, "probe", return_value=unprivileged):
            with self.assertRaises(sandboxing.Refused) as refused:
                sandboxing.require(False, reach=[Path(d, "build")])
            self.assertIn(f"chmod o+x {Path(d).resolve()}", str(refused.exception))
            Path(d).chmod(0o711)
            self.assertIs(sandboxing.require(False, reach=[Path(d, "build")]), unprivileged)


if __name__ == "__main__":
    unittest.main()
