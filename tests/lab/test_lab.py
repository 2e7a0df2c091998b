#!/usr/bin/env python3
"""Tests of ./lab's own logic, by sourcing it (sourced, lab defines its functions and runs nothing):
the chapter lookups read chapters/chapters.json; `lab sim` hands its emulator options to the
emulator as SCANLAB_EMU_* variables without judging their values; usage errors end with the error."""
import json
import shutil
import subprocess
import tempfile
import unittest
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def bash(script, lab=REPO / "lab", path="/usr/bin:/bin"):
    """Runs `script` in bash after sourcing lab; returns (exit code, stdout, stderr)."""
    r = subprocess.run(["bash", "-c", f'source "$1"\n{script}', "bash", str(lab)], capture_output=True, text=True,
                       env={"PATH": path, "SCANLAB_NO_INSTALL": "1"})
    return r.returncode, r.stdout, r.stderr


def manifest():
    with open(REPO / "chapters" / "chapters.json", encoding="utf-8") as f:
        return json.load(f)["chapters"]


class Chapters(unittest.TestCase):
    def test_lookup_reads_the_manifest(self):
        for c in manifest():
            for arg in (c["nn"], str(int(c["nn"]))):
                rc, out, err = bash(f'chapter_lookup {arg}; echo "$CHAPTER_NN $CHAPTER_SLUG"')
                self.assertEqual((rc, out.strip()), (0, f'{c["nn"]} {c["slug"]}'), err)

    def test_unknown_chapter_lists_the_manifest(self):
        rc, _, err = bash("chapter_lookup 99")
        self.assertEqual(rc, 2)
        self.assertIn("there is no chapter 99", err)
        for c in manifest():
            self.assertIn(f'  {c["nn"]}  {c["title"]}', err)

    def test_not_a_number(self):
        rc, _, err = bash("chapter_lookup 1x")
        self.assertEqual(rc, 2)
        self.assertIn("'1x' is not a chapter number", err.strip().splitlines()[-1])

    def test_chapters_command_prints_titles_in_order(self):
        r = subprocess.run(["bash", str(REPO / "lab"), "chapters"], capture_output=True, text=True)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout.splitlines(), [f'  {c["nn"]}  {c["title"]}' for c in manifest()])

    def test_bad_manifest_is_reported_in_one_line(self):
        for text, reason in (("{not json", "Expecting property name"),
                             ('{"chapters": [{"nn": "1", "slug": "x", "title": "X"}]}', "two digits"),
                             ('{"chapters": [{"nn": "01", "title": "X"}]}', "no field 'slug'"),
                             ('{"chapters": []}', "lists no chapters")):
            with tempfile.TemporaryDirectory(prefix="scanlab-lab-") as tmp:
                shutil.copy(REPO / "lab", Path(tmp) / "lab")
                (Path(tmp) / "chapters").mkdir()
                (Path(tmp) / "chapters" / "chapters.json").write_text(text, encoding="utf-8")
                r = subprocess.run(["bash", str(Path(tmp) / "lab"), "chapters"], capture_output=True, text=True)
                self.assertEqual(r.returncode, 1, text)
                self.assertEqual(len(r.stderr.strip().splitlines()), 1, r.stderr)
                self.assertIn("lab: cannot read the chapter list chapters/chapters.json", r.stderr)
                self.assertIn(reason, r.stderr)
                self.assertEqual(r.stdout, "")


class SimOptions(unittest.TestCase):
    def parse(self, *args):
        quoted = " ".join(f"'{a}'" for a in args)
        return bash(f'sim_parse_options {quoted}; printf "env %s\\n" "${{SIM_ENV[@]}}"; '
                    f'printf "arg %s\\n" "${{SIM_ARGS[@]}}"')

    def test_options_become_variables_unjudged(self):
        rc, out, err = self.parse("--watchdog", "0.5", "--seed=-1", "--racecheck", "--thread-order", "sideways",
                                  "--compare-orders", "--memcheck", "--device-memory", "1G", "f.cu", "--n", "5")
        self.assertEqual(rc, 0, err)
        self.assertEqual(out.splitlines(), [
            "env SCANLAB_EMU_WATCHDOG=0.5", "env SCANLAB_EMU_SEED=-1", "env SCANLAB_EMU_RACECHECK=1",
            "env SCANLAB_EMU_THREAD_ORDER=sideways", "env SCANLAB_EMU_COMPARE_ORDERS=1", "env SCANLAB_EMU_MEMCHECK=1",
            "env SCANLAB_EMU_DEVICE_MEMORY=1G", "arg f.cu", "arg --n", "arg 5"])

    def test_lab_knows_every_emulator_option_and_no_other(self):
        # The emulator's option table (common/emu/src/options.cpp) is the one list; lab only maps
        # --name to SCANLAB_EMU_NAME, so its two lists must name the same options.
        import re
        source = (REPO / "common" / "emu" / "src" / "options.cpp").read_text(encoding="utf-8")
        emulator = {m.lower().replace("_", "-") for m in re.findall(r'\{"SCANLAB_EMU_([A-Z_]+)"', source)}
        rc, out, err = bash('printf "%s\\n" "${EMU_FLAG_OPTIONS[@]}" "${EMU_VALUE_OPTIONS[@]}"')
        self.assertEqual(rc, 0, err)
        self.assertEqual(set(out.split()), emulator)

    def test_double_dash_ends_the_options(self):
        rc, out, _ = self.parse("--banks", "--", "--odd-name.cu")
        self.assertEqual((rc, out.splitlines()), (0, ["env SCANLAB_EMU_BANKS=1", "arg --odd-name.cu"]))

    def test_usage_errors_end_with_the_error(self):
        for args, message in ((("--racechek", "f.cu"), "unknown emulator option '--racechek'"),
                              (("--banks=1", "f.cu"), "--banks takes no value"),
                              (("--seed",), "--seed needs a value"),
                              (("--trace", "t.jsonl", "f.cu"), "--trace is not an emulator option")):
            rc, out, err = self.parse(*args)
            self.assertEqual(rc, 2, err)
            lines = err.strip().splitlines()
            self.assertIn(message, lines[-1])
            self.assertLessEqual(len(lines), 2, err)  # a one-line pointer to the help, not the whole usage


class MpiLauncher(unittest.TestCase):
    """`lab run 12 --ranks K` on the emulator: mpirun -np K in front of the program (a stub mpirun
    here, which says which MPI it is)."""

    def launcher(self, version, *args):
        with tempfile.TemporaryDirectory(prefix="scanlab-lab-") as tmp:
            stub = Path(tmp) / "mpirun"
            stub.write_text(f"#!/bin/sh\necho '{version}'\n", encoding="utf-8")
            stub.chmod(0o755)
            quoted = " ".join(f"'{a}'" for a in args)
            return bash(f'launcher=(); mpi_launcher {quoted}; printf "%s\\n" "${{launcher[*]}}"',
                        path=f"{tmp}:/usr/bin:/bin")

    def test_ranks_start_mpirun(self):
        for args in (("--ranks", "3", "-n", "100"), ("-n", "100", "--ranks=3")):
            rc, out, err = self.launcher("mpirun (Open MPI) 4.1.4", *args)
            self.assertEqual(rc, 0, err)
            self.assertIn("mpirun -np 3 --oversubscribe", out)

    def test_no_ranks_no_launcher(self):
        rc, out, err = self.launcher("mpirun (Open MPI) 4.1.4", "-n", "100")
        self.assertEqual((rc, out.strip()), (0, ""), err)

    def test_other_mpis_get_no_open_mpi_options(self):
        rc, out, err = self.launcher("HYDRA build details:", "--ranks", "2")
        self.assertEqual((rc, out.strip()), (0, "mpirun -np 2"), err)

    def test_bad_count_is_a_usage_error(self):
        rc, _, err = self.launcher("mpirun (Open MPI) 4.1.4", "--ranks", "two")
        self.assertEqual(rc, 2)
        self.assertIn("--ranks needs a positive number", err.strip().splitlines()[-1])


class UsageErrors(unittest.TestCase):
    def test_lint_takes_only_fix(self):
        r = subprocess.run(["bash", str(REPO / "lab"), "lint", "--fixx"], capture_output=True, text=True,
                           env={"PATH": "/usr/bin:/bin", "SCANLAB_NO_INSTALL": "1"})
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn("lint: unknown option '--fixx'", r.stderr.strip().splitlines()[-1])

    def test_unknown_command(self):
        r = subprocess.run(["bash", str(REPO / "lab"), "no-such-command"], capture_output=True, text=True)
        self.assertEqual(r.returncode, 2)
        lines = r.stderr.strip().splitlines()
        self.assertEqual(len(lines), 2, r.stderr)
        self.assertIn("./lab help", lines[0])
        self.assertIn("unknown command 'no-such-command'", lines[-1])


if __name__ == "__main__":
    unittest.main()
