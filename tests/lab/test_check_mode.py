#!/usr/bin/env python3
"""`lab run NN --check` and `lab sim --check`: a run under every thread order with the race and
memory checkers (and weak memory where the chapter's blocks pass messages) fails on the mistakes a
plain run passes, and passes a right program. The programs are built already (ctest runs after the
build): the test compiles its small file with the build's scanlab-emucc and calls lab's
run_checked_emu, the function both commands end in, by sourcing lab (nothing is rebuilt)."""

import json
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
BUILD = Path(sys.argv.pop(1)) if len(sys.argv) > 1 else REPO / "build" / "cpu"
EMUCC = BUILD / "bin" / "scanlab-emucc"
SOURCE = Path(__file__).resolve().parent / "check" / "pair_sums.cu"


def lab(script, *args):
    """Runs `script` in bash after sourcing lab, with args as $1...; returns (rc, output)."""
    r = subprocess.run(
        ["bash", "-c", f'source "$1"; shift\n{script}', "bash", str(REPO / "lab"), *map(str, args)],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        timeout=600,
        env={"PATH": "/usr/bin:/bin", "SCANLAB_NO_INSTALL": "1", "SCANLAB_EMU_SEED": "11"},
    )
    return r.returncode, r.stdout


class CheckMode(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        if not EMUCC.exists():
            raise unittest.SkipTest(f"{EMUCC} is not built")
        cls.tmp = tempfile.TemporaryDirectory(prefix="scanlab-check-")
        cls.program = Path(cls.tmp.name) / "pair_sums"
        subprocess.run(
            [str(EMUCC), str(SOURCE), "-o", str(cls.program)], check=True, timeout=300, stdout=subprocess.DEVNULL
        )

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def plain(self, *args):
        r = subprocess.run([str(self.program), *args], capture_output=True, text=True, timeout=60)
        return r.returncode, r.stdout + r.stderr

    def checked(self, *args, memory=""):
        return lab('run_checked_emu "$@"', memory, self.program, *args)

    def test_right_program_passes_every_checked_run(self):
        rc, out = self.checked()
        self.assertEqual(rc, 0, out)
        self.assertIn("all 3 checked runs verified with no finding", out)
        self.assertEqual(out.splitlines().count("verified"), 3, out)  # one per run

    def test_missing_barrier_passes_plain_and_fails_checked(self):
        rc, out = self.plain("--no-barrier")
        self.assertEqual((rc, out.strip()), (0, "verified"), "the plain run should not see this race")
        rc, out = self.checked("--no-barrier")
        self.assertEqual(rc, 1, out)
        self.assertRegex(out, r"racecheck: .*hazard.*pair_sums\.cu:\d+")
        self.assertRegex(out, r"default +FAILED")  # the race checker reports it in every order
        self.assertIn("checked runs FAILED", out)

    def test_read_past_the_end_passes_plain_and_fails_checked(self):
        rc, out = self.plain("--past-end")
        self.assertEqual((rc, out.strip()), (0, "verified"), "the plain run should not see this read")
        rc, out = self.checked("--past-end")
        self.assertEqual(rc, 1, out)
        self.assertRegex(out, r"invalid global read .*pair_sums\.cu:\d+.*out of bounds")

    def test_weak_memory_run_is_added_where_asked(self):
        rc, out = self.checked(memory="weak")
        self.assertEqual(rc, 0, out)
        self.assertIn("== check: weak-memory ==", out)
        self.assertIn("SCANLAB_EMU_MEMORY=weak", out)
        self.assertIn("all 4 checked runs verified", out)

    def test_sim_takes_check_before_the_file(self):
        rc, out = lab(
            'sim_parse_options --check --memory weak f.cu --x; echo "$SIM_CHECK|${SIM_ENV[*]}|${SIM_ARGS[*]}"'
        )
        self.assertEqual((rc, out.strip()), (0, "1|SCANLAB_EMU_MEMORY=weak|f.cu --x"))

    def test_memory_model_comes_from_the_manifest(self):
        chapters = json.loads((REPO / "chapters" / "chapters.json").read_text())["chapters"]
        for c in chapters:
            rc, out = lab('chapter_memory_model "$1"', c["nn"])
            self.assertEqual((rc, out.strip()), (0, c.get("memory", "")))
        if (REPO / "solutions").is_dir():  # a student's repository may hold no such chapter (./lab release)
            self.assertIn("weak", {c.get("memory") for c in chapters})

    def test_reference_solutions_pass_their_check(self):
        for nn, slug, args, runs in (("02", "blelloch", [], 3), ("07", "decoupled_lookback", ["-n", "20000"], 4)):
            exe = BUILD / "bin" / "emu" / f"ch{nn}_{slug}_solution"
            if not exe.exists():
                self.skipTest(f"{exe} is not built")
            rc, out = lab(f'run_checked_emu "$(chapter_memory_model {nn})" "$@"', exe, *args)
            self.assertEqual(rc, 0, out)
            self.assertIn(f"all {runs} checked runs verified with no finding", out)


if __name__ == "__main__":
    unittest.main(verbosity=2)
