"""Unit tests of the checks of the built book: solution_code.py (solution lines in a site) and
render_check.py (what the browser shows), on small made-up repositories, sites and DOMs.

    python3 -m unittest discover -s book/tests -p 'test_*.py'
"""

import io
import sys
import tempfile
import unittest
from contextlib import redirect_stdout
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import render_check  # noqa: E402
import solution_code  # noqa: E402

SOLUTION = """\
__device__ int answer(const int* in, int n) {
  // BEGIN TODO
  const int tid = static_cast<int>(threadIdx.x);
  // a comment the student never sees
  int secret_total = reduce_the_tile(in, n);
  {
  }
  x = 1;
  return secret_total + given_offset(n);  // why
  // END TODO
}
"""
EXERCISE = """\
__device__ int answer(const int* in, int n) {
  // BEGIN TODO
  // TODO(student): return the tile's total.
  const int tid = static_cast<int>(threadIdx.x);
  return 0;
  // END TODO
}
"""
GIVEN = "inline int helper() { return given_offset(n); }\n"


def highlighted(code: str) -> str:
    """Roughly what pygments makes of code: each token in a span, entities escaped."""
    escaped = code.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return " ".join(f'<span class="n">{word}</span>' for word in escaped.split(" "))


class SolutionCodeTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.root = Path(self.tmp.name)
        for rel, text in (("solutions/01_x/x.cuh", SOLUTION), ("exercises/01_x/x.cuh", EXERCISE),
                          ("common/helper.hpp", GIVEN)):
            (self.root / rel).parent.mkdir(parents=True, exist_ok=True)
            (self.root / rel).write_text(text, encoding="utf-8")
        self.site = self.root / "site"
        (self.site / "chapters").mkdir(parents=True)
        (self.site / "index.html").write_text("<html><body>home</body></html>", encoding="utf-8")

    def tearDown(self):
        self.tmp.cleanup()

    def test_only_distinctive_lines_are_kept(self):
        [region] = solution_code.todo_regions(self.root)
        self.assertEqual(region.name, "solutions/01_x/x.cuh:2-10")
        # Dropped: a line the exercise has, a comment, braces, a short line. The last line is
        # kept, without its trailing comment: it calls given code, but it is not given itself.
        self.assertEqual(region.lines, ["int secret_total = reduce_the_tile(in, n);",
                                        "return secret_total + given_offset(n);"])

    def test_given_text_is_not_a_secret(self):
        (self.root / "common/helper.hpp").write_text(
            GIVEN + "// int secret_total = reduce_the_tile(in, n);\n", encoding="utf-8")
        [region] = solution_code.todo_regions(self.root)
        self.assertEqual(region.lines, ["return secret_total + given_offset(n);"])

    def test_text_of_html_sees_through_highlighting_and_entities(self):
        html = ('<pre><code><span class="kt">int</span> <span class="n">a</span> '
                '<span class="o">&amp;&amp;</span>\n  <span class="n">b</span>;</code></pre>'
                '<script>var hidden = 1;</script>')
        self.assertEqual(solution_code.text_of_html(html), "int a && b;")

    def scan(self, *args):
        out = io.StringIO()
        with redirect_stdout(out):
            rc = solution_code.main(["--root", str(self.root), "--site", str(self.site), *args])
        return rc, out.getvalue()

    def test_a_page_with_a_solution_line_fails_and_is_named(self):
        (self.site / "chapters" / "01.html").write_text(
            "<pre><code>" + highlighted("int secret_total = reduce_the_tile(in, n);")
            + "</code></pre>", encoding="utf-8")
        rc, out = self.scan()
        self.assertEqual(rc, 1, out)
        self.assertIn("chapters/01.html", out)
        self.assertIn("solutions/01_x/x.cuh:2-10: int secret_total", out)

    def test_a_site_with_the_skeleton_only_passes(self):
        (self.site / "chapters" / "01.html").write_text(
            "<pre><code>" + highlighted(EXERCISE) + "</code></pre>", encoding="utf-8")
        rc, out = self.scan()
        self.assertEqual(rc, 0, out)

    def test_expect_shown_needs_every_included_region(self):
        docs = self.root / "book" / "docs"
        docs.mkdir(parents=True)
        (docs / "01.md").write_text('```\n--8<-- "exercises/01_x/x.cuh"\n```\n', encoding="utf-8")
        rc, out = self.scan("--expect", "shown")
        self.assertEqual(rc, 1, out)
        self.assertIn("not found in the site:\n  solutions/01_x/x.cuh:2-10", out)
        (self.site / "chapters" / "01.html").write_text(
            "<p>" + highlighted("return secret_total + given_offset(n);") + "</p>",
            encoding="utf-8")
        rc, out = self.scan("--expect", "shown")
        self.assertEqual(rc, 0, out)

    def test_what_a_release_leaves_out_is_not_given(self):
        # A copy of a solution among the instructor's tests would blind the check otherwise.
        (self.root / "tests/grader").mkdir(parents=True)
        (self.root / "tests/grader/copy.cuh").write_text(SOLUTION.replace("// BEGIN TODO", "")
                                                         .replace("// END TODO", ""), encoding="utf-8")
        [region] = solution_code.todo_regions(self.root)
        self.assertEqual(region.lines, [])
        (self.root / "release").mkdir()
        (self.root / "release/make_release.py").write_text('LEFT_OUT = {"tests/grader/": "why"}\n',
                                                          encoding="utf-8")
        [region] = solution_code.todo_regions(self.root)
        self.assertEqual(len(region.lines), 2)

    def test_a_library_answer_is_given_only_where_the_tree_holds_it(self):
        # A library file that holds a chapter's answer (make_release.py's ANSWERS_IN_LIBRARY) gives
        # its lines to a tree that holds it, and in a tree without it they are an answer.
        answer = "int secret_total = reduce_the_tile(in, n);\n"
        (self.root / "common/answer.hpp").write_text(answer, encoding="utf-8")
        (self.root / "release").mkdir()
        (self.root / "release/make_release.py").write_text(
            'LEFT_OUT = {}\nANSWERS_IN_LIBRARY = {"common/answer.hpp": {}}\n', encoding="utf-8")
        trees = tempfile.TemporaryDirectory()  # outside the root, whose sources are given code
        self.addCleanup(trees.cleanup)
        with_it, without_it = Path(trees.name) / "with", Path(trees.name) / "without"
        for tree in (with_it, without_it):
            (tree / "common").mkdir(parents=True)
            (tree / "notes.txt").write_text(answer, encoding="utf-8")
        (with_it / "common/answer.hpp").write_text(answer, encoding="utf-8")
        for tree, expected in ((with_it, 0), (without_it, 1)):
            out = io.StringIO()
            with redirect_stdout(out):
                rc = solution_code.main(["--root", str(self.root), "--tree", str(tree)])
            self.assertEqual(rc, expected, out.getvalue())
        self.assertIn("without/notes.txt", out.getvalue())
        self.assertIn("without common/answer.hpp, whose lines count as answers", out.getvalue())

    def test_an_exercise_hint_that_holds_a_solution_line_is_a_leak(self):
        # Issue 39: a comment inside an exercise's TODO region is a hint, not given code.
        (self.root / "exercises/01_x/x.cuh").write_text(EXERCISE.replace(
            "// TODO(student): return the tile's total.",
            "// TODO(student): int secret_total = reduce_the_tile(in, n);"), encoding="utf-8")
        [region] = solution_code.todo_regions(self.root)
        self.assertIn("int secret_total = reduce_the_tile(in, n);", region.lines)
        out = io.StringIO()
        with redirect_stdout(out):
            rc = solution_code.main(["--root", str(self.root), "--tree", str(self.root / "exercises")])
        self.assertEqual(rc, 1, out.getvalue())
        self.assertIn("exercises/01_x/x.cuh:\n      solutions/01_x/x.cuh:2-10: int secret_total",
                      out.getvalue())

    def test_a_tree_is_read_as_text_without_git_build_or_binaries(self):
        outside = tempfile.TemporaryDirectory()
        self.addCleanup(outside.cleanup)
        tree = Path(outside.name) / "release"
        for rel, data in (("README.md", b"int  secret_total =\n reduce_the_tile(in, n);"),
                          (".git/objects/x", b"int secret_total = reduce_the_tile(in, n);"),
                          ("build/cpu/x.cpp", b"int secret_total = reduce_the_tile(in, n);"),
                          ("book/figures/a.png", b"\x89PNG\0\xff")):
            (tree / rel).parent.mkdir(parents=True, exist_ok=True)
            (tree / rel).write_bytes(data)
        texts = solution_code.tree_texts(tree)
        self.assertEqual(texts, {"release/README.md": "int secret_total = reduce_the_tile(in, n);"})
        out = io.StringIO()
        with redirect_stdout(out):
            rc = solution_code.main(["--root", str(self.root), "--tree", str(tree)])
        self.assertEqual(rc, 1, out.getvalue())
        (tree / "README.md").write_text("no answer here", encoding="utf-8")
        with redirect_stdout(out):
            rc = solution_code.main(["--root", str(self.root), "--tree", str(tree)])
        self.assertEqual(rc, 0, out.getvalue())

    def test_a_region_of_given_lines_is_looked_for_as_runs_of_them(self):
        # Every line of the answer is given somewhere (here, apart, in another order): the
        # region is then found by its runs of consecutive lines, which are not given.
        (self.root / "common/helper.hpp").write_text(
            GIVEN + "return secret_total + given_offset(n);\nint q = 0;\n"
            "int secret_total = reduce_the_tile(in, n);\n", encoding="utf-8")
        [region] = solution_code.todo_regions(self.root)
        self.assertEqual(region.lines, [
            "const int tid = static_cast<int>(threadIdx.x); // a comment the student never sees",
            "// a comment the student never sees int secret_total = reduce_the_tile(in, n);",
            "int secret_total = reduce_the_tile(in, n); {",
            "x = 1; return secret_total + given_offset(n); // why"])
        (self.site / "chapters" / "01.html").write_text(
            "<pre><code>" + highlighted("int secret_total = reduce_the_tile(in, n);") + "</code></pre>"
            + "<p>" + highlighted("x = 1;\n  return secret_total + given_offset(n);  // why") + "</p>",
            encoding="utf-8")
        rc, out = self.scan()
        self.assertEqual(rc, 1, out)
        self.assertIn("solutions/01_x/x.cuh:2-10: x = 1; return secret_total", out)
        # The lines apart, as the given code has them, are no leak.
        (self.site / "chapters" / "01.html").write_text(
            "<pre><code>" + highlighted(GIVEN + "int q = 0;\nint secret_total = reduce_the_tile(in, n);")
            + "</code></pre>", encoding="utf-8")
        rc, out = self.scan()
        self.assertEqual(rc, 0, out)

    def test_expect_shown_fails_when_no_page_includes_a_region(self):
        (self.root / "book" / "docs").mkdir(parents=True)
        rc, out = self.scan("--expect", "shown")
        self.assertEqual(rc, 1, out)
        self.assertIn("include no TODO region", out)


class RenderCheckTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.site = Path(self.tmp.name)
        (self.site / "figures").mkdir()
        (self.site / "figures" / "a.svg").write_text("<svg/>", encoding="utf-8")
        (self.site / "chapters" / "01").mkdir(parents=True)
        self.region = solution_code.TodoRegion("solutions/01_x/x.cuh", 2, 9,
                                               ["int secret_total = reduce_the_tile(in, n);"])

    def tearDown(self):
        self.tmp.cleanup()

    def check(self, body):
        dom = f"<html><head></head><body>{body}</body></html>"
        return render_check.check_page(self.site, "chapters/01/index.html", dom, [self.region])

    TYPESET = ('<span class="arithmatex"><span class="katex"><math><annotation '
               'encoding="application/x-tex">x_i</annotation></math></span></span>')

    def test_a_good_page_passes(self):
        body = (self.TYPESET + '<img src="../../figures/a.svg">'
                '<pre><code>printf("\\\\(");</code></pre><script src="../../katex/katex.min.js">'
                '</script>')
        self.assertEqual(self.check(body), [])

    def test_untypeset_math_fails(self):
        problems = self.check('<span class="arithmatex">\\(x_i\\)</span>')
        self.assertTrue(any("no typeset math" in p for p in problems), problems)
        self.assertTrue(any("TeX left untypeset: \\(x_i\\)" in p for p in problems), problems)

    def test_katex_error_fails(self):
        problems = self.check(self.TYPESET + '<span class="katex-error">\\frac</span>')
        self.assertTrue(any("could not typeset" in p for p in problems), problems)

    def test_missing_or_remote_image_fails(self):
        problems = self.check(self.TYPESET + '<img src="../../figures/b.svg">'
                              '<img src="https://example.org/c.png">')
        self.assertIn("image missing from the site: ../../figures/b.svg", problems)
        self.assertIn("image from the network: https://example.org/c.png", problems)

    def test_remote_script_or_stylesheet_fails(self):
        problems = self.check(self.TYPESET + '<script src="https://cdn.example/m.js"></script>'
                              '<link rel="stylesheet" href="//fonts.example/f.css">')
        self.assertIn("loads from the network: https://cdn.example/m.js", problems)
        self.assertIn("loads from the network: //fonts.example/f.css", problems)

    def test_solution_code_fails(self):
        problems = self.check(self.TYPESET + "<pre><code><span>int</span> secret_total = "
                              "reduce_the_tile(in, n);</code></pre>")
        self.assertTrue(any(p.startswith("shows solution code (solutions/01_x/x.cuh:2-9)")
                            for p in problems), problems)


if __name__ == "__main__":
    unittest.main()
