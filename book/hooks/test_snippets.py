"""Unit tests of the book's snippet hook (book/hooks/snippets.py).

Run with the interpreter that has mkdocs (Debian: /usr/bin/python3):
    python3 -m unittest discover -s book/hooks -p 'test_*.py'
"""

import sys
import tempfile
import textwrap
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
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


if __name__ == "__main__":
    unittest.main()
