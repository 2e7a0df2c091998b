"""Unit tests of solution_commands.py (commands a student's repository cannot run, in a built
student edition), on small made-up sites.

    python3 -m unittest discover -s book/tests -p 'test_*.py'
"""

import io
import json
import sys
import tempfile
import unittest
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import solution_commands  # noqa: E402


class SolutionCommandsTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.site = Path(self.tmp.name)
        self.page("index.html", "<p>home</p>")

    def tearDown(self):
        self.tmp.cleanup()

    def page(self, rel: str, body: str) -> None:
        path = self.site / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"<html><body>{body}</body></html>", encoding="utf-8")

    def search_index(self, location: str, text: str) -> None:
        (self.site / "search").mkdir()
        (self.site / "search" / "search_index.json").write_text(
            json.dumps({"docs": [{"location": location, "text": text}]}))

    def run_check(self) -> tuple[int, str]:
        out = io.StringIO()
        with redirect_stdout(out):
            rc = solution_commands.main(["--site", str(self.site)])
        return rc, out.getvalue()

    def test_the_students_own_commands_pass(self):
        self.page("chapters/01/index.html",
                  "<pre><code>./lab run 01 --check\n./lab viz 02 --input 3,1 --solutions-dir x"
                  "\nch02_blelloch_traced</code></pre><p>the reference solution prints:</p>")
        rc, out = self.run_check()
        self.assertEqual(rc, 0, out)

    def test_each_command_needing_solutions_fails_and_is_named(self):
        cases = {"a": '<span class="o">./lab run 01</span> <span class="o">--solution</span>',
                 "b": "./lab viz 07 --solution",
                 "c": "./lab book --instructor",
                 "d": "build/gpu/bin/gpu/ch03_bank_conflicts_solution --layout unpadded",
                 "e": "ch05_multi_block_solution_traced -n 100",
                 "f": "./lab figures --check"}
        for name, body in cases.items():
            with self.subTest(body=body):
                self.page(f"{name}/index.html", body)
                rc, out = self.run_check()
                self.assertEqual(rc, 1, out)
                self.assertIn(f"{name}/index.html", out)
                (self.site / name / "index.html").unlink()

    def test_the_search_index_is_checked_too(self):
        self.search_index("chapters/01/#running-it", "./lab run 01 --solution")
        rc, out = self.run_check()
        self.assertEqual(rc, 1, out)
        self.assertIn("search_index.json#chapters/01/", out)

    def test_measurement_records_are_left_out(self):
        self.page("measurements/index.html", "./lab run 07 --solution --gpu")
        self.page("measurements/h200-2026-11-28/index.html", "./lab run 07 --solution --gpu")
        self.search_index("measurements/#x", "./lab run 07 --solution")
        rc, out = self.run_check()
        self.assertEqual(rc, 0, out)
        self.assertIn("3 of the measurement records left out", out)

    def test_not_a_site_is_an_error(self):
        (self.site / "index.html").unlink()
        out = io.StringIO()
        with redirect_stderr(out):
            rc = solution_commands.main(["--site", str(self.site)])
        self.assertEqual(rc, 2)
        self.assertIn("not a built site", out.getvalue())


if __name__ == "__main__":
    unittest.main()
