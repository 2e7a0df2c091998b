"""Unit tests of the book's KaTeX hook (book/hooks/katex.py): real mkdocs builds of a small book
with a stand-in for Debian's libjs-katex (SCANLAB_KATEX_DIR).

Run with the interpreter that has mkdocs (Debian: /usr/bin/python3):
    python3 -m unittest discover -s book/hooks -p 'test_*.py'
"""

import os
import sys
import tempfile
import unittest
from pathlib import Path
from unittest import mock

sys.path.insert(0, str(Path(__file__).resolve().parent))
import mkdocs_run  # noqa: E402

HOOK = Path(__file__).resolve().parent / "katex.py"
CONFIG = """\
site_name: t
docs_dir: docs
theme: mkdocs
hooks:
  - {hook}
extra_css:
  - katex/katex.min.css
extra_javascript:
  - katex/katex.min.js
  - katex/contrib/auto-render.js
  - javascripts/own.js
"""
CSS = ('@font-face{font-family:KaTeX_Main;src:url(fonts/KaTeX_Main-Regular.woff2) format("woff2"),'
       'url(fonts/KaTeX_Main-Regular.woff) format("woff")}.katex{font:normal 1.21em KaTeX_Main}')


class KatexHookTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        try:
            import mkdocs  # noqa: F401
        except ImportError:
            raise unittest.SkipTest("mkdocs is not importable here") from None

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.root = Path(self.tmp.name)
        (self.root / "book/docs/javascripts").mkdir(parents=True)
        (self.root / "book/docs/index.md").write_text("# Math\n", encoding="utf-8")
        (self.root / "book/docs/javascripts/own.js").write_text("// ours\n", encoding="utf-8")
        (self.root / "book/mkdocs.yml").write_text(CONFIG.format(hook=HOOK), encoding="utf-8")
        self.katex = self.root / "katex-package"
        for name, text in (("katex.min.js", "var katex;"), ("katex.min.css", CSS),
                           ("contrib/auto-render.js", "var renderMathInElement;"),
                           ("fonts/KaTeX_Main-Regular.woff2", "w2"),
                           ("fonts/KaTeX_Main-Regular.woff", "w1")):
            (self.katex / name).parent.mkdir(parents=True, exist_ok=True)
            (self.katex / name).write_text(text, encoding="utf-8")

    def tearDown(self):
        self.tmp.cleanup()

    def build(self):
        site = self.root / "site"
        with mock.patch.dict(os.environ, SCANLAB_KATEX_DIR=str(self.katex)):
            ok, log = mkdocs_run.build(self.root / "book/mkdocs.yml", site)
        return ok, log, site

    def test_named_files_and_their_woff2_fonts_are_copied_from_the_package(self):
        ok, log, site = self.build()
        self.assertTrue(ok, log)
        for name in ("katex.min.js", "katex.min.css", "contrib/auto-render.js",
                     "fonts/KaTeX_Main-Regular.woff2"):
            self.assertEqual((site / "katex" / name).read_text(encoding="utf-8"),
                             (self.katex / name).read_text(encoding="utf-8"), name)
        self.assertFalse((site / "katex/fonts/KaTeX_Main-Regular.woff").exists())
        self.assertTrue((site / "javascripts/own.js").is_file())
        page = (site / "index.html").read_text(encoding="utf-8")
        for name in ("katex/katex.min.css", "katex/katex.min.js", "katex/contrib/auto-render.js"):
            self.assertIn(name, page)

    def test_missing_package_fails_and_says_what_to_install(self):
        (self.katex / "contrib/auto-render.js").unlink()
        ok, log, _ = self.build()
        self.assertFalse(ok)
        self.assertIn("contrib/auto-render.js not found", log)
        self.assertIn("apt-get install libjs-katex", log)

    def test_missing_font_fails(self):
        (self.katex / "fonts/KaTeX_Main-Regular.woff2").unlink()
        ok, log, _ = self.build()
        self.assertFalse(ok)
        self.assertIn("KaTeX_Main-Regular.woff2", log)


if __name__ == "__main__":
    unittest.main()
