#!/usr/bin/env python3
"""The ctest lint_hooks_catch_mistakes: the hooks of .pre-commit-config.yaml, with the checkout's
.clang-format and ruff.toml, run in a scratch git repository, pass on clean files and fail on a
badly formatted C++/CUDA file, a shell script with a shellcheck finding and Python with a ruff
finding, naming the file; they leave alone the paths the config excludes; the manual-stage
clang-format-fix hook (`./lab lint --fix`) rewrites a file into the layout the check accepts.

Exit status 77 (ctest: skipped) when the hooks cannot run here (run_hooks.py says why).
"""

import re
import shutil
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import run_hooks  # noqa: E402

CONFIGS = (".pre-commit-config.yaml", ".clang-format", "ruff.toml")

GOOD_CXX = """\
#include <cstdio>

namespace demo {

template <class T>
T twice(const T* p) {
  if (p == nullptr) return T{};
  return *p + *p;
}

}  // namespace demo
"""
BAD_CXX = "namespace demo {\n  int  twice(int* p){ return *p+*p; }\n}\n"
GOOD_SH = '#!/usr/bin/env bash\nset -euo pipefail\necho "$1"\n'
BAD_SH = "#!/usr/bin/env bash\nfor f in $(ls *.txt); do echo $f; done\n"  # SC2045, SC2086
GOOD_PY = 'import sys\n\nprint(sys.argv)\n'
BAD_PY = "import os\nimport sys\n\nprint(sys.argv)\n"  # F401: os imported, never used


def excluded_prefixes():
    """The paths the config's top-level `exclude` names, one a line between `(?x)^(` and `)`."""
    text = (run_hooks.REPO / ".pre-commit-config.yaml").read_text(encoding="utf-8")
    block = re.search(r"^exclude: \|\n\s+\(\?x\)\^\(\n(.*?)\n\s+\)\n", text, re.M | re.S)
    return [line.strip().rstrip("|") for line in block.group(1).splitlines()] if block else []


class HooksTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory(prefix="scanlab-lint-")
        self.root = Path(self.tmp.name) / "repo"
        self.home = Path(self.tmp.name) / "pre-commit-home"
        self.root.mkdir()
        for name in CONFIGS:
            shutil.copy(run_hooks.REPO / name, self.root / name)
        subprocess.run(["git", "init", "-q", str(self.root)], check=True)

    def tearDown(self):
        self.tmp.cleanup()

    def write(self, rel, text):
        path = self.root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")

    def run_hooks(self, *args):
        subprocess.run(["git", "add", "-A"], cwd=self.root, check=True)
        return run_hooks.run_hooks(self.root, self.home, *args)

    def assert_fails(self, result, hook, *names):
        self.assertNotEqual(result.returncode, 0, result.stdout)
        self.assertRegex(result.stdout, rf"(?m)^{re.escape(hook)} \(.*\)\.+Failed$")
        for name in names:
            self.assertIn(name, result.stdout)

    def test_clean_files_pass(self):
        for ext in ("cu", "cuh", "hpp", "cpp", "h"):
            self.write(f"src/good.{ext}", GOOD_CXX)
        self.write("lab", GOOD_SH)
        self.write(".ci/run", GOOD_SH)
        self.write("tests/gpu/good.sh", GOOD_SH)
        self.write("book/good.py", GOOD_PY)
        result = self.run_hooks()
        self.assertEqual(result.returncode, 0, result.stdout)
        for hook in ("clang-format", "shellcheck", "ruff check"):
            self.assertRegex(result.stdout, rf"(?m)^{hook} \(.*\)\.+Passed$")

    def test_badly_formatted_cxx_fails(self):
        names = [f"src/bad.{ext}" for ext in ("cu", "cuh", "hpp", "cpp", "h")]
        for name in names:
            self.write(name, BAD_CXX)
        self.assert_fails(self.run_hooks(), "clang-format", *names, "code should be clang-formatted")

    def test_shellcheck_findings_fail(self):
        for name in ("lab", ".ci/run", "tests/gpu/bad.sh"):
            with self.subTest(name=name):
                self.write(name, BAD_SH)
                self.assert_fails(self.run_hooks(), "shellcheck", name, "SC2086")
                self.write(name, GOOD_SH)

    def test_ruff_findings_fail(self):
        self.write("tests/bad.py", BAD_PY)
        self.assert_fails(self.run_hooks(), "ruff check", "tests/bad.py", "F401")

    def test_excluded_paths_are_not_checked(self):
        prefixes = excluded_prefixes()
        if not prefixes:
            self.skipTest("the config excludes no path")
        for prefix in prefixes:
            self.write(f"{prefix}bad.cu", BAD_CXX)
            self.write(f"{prefix}bad.sh", BAD_SH)
            self.write(f"{prefix}bad.py", BAD_PY)
        result = self.run_hooks()
        self.assertEqual(result.returncode, 0, result.stdout)

    def test_fix_hook_formats_what_the_check_rejects(self):
        self.write("src/bad.cu", BAD_CXX)
        fixed = self.run_hooks("--hook-stage", "manual", "clang-format-fix")
        self.assertNotEqual(fixed.returncode, 0, "a fix hook that changed a file fails")
        self.assertIn("files were modified by this hook", fixed.stdout)
        self.assertEqual((self.root / "src/bad.cu").read_text(encoding="utf-8"),
                         "namespace demo {\nint twice(int* p) { return *p + *p; }\n}  // namespace demo\n")
        result = self.run_hooks()
        self.assertEqual(result.returncode, 0, result.stdout)


if __name__ == "__main__":
    reasons = run_hooks.why_not(run_hooks.REPO)
    if reasons:
        print("lint_hooks_catch_mistakes: skipped: " + "; ".join(reasons))
        sys.exit(run_hooks.SKIP)
    unittest.main(verbosity=2)
