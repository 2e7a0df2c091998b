#!/usr/bin/env python3
"""The plots of bench runs (bench/plot.py, what ./lab plot and scanlab_bench --plot run) and the
staleness check of the book's plots (book/figures.py --plots --check).

Each test makes its own small run in a temporary folder: the SVG must hold every row's line and
label, the axes' labels and the caption's versions, commit and file; a file that is not a run must
fail with exit status 1 and one sentence, never a traceback; and the book's check must fail once a
run's JSON changes. Exits 77 (ctest: skipped) without matplotlib (Debian: python3-matplotlib).
"""

import contextlib
import io
import json
import re
import shutil
import subprocess
import sys
import tempfile
import types
import unittest
import xml.etree.ElementTree as ET
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PLOT = ROOT / "bench" / "plot.py"
sys.path.insert(0, str(ROOT / "book"))
sys.path.insert(0, str(ROOT / "bench"))
import plot as plot_module  # noqa: E402  (bench/plot.py; it imports matplotlib only to draw)

SIZES = [2**16, 2**20, 2**24]


def row(algorithm, type_, n, ms, copy_ms=None, cub_ms=None, status="ok"):
    """One row as scanlab_bench writes it: GB/s counts 2n 4-byte elements; the ratios are the
    copy's and CUB's times over this row's."""
    gbps = 2 * n * 4 / (ms * 1e-3) / 1e9
    return {"algorithm": algorithm, "type": type_, "n": n, "status": status, "median_ms": ms,
            "gb_per_s": gbps, "ratio_to_copy": copy_ms / ms if copy_ms else None,
            "ratio_to_cub": cub_ms / ms if cub_ms else None}


def small_run(commit="abc1234"):
    rows = []
    for type_ in ("int32", "float"):
        for i, n in enumerate(SIZES):
            copy_ms, cub_ms, mine = 0.01 * (i + 1), 0.02 * (i + 1), 0.015 * (i + 1)
            rows += [row("copy", type_, n, copy_ms, copy_ms, cub_ms), row("cub", type_, n, cub_ms, copy_ms, cub_ms),
                     row("ch07_lookback", type_, n, mine, copy_ms, cub_ms)]
    return {"tool": "scanlab_bench", "commit": commit,
            "device": {"name": "Test GPU 1"},
            "software": {"cuda_runtime": "13.0", "cub": "3.0.1"},
            "config": {"bytes_counted": "(n read + elements written)*sizeof(T)"},
            "rows": rows}


def svg_texts(path):
    return ["".join(e.itertext()) for e in ET.parse(path).iter() if e.tag.endswith("}text")]


def series(path):
    """{gid: (number of points, style)} of every line group bench/plot.py names series-*."""
    found = {}
    for g in ET.parse(path).iter():
        gid = g.get("id") or ""
        if gid.startswith("series-"):
            p = next(e for e in g.iter() if e.tag.endswith("}path"))
            found[gid] = (len(re.findall(r"[ML]\s", p.get("d"))), p.get("style") or "")
    return found


class Plotting(unittest.TestCase):
    def setUp(self):
        self.tmp = Path(tempfile.mkdtemp(prefix="scanlab-plot-test-"))
        self.addCleanup(shutil.rmtree, self.tmp, ignore_errors=True)

    def write(self, name, content):
        path = self.tmp / name
        path.write_text(content if isinstance(content, str) else json.dumps(content))
        return path

    def plot(self, *args):
        """bench/plot.py's main() with these arguments, in this process: its exit status and what it
        printed. (A process each, importing matplotlib every time, was half of this file's time;
        test_same_run_same_bytes still runs it as a program, twice.) An exception it lets out fails
        the test that called it."""
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                code = plot_module.main([str(a) for a in args])
            except SystemExit as e:  # argparse's usage errors
                code = e.code
        return types.SimpleNamespace(returncode=code, stdout=out.getvalue(), stderr=err.getvalue())

    def plot_program(self, *args):
        r = subprocess.run([sys.executable, str(PLOT), *map(str, args)], capture_output=True, text=True, timeout=120)
        self.assertNotIn("Traceback", r.stderr)
        return r

    def test_lines_labels_and_caption(self):
        run = self.write("run.json", small_run())
        out = self.tmp / "run.svg"
        r = self.plot(run, "--out", out)
        self.assertEqual(r.returncode, 0, r.stderr)
        texts = svg_texts(out)
        for expected in ("Test GPU 1, int32", "Test GPU 1, float", "throughput, GB/s", "n, elements (log₂ scale)",
                         "2¹⁶", "2²⁰", "2²⁴", "ch07_lookback", "cub", "copy"):
            self.assertIn(expected, texts)
        caption = " ".join(texts)
        for expected in ("CUDA 13.0", "CUB 3.0.1", "commit abc1234", "run.json"):
            self.assertIn(expected, caption)
        lines = series(out)
        for chart in ("0-0", "0-1"):  # int32, then float
            for name in ("copy", "cub", "ch07_lookback"):
                self.assertEqual(lines[f"series-{chart}-{name}"][0], len(SIZES), f"{chart} {name}")
        self.assertIn("stroke-dasharray", lines["series-0-0-cub"][1])  # CUB dashed
        self.assertNotIn("stroke-dasharray", lines["series-0-0-ch07_lookback"][1])
        self.assertIn("stroke: #000000", lines["series-0-0-copy"][1])  # the copy, black
        # CUB is ch07_lookback's baseline (the ratios say so): the same colour.
        colour = re.search(r"stroke: (#[0-9a-f]{6})", lines["series-0-0-ch07_lookback"][1]).group(1)
        self.assertIn(f"stroke: {colour}", lines["series-0-0-cub"][1])

    def test_same_run_same_bytes(self):
        run = self.write("run.json", small_run())
        a, b = self.tmp / "a.svg", self.tmp / "b.svg"
        self.assertEqual(self.plot_program(run, "--out", a).returncode, 0)
        self.assertEqual(self.plot_program(run, "--out", b).returncode, 0)
        self.assertEqual(a.read_bytes(), b.read_bytes())

    def test_rows_and_types_chosen(self):
        run = self.write("run.json", small_run())
        out = self.tmp / "some.svg"
        self.assertEqual(self.plot(run, "--out", out, "--types", "float", "--rows", "ch07_lookback,copy").returncode, 0)
        self.assertEqual(sorted(series(out)), ["series-0-0-ch07_lookback", "series-0-0-copy"])
        self.assertNotIn("Test GPU 1, int32", svg_texts(out))

    def test_a_failed_row_is_named_not_drawn(self):
        doc = small_run()
        doc["rows"] = [r for r in doc["rows"] if r["algorithm"] != "ch07_lookback"]
        doc["rows"].append(row("ch07_lookback", "int32", 2**16, 1.0, status="failed"))
        out = self.tmp / "failed.svg"
        self.assertEqual(self.plot(self.write("failed.json", doc), "--out", out).returncode, 0)
        self.assertNotIn("series-0-0-ch07_lookback", series(out))
        self.assertIn("ch07_lookback (int32)", " ".join(svg_texts(out)))

    def test_files_that_are_not_runs(self):
        empty_rows = small_run()
        empty_rows["rows"] = []
        all_failed = small_run()
        for r in all_failed["rows"]:
            r["status"] = "failed"
        bad_n = small_run()
        bad_n["rows"][0]["n"] = "big"
        cases = {
            "empty.json": ("", "the file is empty"),
            "broken.json": ('{"tool": "scanlab_bench", "rows": [', "not valid JSON"),
            "tuning.json": ({"scanlab_tuning": 1, "gpus": {}}, "a tuning file"),
            "other.json": ([1, 2, 3], "not a run of scanlab_bench --json"),
            "no_rows.json": (empty_rows, "has no rows"),
            "all_failed.json": (all_failed, "no row of the run was measured"),
            "bad_n.json": (bad_n, "not a size"),
        }
        for name, (content, message) in cases.items():
            with self.subTest(name):
                out = self.tmp / f"{name}.svg"
                r = self.plot(self.write(name, content), "--out", out)
                self.assertEqual(r.returncode, 1, r.stderr)
                self.assertIn(message, r.stderr)
                self.assertTrue(r.stderr.startswith(f"plot: {self.tmp / name}"), r.stderr)
                self.assertFalse(out.exists())
        r = self.plot(self.tmp / "missing.json", "--out", self.tmp / "m.svg")
        self.assertEqual(r.returncode, 1)
        self.assertIn("cannot read it", r.stderr)

    def test_a_printed_table_is_a_run_too(self):
        """The first runs were kept as scanlab_bench's printed table: the same rows, at its precision."""
        table = "\n".join([
            "scanlab_bench: prefix scan throughput on the GPU",
            "device  : Test GPU 2, compute capability 9.0, 132 SMs",
            "software: CUDA runtime 13.0, driver 13.0, CUB 3.0.1 (CUB_VERSION 300001), nvcc 13.0.88",
            "",
            "algorithm type        n   median ms     min ms     max ms   Gelem/s     GB/s x copy  x CUB  check",
            "copy int32    2^16      0.0100     0.0090     0.0110      6.55     52.4   1.00   2.00  ok",
            "cub int32    2^16      0.0200     0.0190     0.0210      3.28     26.2   0.50   1.00  ok",
            "ch07_lookback int32    2^16      0.0150     0.0140     0.0160      4.37     35.0   0.67   1.33  ok",
            "copy int32    2^20      0.0400     0.0390     0.0410     26.21    209.7   1.00   2.00  ok",
            "cub int32    2^20      0.0800     0.0790     0.0810     13.11    104.9   0.50   1.00  ok",
            "ch07_lookback int32    2^20      0.0600     0.0590     0.0610     17.48    139.8   0.67   1.33  ok",
            "ch07_lookback int32 1000003  skipped: not at this size",
            "",
        ])
        out = self.tmp / "table.svg"
        r = self.plot(self.write("table.txt", table), "--out", out)
        self.assertEqual(r.returncode, 0, r.stderr)
        lines = series(out)
        self.assertEqual(lines["series-0-0-ch07_lookback"][0], 2)
        self.assertIn("Test GPU 2, int32", svg_texts(out))
        self.assertIn("CUB 3.0.1", " ".join(svg_texts(out)))
        colour = re.search(r"stroke: (#[0-9a-f]{6})", lines["series-0-0-ch07_lookback"][1]).group(1)
        self.assertIn(f"stroke: {colour}", lines["series-0-0-cub"][1])  # paired from the rounded ratios
        r = self.plot(self.write("notes.txt", "some notes, not a run\n"), "--out", self.tmp / "n.svg")
        self.assertEqual(r.returncode, 1)
        self.assertIn("not valid JSON", r.stderr)

    def test_bad_arguments(self):
        run = self.write("run.json", small_run())
        r = self.plot(run, "--rows", "ch99_nothing")
        self.assertEqual(r.returncode, 2)
        self.assertIn("has no row ch99_nothing", r.stderr)
        r = self.plot(run, "--types", "double", "--out", self.tmp / "x.svg")
        self.assertEqual(r.returncode, 2)
        self.assertIn("has no double rows", r.stderr)
        r = self.plot(run, "--out", self.tmp / "x.png")
        self.assertEqual(r.returncode, 2)
        self.assertIn("SVG", r.stderr)


class Staleness(unittest.TestCase):
    """book/figures.py's check of the book's plots, on a plot of a made-up run."""

    def setUp(self):
        import figures

        self.figures = figures
        self.tmp = Path(tempfile.mkdtemp(prefix="scanlab-plot-stale-"))
        self.addCleanup(shutil.rmtree, self.tmp, ignore_errors=True)
        self.measurements = self.tmp / "measurements"
        self.measurements.mkdir()
        self.run = self.measurements / "run.json"
        self.run.write_text(json.dumps(small_run()))
        self.plots = [figures.Plot("test_plot", ("run.json",), ("ch07_lookback", "cub", "copy"))]
        self.committed = self.tmp / "plots"
        self.committed.mkdir()
        for name, path in self.draw().items():  # what ./lab figures would commit
            (self.committed / f"{name}.svg").write_bytes(path.read_bytes())

    def draw(self):
        into = Path(tempfile.mkdtemp(dir=self.tmp))
        return self.figures.draw_plots(into, self.plots, self.measurements)

    def test_current_plots_pass(self):
        self.assertEqual(self.figures.check_plots(self.committed, self.draw()), [])

    def test_a_changed_run_fails(self):
        doc = json.loads(self.run.read_text())
        doc["rows"][-1]["gb_per_s"] *= 1.01  # one point, 1% higher
        self.run.write_text(json.dumps(doc))
        problems = self.figures.check_plots(self.committed, self.draw())
        self.assertEqual(len(problems), 1, problems)
        self.assertIn("plots/test_plot.svg: stale", problems[0])

    def test_other_matplotlib_compares_data_and_texts(self):
        svg = self.committed / "test_plot.svg"
        text = svg.read_text()
        other = re.sub(r"matplotlib [0-9.]+", "matplotlib 0.0", text)
        other = other.replace("<path ", "<path data-other-layout='1' ", 1)  # another version's layout
        svg.write_text(other)
        self.assertEqual(self.figures.check_plots(self.committed, self.draw()), [])
        doc = json.loads(self.run.read_text())
        doc["rows"][-1]["median_ms"] *= 1.01
        self.run.write_text(json.dumps(doc))
        problems = self.figures.check_plots(self.committed, self.draw())
        self.assertEqual(len(problems), 1, problems)
        self.assertIn("drawn from other data", problems[0])

    def test_hand_edited_or_extra_or_missing_plots_fail(self):
        svg = self.committed / "test_plot.svg"
        svg.write_text(svg.read_text().replace(">ch07_lookback<", ">ch07_faster<"))
        (self.committed / "old.svg").write_text("<svg/>")
        problems = self.figures.check_plots(self.committed, self.draw())
        self.assertTrue(any("test_plot.svg: stale" in p for p in problems), problems)
        self.assertTrue(any("plots/old.svg: not made by any row of PLOTS" in p for p in problems), problems)
        svg.unlink()
        problems = self.figures.check_plots(self.committed, self.draw())
        self.assertTrue(any("test_plot.svg: missing" in p for p in problems), problems)

    def test_a_plot_of_a_run_that_is_not_one_fails_clearly(self):
        self.run.write_text("")
        with self.assertRaisesRegex(RuntimeError, "plot test_plot: .*the file is empty"):
            self.draw()

    def test_every_book_plot_names_runs_that_exist(self):
        for p in self.figures.PLOTS:
            for run in p.runs:
                self.assertTrue((self.figures.MEASUREMENTS / run).is_file(), f"{p.name}: {run}")
            self.assertTrue(not p.commits or len(p.commits) == len(p.runs), p.name)


if __name__ == "__main__":
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        print("test_plots: skipped, no matplotlib (Debian package python3-matplotlib)")
        sys.exit(77)
    unittest.main(verbosity=2)
