# Unit tests of lab grade --slurm's parts that need no cluster: the options, the grade read back
# from a task's JSON (a round trip through report.report_json), Slurm's task lists, and what a
# student's state is from the markers and from what Slurm says. Run by ctest as grader_slurm_unit:
#   python3 -m unittest -v test_slurm
import json
import sys
import tempfile
import unittest
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
sys.path.insert(0, str(REPO / "grader"))

from scanlab_grade import slurm  # noqa: E402
from scanlab_grade.chapters import Chapter  # noqa: E402
from scanlab_grade.cli import parse_args  # noqa: E402
from scanlab_grade.doctest_run import TestResult  # noqa: E402
from scanlab_grade.report import ChapterResult, Grade, report_json, write_csv  # noqa: E402
from scanlab_grade.speed import SpeedResult  # noqa: E402

CH = [Chapter("00", "sequential", "Sequential", ("sequential_scan.cuh",)),
      Chapter("01", "hillis_steele", "Hillis-Steele", ("hillis_steele.cuh",))]


def a_grade() -> Grade:
    c0 = ChapterResult(CH[0], "graded", [TestResult("sums", 3, True, duration=0.25),
                                          TestResult("max, with a comma", 2, False, "wrong at 7 | hint: x",
                                                     ["wrong at 7", "wrong at 9"], 1.5, order="reverse")], 5,
                       notes=["ignored files that are not part of the exercise: 'x'"])
    c0.speed = SpeedResult(6, 10, "ok", ratio=0.81, sizes=[{"n": 1 << 24, "status": "ok", "reference_ms": 1.0,
                                                            "student_ms": 1.2, "copy_ms": 0.8}])
    c1 = ChapterResult(CH[1], "compile_error", [TestResult("t", 4, False, "not graded")], 4,
                       compile_error="x.cuh:3: error: expected ';'")
    return Grade("/class/ann", 17, "emu", ["default", "reverse"], [c0, c1], student="ann")


class Options(unittest.TestCase):
    def parse_error(self, *argv) -> None:
        with self.assertRaises(SystemExit), open("/dev/null", "w") as null:
            stderr, sys.stderr = sys.stderr, null
            try:
                parse_args(list(argv))
            finally:
                sys.stderr = stderr

    def test_slurm_needs_a_class_and_its_options_need_slurm(self):
        with tempfile.TemporaryDirectory() as d:
            self.parse_error("--slurm")
            self.parse_error("--class", d, "--csv", f"{d}/x.csv", "--collect")
            self.parse_error("--class", d, "--csv", f"{d}/x.csv", "--slurm", "--collect", "--resume")
            self.parse_error("--class", d, "--csv", f"{d}/x.csv", "--slurm", "--time", "soon")
            self.parse_error("--class", d, "--csv", f"{d}/x.csv", "--slurm", "--gpus-per-task", "1")
            self.parse_error("--class", d, "--csv", f"{d}/x.csv", "--slurm", "--prepare")
            a = parse_args(["--class", d, "--csv", f"{d}/x.csv", "--slurm", "--gpu", "--time", "1-02:00:00"])
            self.assertEqual(a.gpus_per_task, "1")
            self.assertEqual(slurm.state_dir(a), Path(d).resolve() / "x_slurm")


class ReadBack(unittest.TestCase):
    def test_the_json_a_task_writes_reads_back_to_the_same_grade(self):
        g = a_grade()
        first = report_json(g)
        back = slurm.grade_from_json(json.loads(json.dumps(first)), CH)
        self.assertEqual(report_json(back), first)
        with tempfile.TemporaryDirectory() as d:
            write_csv(Path(d) / "a.csv", CH, [g])
            write_csv(Path(d) / "b.csv", CH, [back])
            self.assertEqual((Path(d) / "a.csv").read_text(), (Path(d) / "b.csv").read_text())
            self.assertIn(",speed,speed_points", (Path(d) / "a.csv").read_text())

    def test_a_chapter_not_in_the_class_is_refused(self):
        with self.assertRaises(ValueError):
            slurm.grade_from_json(report_json(a_grade()), CH[:1])


class TaskLists(unittest.TestCase):
    def test_slurm_array_task_lists(self):
        self.assertEqual(slurm._task_ids("3"), [3])
        self.assertEqual(slurm._task_ids("2-5"), [2, 3, 4, 5])
        self.assertEqual(slurm._task_ids("[1,3,7-9%2]"), [1, 3, 7, 8, 9])


class StudentStates(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.state = Path(self.tmp.name)
        self.spec = {"students": ["a", "b"], "submissions": [{"array": "10", "tasks": [0, 1]},
                                                             {"array": "12", "tasks": [1]}]}
        for k in range(2):
            slurm.student_folder(self.state, k).mkdir(parents=True)

    def tearDown(self):
        self.tmp.cleanup()

    def mark(self, k, **files):
        for name, text in files.items():
            (slurm.student_folder(self.state, k) / name.replace("_", ".")).write_text(text)

    def state_of(self, k, known=None):
        return slurm.student_state(self.state, self.spec, k, known or {})[0]

    def test_graded_only_with_done_0_and_the_grade(self):
        self.mark(0, started="1 node t", done="0")
        self.assertEqual(self.state_of(0), "FAILED")          # done, no grade.json
        self.mark(0, grade_json="{}")
        self.assertEqual(self.state_of(0), "GRADED")
        self.mark(0, done="3")
        self.assertEqual(self.state_of(0), "FAILED")

    def test_slurm_state_of_the_latest_submission(self):
        known = {("10", 1): "CANCELLED", ("12", 1): "RUNNING"}
        self.assertEqual(self.state_of(1, known), "RUNNING")
        known[("12", 1)] = "TIMEOUT"
        self.assertEqual(self.state_of(1, known), "TIMEOUT")

    def test_without_accounting_the_markers_say_what_is_known(self):
        self.assertEqual(self.state_of(1), "NOT_STARTED")
        self.mark(1, started="1 node t")
        self.assertEqual(self.state_of(1), "ENDED")


if __name__ == "__main__":
    unittest.main()
