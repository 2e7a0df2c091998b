#!/usr/bin/env python3
"""check_manifest.py must pass on a small repository whose lists agree, and fail on each kind of
disagreement it is meant to catch (so that its pass on the real repository means something)."""
import shutil
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]

MANIFEST = """{"chapters": [
  {"nn": "00", "slug": "first", "title": "First steps", "status": "available",
   "page": "chapters/00-first.md", "files": ["first.cuh"]}
]}
"""
README = """# x

## Chapters

| NN | chapter | what it covers | status |
| --- | --- | --- | --- |
| 00 | First steps | a loop | available |

## Dependencies

Debian packages (what `./lab` installs): PACKAGES.

Optional: nothing.
"""
NAV = """nav:
  - Chapters:
      - "00 · First steps": chapters/00-first.md
"""
CMAKE = "# reads chapters.json\n"


class CheckManifest(unittest.TestCase):
    def setUp(self):
        self.tmp = Path(tempfile.mkdtemp(prefix="scanlab-manifest-"))
        self.addCleanup(shutil.rmtree, self.tmp)
        shutil.copy(REPO / "lab", self.tmp / "lab")  # `lab packages` gives the package list
        # Here as in a student's repository: no tests of grading a class, so none of their packages.
        packages = self.lab_packages()
        self.write("chapters/chapters.json", MANIFEST)
        self.write("chapters/CMakeLists.txt", CMAKE)
        self.write("README.md", README.replace("PACKAGES", ", ".join(f"`{p}`" for p in packages)))
        self.write("book/mkdocs.yml", NAV)
        self.write("book/docs/chapters/00-first.md", "# First steps\n")
        for tree in ("exercises", "solutions"):
            self.write(f"{tree}/00_first/first.cuh", "\n")
        (self.tmp / "chapters" / "00_first").mkdir()

    def lab_packages(self):
        return subprocess.run(["bash", str(self.tmp / "lab"), "packages"], capture_output=True, text=True,
                              check=True).stdout.split()[1::2]

    def write(self, name, text):
        path = self.tmp / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")

    def edit(self, name, old, new):
        path = self.tmp / name
        text = path.read_text(encoding="utf-8")
        self.assertIn(old, text)
        path.write_text(text.replace(old, new), encoding="utf-8")

    def check(self):
        return subprocess.run([sys.executable, str(HERE / "check_manifest.py"), str(self.tmp)],
                              capture_output=True, text=True)

    def assert_fails(self, message):
        r = self.check()
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        self.assertIn(message, r.stdout)

    def test_agreeing_lists_pass(self):
        r = self.check()
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)

    def test_readme_title(self):
        self.edit("README.md", "| 00 | First steps |", "| 00 | First step |")
        self.assert_fails("README.md's chapter table disagrees")

    def test_readme_status(self):
        self.edit("README.md", "a loop | available", "a loop | planned")
        self.assert_fails("status 'planned'")

    def test_nav_title(self):
        self.edit("book/mkdocs.yml", "00 · First steps", "00 · First")
        self.assert_fails("book/mkdocs.yml's nav disagrees")

    def test_nav_page(self):
        self.edit("book/mkdocs.yml", "chapters/00-first.md", "chapters/00-other.md")
        self.assert_fails("book/mkdocs.yml's nav disagrees")

    def test_cmake_lists_a_chapter_itself(self):
        self.write("chapters/CMakeLists.txt", CMAKE + "scanlab_add_chapter(01 second)\n")
        self.assert_fails("registers chapter 01 second itself")

    def test_missing_student_file(self):
        (self.tmp / "solutions/00_first/first.cuh").unlink()
        self.assert_fails("solutions/00_first/first.cuh, which does not exist")

    def test_readme_package_missing(self):
        self.edit("README.md", "`cmake`, ", "")
        self.assert_fails("only in lab:    ['cmake']")

    def test_class_grading_packages_in_their_own_paragraph(self):
        # With the tests of grading a class (the instructor's repository), lab installs their
        # packages too, and the README must name them: in the paragraph after the list.
        student = set(self.lab_packages())
        for tests in ("grader", "platforms"):
            (self.tmp / "tests" / tests).mkdir(parents=True)
        extra = [p for p in self.lab_packages() if p not in student]
        self.assertIn("slurmctld", extra)
        self.assertIn("python3-jsonschema", extra)
        self.assert_fails("only in lab:    [")
        paragraph = "For the tests of grading a class, also: " + ", ".join(f"`{p}`" for p in extra) + "."
        self.edit("README.md", "\n\nOptional: nothing.", "\n\n" + paragraph + "\n\nOptional: nothing.")
        r = self.check()
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        # Not a paragraph of its own kind: those packages are not counted.
        self.edit("README.md", "For the tests of grading a class, also:", "Also:")
        self.assert_fails("only in lab:    [")

    def test_unknown_apt_install(self):
        self.write("book/docs/extra.md", "Run `sudo apt-get install -y cmake not-a-lab-package`.\n")
        self.assert_fails("not-a-lab-package is not in lab's package lists")


if __name__ == "__main__":
    unittest.main()
