#!/usr/bin/env python3
"""The speed goals' check (bench/goals.py, ./lab goals) on runs made in the test: a run that meets
every goal passes (exit 0); one row below its goal at one size, a size left out, a goal's row not
measured, each fails (exit 1) and says which; a file that is not a run fails with exit 2 and one
sentence, never a traceback; and the arguments of a goals run name every row a goal needs. No GPU.
"""

import json
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
GOALS_PY = ROOT / "bench" / "goals.py"
sys.path.insert(0, str(ROOT / "bench"))

import goals  # noqa: E402


def row(algorithm, type_, log2_n, ms, ratio_to_cub=None, status="ok"):
    n = 2**log2_n
    return {"algorithm": algorithm, "type": type_, "n": n, "status": status, "median_ms": ms,
            "gb_per_s": 2 * n * 4 / (ms * 1e-3) / 1e9, "ratio_to_cub": ratio_to_cub}


def run_meeting_every_goal(margin=1.01):
    """Every goal's row at every size it names, `margin` times its goal (above 1: met)."""
    rows = []
    for type_ in ("int32", "float"):
        for k in (22, 24, 26, 28):
            rows.append(row("copy", type_, k, 1.0))
    for g in goals.GOALS:
        for type_ in g.types:
            for k in g.sizes:
                if g.against == "copy":
                    rows.append(row(g.row, type_, k, 1.0 / (g.at_least * margin)))
                else:
                    rows.append(row(g.row, type_, k, 1.0, ratio_to_cub=g.at_least * margin))
    return {"tool": "scanlab_bench", "commit": "abc1234", "device": {"name": "Test GPU"},
            "software": {"cuda_runtime": "13.0", "cub": "3.0.1"}, "rows": rows}


class Goals(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.addCleanup(self.dir.cleanup)

    def check(self, doc, *more):
        path = Path(self.dir.name) / "run.json"
        path.write_text(doc if isinstance(doc, str) else json.dumps(doc))
        return subprocess.run([sys.executable, str(GOALS_PY), str(path), *more], capture_output=True, text=True,
                              timeout=60)

    def lines_with(self, out, row, type_):
        return [ln for ln in out.splitlines() if f"[{row}, {type_};" in ln]

    def test_a_run_that_meets_every_goal(self):
        done = self.check(run_meeting_every_goal())
        self.assertEqual(done.returncode, 0, done.stdout + done.stderr)
        self.assertIn("every goal met", done.stdout)
        judged = [ln for ln in done.stdout.splitlines() if ln.startswith("  ")]
        self.assertEqual(len(judged), sum(len(g.types) for g in goals.GOALS))
        self.assertTrue(all(ln.split()[0] == "met" for ln in judged), done.stdout)
        self.assertIn("Test GPU, CUDA 13.0, CUB 3.0.1, commit abc1234", done.stdout)

    def test_one_size_below_its_goal(self):
        doc = run_meeting_every_goal()
        for r in doc["rows"]:  # the partition, int32, 2^26: just under 0.85 x copy
            if (r["algorithm"], r["type"], r["n"]) == ("ch08_partition_if_single_pass", "int32", 2**26):
                r["median_ms"] = 1.0 / 0.849
        done = self.check(doc)
        self.assertEqual(done.returncode, 1)
        [line] = self.lines_with(done.stdout, "ch08_partition_if_single_pass", "int32")
        self.assertTrue(line.split()[0] == "MISSED", line)
        self.assertIn("2^26 0.849 (below)", line)
        self.assertIn("2^28 0.858", line)
        [other] = self.lines_with(done.stdout, "ch08_partition_if_single_pass", "float")
        self.assertEqual(other.split()[0], "met")

    def test_a_ratio_exactly_at_the_goal_meets_it(self):
        doc = run_meeting_every_goal(margin=1.0)
        done = self.check(doc)
        self.assertEqual(done.returncode, 0, done.stdout)

    def test_a_cub_ratio_below_its_goal(self):
        doc = run_meeting_every_goal()
        for r in doc["rows"]:
            if r["algorithm"] == "ch09_onesweep_pairs_u64" and r["n"] == 2**24:
                r["ratio_to_cub"] = 0.97
        done = self.check(doc)
        self.assertEqual(done.returncode, 1)
        [line] = self.lines_with(done.stdout, "ch09_onesweep_pairs_u64", "int32")
        self.assertIn("MISSED", line)
        self.assertIn("2^24 0.970 (below)", line)

    def test_a_size_left_out(self):
        doc = run_meeting_every_goal()
        doc["rows"] = [r for r in doc["rows"] if not (r["algorithm"] == "ch10_segmented_scan" and r["n"] == 2**22)]
        done = self.check(doc)
        self.assertEqual(done.returncode, 1)
        [line] = self.lines_with(done.stdout, "ch10_segmented_scan", "int32")
        self.assertTrue(line.startswith("  incomplete"), line)
        self.assertIn("2^22: not in the run", line)

    def test_a_failed_row_and_a_missing_cub_ratio(self):
        doc = run_meeting_every_goal()
        for r in doc["rows"]:
            if r["algorithm"] == "ch11_async_copy" and r["type"] == "float":
                r.update(status="failed", median_ms=None, gb_per_s=None)
            if r["algorithm"] == "ch09_onesweep_sort_keys" and r["n"] == 2**28:
                r["ratio_to_cub"] = None
        done = self.check(doc)
        self.assertEqual(done.returncode, 1)
        [line] = self.lines_with(done.stdout, "ch11_async_copy", "float")
        self.assertTrue(line.startswith("  not measured"), line)
        self.assertIn("2^26: not measured (failed)", line)
        [keys] = self.lines_with(done.stdout, "ch09_onesweep_sort_keys", "int32")
        self.assertIn("2^28: no CUB counterpart measured (cub_radix_sort_keys_int, cub_radix_sort_keys_size_t)", keys)

    def test_larger_sizes_count_and_smaller_ones_do_not(self):
        doc = run_meeting_every_goal()
        doc["rows"] += [row("copy", "int32", 30, 4.0), row("ch11_async_copy", "int32", 30, 4.0 / 0.9),
                        row("ch11_async_copy", "int32", 24, 10.0)]
        done = self.check(doc)
        [line] = self.lines_with(done.stdout, "ch11_async_copy", "int32")
        self.assertIn("2^30 0.900 (below)", line)
        self.assertNotIn("2^24", line)

    def test_a_file_that_is_not_a_run(self):
        for text, says in (("not json", "not valid JSON"), ("", "the file is empty"),
                           (json.dumps({"scanlab_tuning": 1}), "a tuning file")):
            done = self.check(text)
            self.assertEqual(done.returncode, 2, done.stderr)
            self.assertIn(says, done.stderr)
            self.assertNotIn("Traceback", done.stderr)
            self.assertEqual(len(done.stderr.strip().splitlines()), 1, done.stderr)

    def test_usage(self):
        done = subprocess.run([sys.executable, str(GOALS_PY)], capture_output=True, text=True, timeout=60)
        self.assertEqual(done.returncode, 2)
        self.assertIn("--bench-args", done.stderr)

    def test_the_bench_arguments_name_every_row(self):
        done = subprocess.run([sys.executable, str(GOALS_PY), "--bench-args"], capture_output=True, text=True,
                              timeout=60)
        self.assertEqual(done.returncode, 0)
        args = done.stdout.split()
        rows = args[args.index("--algorithms") + 1].split(",")
        for g in goals.GOALS:
            self.assertIn(g.row, rows)
            for b in g.baselines:
                self.assertIn(b, rows)
        self.assertIn("copy", rows)
        self.assertEqual(args[args.index("--sizes") + 1], "2^22,2^24,2^26,2^28")
        self.assertEqual(args[args.index("--types") + 1], "int32,float")


class LabGoals(unittest.TestCase):
    """./lab goals: reads runs without a GPU; with --run and no usable GPU it says so."""

    def lab(self, *args, path="/usr/bin:/bin"):
        return subprocess.run(["bash", str(ROOT / "lab"), "goals", *args], capture_output=True, text=True, timeout=60,
                              env={"PATH": path, "SCANLAB_NO_INSTALL": "1"})

    def test_reads_a_run(self):
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "run.json"
            path.write_text(json.dumps(run_meeting_every_goal()))
            done = self.lab(str(path))
            self.assertEqual(done.returncode, 0, done.stderr)
            self.assertIn("every goal met", done.stdout)
            path.write_text(json.dumps(run_meeting_every_goal(margin=0.9)))
            self.assertEqual(self.lab(str(path)).returncode, 1)

    def test_needs_a_run(self):
        done = self.lab()
        self.assertEqual(done.returncode, 2)
        self.assertIn("goals needs a run", done.stderr.strip().splitlines()[-1])

    def test_the_options_after_run_replace_the_goals_own(self):
        script = 'source "$1"; goals_bench_args /usr/bin/python3 "${@:2}"; printf "%s\\n" "${goal_args[@]}"'
        for extra, sizes in ((["--reps", "5"], "2^22,2^24,2^26,2^28"), (["--sizes", "2^26", "--reps", "5"], "2^26"),
                             (["--reps", "5", "--sizes=2^24"], None)):
            done = subprocess.run(["bash", "-c", script, "bash", str(ROOT / "lab"), *extra], capture_output=True,
                                  text=True, timeout=60, env={"PATH": "/usr/bin:/bin"})
            self.assertEqual(done.returncode, 0, done.stderr)
            args = done.stdout.split()
            self.assertEqual(args.count("--algorithms"), 1)
            self.assertEqual(args[-len(extra):], extra)  # the options themselves come last, as given
            if sizes is None:  # given as --sizes=...: the goals' own --sizes is left out
                self.assertNotIn("--sizes", args)
            else:
                self.assertEqual(args.count("--sizes"), 1)
                self.assertEqual(args[args.index("--sizes") + 1], sizes)

    def test_run_without_a_gpu(self):
        with tempfile.TemporaryDirectory() as tmp:
            for tool in ("nvcc", "nvidia-smi"):  # present, but no GPU answers
                stub = Path(tmp) / tool
                stub.write_text("#!/bin/sh\nexit 1\n")
                stub.chmod(0o755)
            done = self.lab("--run", path=f"{tmp}:/usr/bin:/bin")
        self.assertEqual(done.returncode, 1, done.stderr)
        # A student's repository (a release) has no solutions to time, and says that first.
        why = "no usable GPU here" if (ROOT / "solutions").is_dir() else "needs the reference solutions"
        self.assertIn(why, done.stderr.strip().splitlines()[-1])


if __name__ == "__main__":
    unittest.main()
