"""Unit tests of the book's snippet hook (book/hooks/snippets.py).

Run with the interpreter that has mkdocs (Debian: /usr/bin/python3):
    python3 -m unittest discover -s book/hooks -p 'test_*.py'
"""

import shutil
import sys
import tempfile
import textwrap
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import mkdocs_run  # noqa: E402
import snippets  # noqa: E402

SOURCE = """\
#include <cstdio>
// --8<-- [start:kernel]
__global__ void k(int* x) {
    // --8<-- [start:body]
    x[threadIdx.x] += 1;
    // --8<-- [end:body]
}
// --8<-- [end:kernel]
int main() {}
"""


class SnippetTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.root = Path(self.tmp.name)
        (self.root / "src").mkdir()
        self.write("src/a.cu", SOURCE)

    def tearDown(self):
        self.tmp.cleanup()

    def write(self, rel, text):
        (self.root / rel).write_text(text, encoding="utf-8")

    def expand(self, page):
        return snippets.expand(textwrap.dedent(page), self.root, "test.md")

    def test_section_is_extracted_without_marker_lines(self):
        got = self.expand('```cuda\n--8<-- "src/a.cu:kernel"\n```\n')
        self.assertEqual(
            got,
            "```cuda\n__global__ void k(int* x) {\n    x[threadIdx.x] += 1;\n}\n```\n",
        )

    def test_nested_section_is_dedented(self):
        got = self.expand('--8<-- "src/a.cu:body"')
        self.assertEqual(got, "x[threadIdx.x] += 1;")

    def test_directive_indentation_is_applied(self):
        got = self.expand('- item\n\n    --8<-- "src/a.cu:kernel"\n')
        lines = got.split("\n")
        self.assertEqual(lines[2], "    __global__ void k(int* x) {")
        self.assertEqual(lines[3], "        x[threadIdx.x] += 1;")

    def test_whole_file_drops_all_markers(self):
        got = self.expand('--8<-- "src/a.cu"')
        self.assertNotIn("--8<--", got)
        self.assertEqual(got.split("\n")[0], "#include <cstdio>")
        self.assertEqual(got.split("\n")[-1], "int main() {}")
        self.assertEqual(len(got.split("\n")), 5)

    def test_clang_format_switches_are_dropped(self):
        self.write("src/b.cu", "// --8<-- [start:t]\n  // clang-format off\n  int a  = 1;\n  // clang-format on\n"
                               "  int b = 2;  // clang-format off is a comment here\n// --8<-- [end:t]\n")
        got = self.expand('--8<-- "src/b.cu:t"')
        self.assertEqual(got, "int a  = 1;\nint b = 2;  // clang-format off is a comment here")

    def test_text_around_directives_is_unchanged(self):
        page = "# Title\n\nSome prose with --8<-- in the middle.\n"
        self.assertEqual(self.expand(page), page)

    def test_escaped_directive_is_shown_literally(self):
        self.assertEqual(self.expand(';--8<-- "src/a.cu:kernel"'), '--8<-- "src/a.cu:kernel"')

    def test_missing_section_fails(self):
        with self.assertRaisesRegex(snippets.SnippetError, "no section 'nope'.*body, kernel"):
            self.expand('--8<-- "src/a.cu:nope"')

    def test_missing_file_fails(self):
        with self.assertRaisesRegex(snippets.SnippetError, "does not exist"):
            self.expand('--8<-- "src/missing.cu:kernel"')

    def test_path_outside_the_repository_fails(self):
        with self.assertRaisesRegex(snippets.SnippetError, "outside the repository"):
            self.expand('--8<-- "../escape.cu"')

    def test_unterminated_section_fails(self):
        self.write("src/b.cu", "// --8<-- [start:open]\nint x;\n")
        with self.assertRaisesRegex(snippets.SnippetError, "'open' is never ended"):
            self.expand('--8<-- "src/b.cu:open"')

    def test_unterminated_section_fails_even_when_another_is_asked_for(self):
        self.write("src/b.cu", "// --8<-- [start:ok]\n// --8<-- [end:ok]\n// --8<-- [start:open]\n")
        with self.assertRaises(snippets.SnippetError):
            self.expand('--8<-- "src/b.cu:ok"')

    def test_duplicated_section_fails(self):
        self.write("src/b.cu", "// --8<-- [start:s]\n// --8<-- [end:s]\n// --8<-- [start:s]\n// --8<-- [end:s]\n")
        with self.assertRaisesRegex(snippets.SnippetError, "starts twice"):
            self.expand('--8<-- "src/b.cu:s"')

    def test_end_without_start_fails(self):
        self.write("src/b.cu", "int x;\n// --8<-- [end:s]\n")
        with self.assertRaisesRegex(snippets.SnippetError, "never starts"):
            self.expand('--8<-- "src/b.cu"')

    def test_malformed_marker_fails(self):
        self.write("src/b.cu", "// --8<-- [begin:s]\nint x;\n")
        with self.assertRaisesRegex(snippets.SnippetError, "malformed snippet marker"):
            self.expand('--8<-- "src/b.cu"')

    def test_malformed_directive_fails(self):
        with self.assertRaisesRegex(snippets.SnippetError, "malformed snippet directive"):
            self.expand("--8<-- src/a.cu:kernel")

    def test_error_is_a_mkdocs_plugin_error_when_mkdocs_is_there(self):
        try:
            from mkdocs.exceptions import PluginError
        except ImportError:
            self.skipTest("mkdocs is not importable here")
        self.assertTrue(issubclass(snippets.SnippetError, PluginError))


# A chapter as the lab lays it out: the student's file with a TODO region, and its solution, equal
# outside the region. `given` holds no TODO, `todo` holds one.
EXERCISE = """\
// --8<-- [start:given]
int given() { return 1; }
// --8<-- [end:given]
// --8<-- [start:todo]
int student() {
  // BEGIN TODO
  // TODO(student): return the answer.
  return 0;
  // END TODO
}
// --8<-- [end:todo]
"""
SOLUTION = """\
// --8<-- [start:given]
int given() { return 1; }
// --8<-- [end:given]
// --8<-- [start:todo]
int student() {
  // BEGIN TODO
  return the_answer_42();
  // END TODO
}
// --8<-- [end:todo]
"""


class EditionTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.root = Path(self.tmp.name)
        for folder, text in (("exercises", EXERCISE), ("solutions", SOLUTION)):
            (self.root / folder / "01_x").mkdir(parents=True)
            (self.root / folder / "01_x" / "x.cuh").write_text(text, encoding="utf-8")

    def tearDown(self):
        self.tmp.cleanup()

    def expand(self, page, edition, leaks=None):
        return snippets.expand(page, self.root, "chapters/01.md", edition, leaks)

    def test_student_edition_shows_the_exercise(self):
        got = self.expand('--8<-- "exercises/01_x/x.cuh:todo"', "student")
        self.assertIn("TODO(student)", got)
        self.assertNotIn("the_answer_42", got)

    def test_instructor_edition_swaps_in_the_solution(self):
        got = self.expand('--8<-- "exercises/01_x/x.cuh:todo"', "instructor")
        self.assertIn("return the_answer_42();", got)
        self.assertNotIn("TODO(student)", got)

    def test_whole_exercise_file_is_swapped_too(self):
        got = self.expand('--8<-- "exercises/01_x/x.cuh"', "instructor")
        self.assertIn("the_answer_42", got)

    def test_solution_region_without_todo_is_allowed_in_the_student_edition(self):
        got = self.expand('--8<-- "solutions/01_x/x.cuh:given"', "student")
        self.assertEqual(got, "int given() { return 1; }")

    def test_solution_region_overlapping_a_todo_fails_the_student_edition(self):
        with self.assertRaisesRegex(snippets.SnippetError,
                                    r"chapters/01\.md:1: region 'todo' of solutions/01_x/x\.cuh "
                                    r"shows solution code \(lines 6-8 are inside the TODO region "
                                    r"at lines 6-8\).*exercises/01_x/x\.cuh:todo"):
            self.expand('--8<-- "solutions/01_x/x.cuh:todo"', "student")

    def test_whole_solution_file_fails_the_student_edition(self):
        with self.assertRaisesRegex(snippets.SnippetError, "the whole of solutions/01_x/x.cuh"):
            self.expand('--8<-- "solutions/01_x/x.cuh"', "student")

    def test_the_instructor_edition_may_show_solutions(self):
        got = self.expand('--8<-- "solutions/01_x/x.cuh:todo"', "instructor")
        self.assertIn("the_answer_42", got)

    def test_leaks_are_collected_when_asked(self):
        leaks = []
        page = '--8<-- "solutions/01_x/x.cuh:todo"\n--8<-- "solutions/01_x/x.cuh:given"\n' \
               '--8<-- "solutions/01_x/x.cuh"'
        self.expand(page, "student", leaks)
        self.assertEqual(len(leaks), 2)
        self.assertTrue(leaks[0].startswith("chapters/01.md:1: region 'todo'"))
        self.assertTrue(leaks[1].startswith("chapters/01.md:3: the whole of solutions/"))

    def test_a_region_missing_from_the_solution_fails_both_editions(self):
        (self.root / "exercises/01_x/x.cuh").write_text(EXERCISE + "// --8<-- [start:new]\n"
                                                        "// --8<-- [end:new]\n", encoding="utf-8")
        for edition in snippets.EDITIONS:
            with self.assertRaisesRegex(snippets.SnippetError, "no section 'new' in 'solutions/"):
                self.expand('--8<-- "exercises/01_x/x.cuh:new"', edition)

    def test_unknown_edition_fails(self):
        with self.assertRaisesRegex(snippets.SnippetError, "unknown book edition"):
            self.expand('--8<-- "exercises/01_x/x.cuh:todo"', "teacher")

    def test_todo_markers_must_pair(self):
        with self.assertRaisesRegex(snippets.SnippetError, "never ended"):
            snippets.todo_regions(["// BEGIN TODO", "x"], "f.cuh")
        with self.assertRaisesRegex(snippets.SnippetError, "without a BEGIN TODO"):
            snippets.todo_regions(["// END TODO"], "f.cuh")
        with self.assertRaisesRegex(snippets.SnippetError, "inside the TODO region"):
            snippets.todo_regions(["// BEGIN TODO", "  // BEGIN TODO"], "f.cuh")
        self.assertEqual(snippets.todo_regions(["a", "  // BEGIN TODO", "b", "  // END TODO"], "f"),
                         [(1, 3)])

    def test_a_students_repository_lists_the_stubs_as_handed_out(self):
        # ./lab release: no solutions/, and a copy of the stubs that the student's edits do not reach.
        shutil.rmtree(self.root / "solutions")
        (self.root / "stubs" / "01_x").mkdir(parents=True)
        (self.root / "stubs" / "01_x" / "x.cuh").write_text(EXERCISE, encoding="utf-8")
        (self.root / "exercises/01_x/x.cuh").write_text(SOLUTION, encoding="utf-8")  # solved
        page = '# 01\n\nText.\n\n```c\n--8<-- "exercises/01_x/x.cuh:todo"\n```\n'
        got = snippets.expand(page, self.root, "chapters/01.md", "student", stubs="stubs")
        self.assertIn("TODO(student)", got)
        self.assertNotIn("the_answer_42", got)
        self.assertTrue(got.startswith('# 01\n\n!!! note "The listings of your files"\n'), got)
        self.assertIn("(their copy in\n    `stubs/`), not your work.", got)
        # Without the stubs folder it reads exercises/ (here: the solved file); no note.
        got = snippets.expand(page, self.root, "chapters/01.md", "student")
        self.assertIn("the_answer_42", got)
        self.assertNotIn("!!! note", got)

    def test_links_to_pages_left_out_become_text(self):
        text = ("See [chapter\n09](09-radix-sort.md#why), [08](08-x.md), ![fig](../figures/a.svg) "
                "and [the emulator](../emulator.md).")
        got = snippets.unlink_pages(text, "chapters/07.md", {"chapters/09-radix-sort.md", "emulator.md"})
        self.assertEqual(got, "See chapter\n09, [08](08-x.md), ![fig](../figures/a.svg) and the emulator.")

    def test_figures_of_chapters_left_out_become_text(self):
        text = ("![Chapter 07 on an H200](figures/plots/ch07_lookback.svg)\n\n"
                "![tiles](../figures/ch01_steps.svg) ![fig6](../figures/ch07_fig6_snapshot.svg) "
                "![a ch07 picture](../other/ch07_x.svg)")
        got = snippets.unlink_figures(text, {"chapters/07-decoupled-lookback.md", "emulator.md"})
        self.assertEqual(got, "Chapter 07 on an H200\n\n![tiles](../figures/ch01_steps.svg) fig6 "
                              "![a ch07 picture](../other/ch07_x.svg)")
        self.assertEqual(snippets.unlink_figures(text, set()), text)

    def test_instructor_pages_leave_the_nav(self):
        nav = [{"Intro": "index.md"}, {"Guide": [{"Teach": "teach.md"}]}, "teach.md",
               {"Chapters": [{"01": "chapters/01.md"}, {"Teach": "teach.md"}]}]
        self.assertEqual(snippets.without_pages(nav, {"teach.md"}),
                         [{"Intro": "index.md"}, {"Chapters": [{"01": "chapters/01.md"}]}])


class EditionBuildTest(unittest.TestCase):
    """Real mkdocs builds of a small book that uses the hook, in both editions."""

    CONFIG = textwrap.dedent("""\
        site_name: t
        docs_dir: docs
        theme: mkdocs
        hooks:
          - {hook}
        extra:
          edition: student
          instructor_only:
            - teach.md
        nav:
          - Intro: index.md
          - "01": chapters/01.md
          - Teach: teach.md
        """)

    @classmethod
    def setUpClass(cls):
        try:
            import mkdocs  # noqa: F401
        except ImportError:
            raise unittest.SkipTest("mkdocs is not importable here") from None

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.root = Path(self.tmp.name)
        for folder, text in (("exercises", EXERCISE), ("solutions", SOLUTION)):
            (self.root / folder / "01_x").mkdir(parents=True)
            (self.root / folder / "01_x" / "x.cuh").write_text(text, encoding="utf-8")
        docs = self.root / "book" / "docs"
        (docs / "chapters").mkdir(parents=True)
        (docs / "index.md").write_text("# Intro\n", encoding="utf-8")
        (docs / "teach.md").write_text("# Teaching notes\n", encoding="utf-8")
        self.chapter('```c\n--8<-- "exercises/01_x/x.cuh:todo"\n```\n')
        hook = Path(snippets.__file__).resolve()
        (self.root / "book" / "mkdocs.yml").write_text(self.CONFIG.format(hook=hook),
                                                       encoding="utf-8")
        (self.root / "book" / "mkdocs-instructor.yml").write_text(
            "INHERIT: mkdocs.yml\nextra:\n  edition: instructor\n", encoding="utf-8")

    def tearDown(self):
        self.tmp.cleanup()

    def chapter(self, text, name="01.md"):
        (self.root / "book" / "docs" / "chapters" / name).write_text("# 01\n\n" + text,
                                                                    encoding="utf-8")

    def build(self, config):
        site = self.root / ("site-" + config)
        ok, log = mkdocs_run.build(self.root / "book" / config, site)
        return ok, log, site

    def test_student_edition_shows_the_skeleton_and_no_instructor_page(self):
        ok, log, site = self.build("mkdocs.yml")
        self.assertTrue(ok, log)
        page = (site / "chapters/01/index.html").read_text(encoding="utf-8")
        self.assertIn("TODO(student)", page)
        self.assertNotIn("the_answer_42", page)
        self.assertFalse((site / "teach").exists())
        self.assertNotIn("teach/", (site / "index.html").read_text(encoding="utf-8"))

    def test_instructor_edition_shows_the_solution_and_the_instructor_page(self):
        ok, log, site = self.build("mkdocs-instructor.yml")
        self.assertTrue(ok, log)
        page = (site / "chapters/01/index.html").read_text(encoding="utf-8")
        self.assertIn("the_answer_42", page)
        self.assertNotIn("TODO(student)", page)
        self.assertTrue((site / "teach/index.html").is_file())
        self.assertIn("teach/", (site / "index.html").read_text(encoding="utf-8"))

    def test_student_build_fails_listing_every_page_that_shows_a_todo_region(self):
        self.chapter('--8<-- "solutions/01_x/x.cuh:todo"\n')
        self.chapter('ok\n\n--8<-- "solutions/01_x/x.cuh:given"\n\n'
                     '--8<-- "solutions/01_x/x.cuh"\n', name="02.md")
        ok, log, site = self.build("mkdocs.yml")
        self.assertFalse(ok)
        self.assertIn("would show solution code in 2 listing(s)", log)
        self.assertIn("chapters/01.md:3: region 'todo' of solutions/01_x/x.cuh", log)
        self.assertIn("chapters/02.md:7: the whole of solutions/01_x/x.cuh", log)
        self.assertNotIn("chapters/02.md:5", log)  # the region without a TODO is fine
        self.assertFalse((site / "chapters/01/index.html").exists())
        # The same pages are fine in the instructor edition.
        ok, log, _ = self.build("mkdocs-instructor.yml")
        self.assertTrue(ok, log)


if __name__ == "__main__":
    unittest.main()
