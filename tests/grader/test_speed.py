# Unit tests of the speed grade's scoring (scanlab_grade/speed.py) without a GPU or a build: the
# rubrics (the lab's own file, and bad ones refused with a clear error), the points for a ratio, and
# what the grader makes of the speed runner's output, from stand-in runners (shell scripts) that
# print what the real one prints: right and timed, too slow, a fault, wrong output, a crash, a hang.
# Run by ctest as grader_speed_unit:  python3 -m unittest -v test_speed
import json
import sys
import tempfile
import unittest
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
sys.path.insert(0, str(REPO / "grader"))

from scanlab_grade import speed  # noqa: E402
from scanlab_grade.chapters import chapter_list  # noqa: E402
from scanlab_grade.sandbox import Sandbox  # noqa: E402


class Rubrics(unittest.TestCase):
    def test_the_lab_rubrics_cover_chapters_04_to_08_and_11(self):
        rubrics = speed.load_rubrics(speed.DEFAULT_RUBRIC)
        ids = {c.id for c in chapter_list(REPO)}
        for nn in ("04", "05", "06", "07", "08", "11"):
            self.assertTrue(any(cid.startswith(nn + "_") for cid in rubrics), nn)
        self.assertLessEqual(set(rubrics), ids)
        for cid in rubrics:
            self.assertTrue((REPO / "tests" / "grade" / "speed" / f"{cid}.cu").is_file(), cid)

    def test_points_for_a_ratio(self):
        r = speed.Rubric([1 << 20], [4096], 10, [(0.9, 10), (0.75, 6), (0.5, 3)])
        self.assertEqual([r.points_for(x) for x in (1.3, 0.9, 0.89, 0.75, 0.6, 0.5, 0.49)], [10, 10, 6, 6, 3, 3, 0])

    def bad(self, chapters) -> str:
        with tempfile.NamedTemporaryFile("w", suffix=".json") as f:
            json.dump({"chapters": chapters}, f)
            f.flush()
            with self.assertRaises(speed.RubricError) as e:
                speed.load_rubrics(Path(f.name))
            return str(e.exception)

    def test_bad_rubrics_are_refused_with_a_reason(self):
        self.assertIn("2^x", self.bad({"07": {"sizes": ["2^x"], "points": 5, "thresholds": [[0.9, 5]]}}))
        self.assertIn("thresholds", self.bad({"07": {"sizes": ["2^20"], "points": 5}}))
        self.assertIn("points from 0 to 5", self.bad({"07": {"sizes": ["2^20"], "points": 5,
                                                              "thresholds": [[0.9, 6]]}}))
        self.assertIn("fewer points", self.bad({"07": {"sizes": ["2^20"], "points": 5,
                                                        "thresholds": [[0.9, 2], [0.5, 4]]}}))


class RunnerOutput(unittest.TestCase):
    """SpeedGrader.run on stand-in runners (no sandbox: they are the test's own scripts)."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.work = Path(self.tmp.name)
        self.rubric = speed.Rubric([1 << 20, 1 << 22], [4096, 8192], 10, [(0.9, 10), (0.75, 6), (0.5, 3)])

    def tearDown(self):
        self.tmp.cleanup()

    def run_script(self, body: str, backend: str = "gpu", run_timeout: float = 60,
                   runs: int = 1) -> speed.SpeedResult:
        runner = self.work / "runner"
        runner.write_text("#!/bin/sh\n" + body + "\n")
        runner.chmod(0o755)

        class Build:
            pass
        b = Build()
        b.backend = backend
        grader = speed.SpeedGrader(b, Sandbox(False, "test"), {}, self.work, 60, 1, run_timeout, runs)
        start = speed.SpeedResult(0, 10, "not_timed", backend=backend)
        return grader.run_repeated(self.rubric, runner, self.work, start)

    @staticmethod
    def line(n, ref, mine) -> str:
        d = {"n": n, "status": "ok", "copy_ms": ref / 2, "reference_ms": ref, "student_ms": mine}
        return "echo '" + json.dumps(d) + "'"

    def test_timed_and_right_gets_the_points_of_its_ratio(self):
        r = self.run_script(self.line(1 << 20, 1.0, 1.0) + "\n" + self.line(1 << 22, 4.0, 4.4))
        self.assertEqual((r.status, r.points), ("ok", 10))
        self.assertAlmostEqual(r.ratio, (1.0 * 4.0 / 4.4) ** 0.5, places=6)
        self.assertIn("x the reference's speed", r.words())
        r = self.run_script(self.line(1 << 20, 1.0, 1.6) + "\n" + self.line(1 << 22, 4.0, 6.4))
        self.assertEqual((r.status, r.points, round(r.ratio, 3)), ("ok", 3, 0.625))

    def test_several_runs_score_the_median_and_keep_each_ratio(self):
        # Each run of the stand-in reads the next line of times: ratios 1.0, 0.8, 0.6.
        times = self.work / "times"
        times.write_text("1.0\n1.25\n1.6667\n")
        body = ("t=$(head -n 1 times); sed -i 1d times; "
                "echo '{\"n\": 1048576, \"status\": \"ok\", \"copy_ms\": 0.5, \"reference_ms\": 1.0, "
                "\"student_ms\": '$t'}'; echo '{\"n\": 4194304, \"status\": \"ok\", \"copy_ms\": 0.5, "
                "\"reference_ms\": 1.0, \"student_ms\": '$t'}'")
        r = self.run_script(body, runs=3)
        self.assertEqual([round(x, 2) for x in r.runs], [0.6, 0.8, 1.0])
        self.assertEqual((r.status, round(r.ratio, 2), r.points), ("ok", 0.8, 6))
        self.assertIn("the median of 3 runs, 0.600 to 1.000", r.words())

    def test_too_slow_a_fault_and_wrong_output_get_no_points_and_say_why(self):
        for status, words in (("too_slow", "too slow"), ("fault", "failed"), ("wrong", "wrong output")):
            d = {"n": 1 << 20, "status": status, "message": "details here"}
            r = self.run_script("echo '" + json.dumps(d) + "'")
            self.assertEqual((r.status, r.points), (status, 0))
            self.assertIn(words, r.message)
            self.assertIn("details here", r.message)

    def test_a_crash_before_every_size_was_timed(self):
        r = self.run_script(self.line(1 << 20, 1.0, 1.0) + "\nkill -SEGV $$")
        self.assertEqual((r.status, r.points), ("fault", 0))
        self.assertIn("signal 11", r.message)

    def test_a_hang_is_stopped(self):
        r = self.run_script("exec sleep 30", run_timeout=1)
        self.assertEqual((r.status, r.points), ("timeout", 0))

    def test_a_chapter_with_a_failed_test_is_not_timed(self):
        class Build:
            backend = "emu"
        rubric = {"04_x": self.rubric}
        from scanlab_grade.chapters import Chapter
        grader = speed.SpeedGrader(Build(), Sandbox(False, "test"), rubric, self.work, 60, 1)
        r = grader.grade(Chapter("04", "x"), False, self.work, self.work / "w")
        self.assertEqual((r.status, r.points, r.max_points), ("not_timed", 0, 10))
        self.assertIn("speed 0 / 10  not timed", r.words())
        self.assertIsNone(grader.grade(Chapter("05", "y"), True, self.work, self.work / "w"))  # no rubric

    def test_the_result_reads_back_from_json(self):
        r = self.run_script(self.line(1 << 20, 1.0, 1.0) + "\n" + self.line(1 << 22, 4.0, 4.4))
        back = speed.SpeedResult.from_json(json.loads(json.dumps(r.to_json())))
        self.assertEqual(back.to_json(), r.to_json())


if __name__ == "__main__":
    unittest.main()
