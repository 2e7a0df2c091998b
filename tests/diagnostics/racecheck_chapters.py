#!/usr/bin/python3
"""The race checker on the chapters (issue 44): every reference solution is clean under
--racecheck in every thread order, and a race planted in a chapter's solution is reported.

  racecheck_chapters.py --bin DIR clean NN [NN ...]
      runs DIR/chNN_slug_solution under SCANLAB_EMU_RACECHECK=1 in the forward, reverse and random
      thread orders; fails on any hazard or misuse report, or a run that does not end well.
  racecheck_chapters.py --bin DIR --emucc EMUCC planted FILE.mutant [...]
      copies the chapter's solution with the mutant applied (tests/mutants format), builds the
      chapter's driver with scanlab-emucc, runs it under the race checker, and fails unless a
      hazard names the mutated file.
"""

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tests" / "mutants"))
import mutant  # noqa: E402

ORDERS = ("forward", "reverse", "random")
# The runs of each chapter: small inputs, so that each takes a second or less under the race
# checker, and each kernel the student's code runs in (chapter 05's blocks loop over several tiles
# only when there are few blocks; chapter 09's Onesweep and chapter 08's single pass are options).
RUNS = {
    "04": [["-n", "65536"]],
    "05": [["-n", "65536", "--max-blocks", "2"], ["-n", "65536", "--algorithm", "scan-then-propagate"]],
    "06": [["-n", "65536"]],
    "07": [["-n", "65536", "--variant", v] for v in ("serial-fenced", "serial-fused", "warp-fenced", "warp-fused")],
    "08": [["-n", "65536"], ["-n", "65536", "--single-pass"]],
    "09": [["-n", "16384"], ["-n", "16384", "--algorithm", "onesweep"]],
    "10": [["-n", "65536"]],
    "11": [["-n", "65536"]],
    "12": [["-n", "65536"]],
}
HAZARD = re.compile(r"^racecheck: [a-z-]+ hazard in kernel .*$", re.M)
MISUSE = re.compile(r"^scanlab emulator: .*$", re.M)
COUNT = re.compile(r"^racecheck: kernel `.*`: (\d+) hazards?$", re.M)


def chapter_ids():
    manifest = json.loads((REPO / "chapters" / "chapters.json").read_text())
    return {c["nn"]: f'{c["nn"]}_{c["slug"]}' for c in manifest["chapters"]}


def run(program: Path, args, order: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, SCANLAB_EMU_RACECHECK="1", SCANLAB_EMU_THREAD_ORDER=order, SCANLAB_EMU_SEED="1")
    cmd = [str(program), "-r", "1", *args]
    return subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=240)


def clean(args) -> int:
    ids, failed = chapter_ids(), 0
    for nn in args.chapters:
        program = args.bin / f"ch{ids[nn]}_solution"
        for extra in RUNS.get(nn, [[]]):
            for order in ORDERS:
                p = run(program, extra, order)
                bad = HAZARD.findall(p.stdout) + MISUSE.findall(p.stdout)
                launches = len(COUNT.findall(p.stdout))
                ok = p.returncode == 0 and not bad and launches > 0
                print(f"{'ok  ' if ok else 'FAIL'} chapter {nn} {' '.join(extra)}, {order} order: {launches} launches "
                      f"checked, {len(bad)} reports, exit status {p.returncode}")
                if not ok:
                    failed += 1
                    print("\n".join(bad[:5]) or p.stdout[-2000:])
    return 1 if failed else 0


def planted(args) -> int:
    ids, failed = chapter_ids(), 0
    for path in args.mutants:
        m = mutant.parse(Path(path))
        nn = m.chapter[:2]
        with tempfile.TemporaryDirectory() as tmp:
            solution = Path(tmp) / m.chapter
            shutil.copytree(REPO / "solutions" / m.chapter, solution)
            mutant.apply(m, Path(tmp))
            exe = Path(tmp) / "driver"
            chapter = REPO / "chapters" / ids[nn]
            build = subprocess.run([str(args.emucc), str(chapter / "main.cu"), "-o", str(exe), "-I", str(solution),
                                    "-I", str(chapter), str(args.driver_lib)],
                                   stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            if build.returncode != 0:
                print(f"FAIL {m.chapter}/{m.name}: does not build\n{build.stdout[-3000:]}")
                failed += 1
                continue
            found = []
            for extra in RUNS.get(nn, [[]]):
                for order in ORDERS:
                    p = run(exe, extra, order)
                    found = [h for h in HAZARD.findall(p.stdout) if f"/{m.file}:" in h]
                    if found:
                        break
                if found:
                    break
            print(f"{'ok  ' if found else 'FAIL'} {m.chapter}/{m.name}: "
                  f"{found[0] if found else 'no hazard names ' + m.file}")
            failed += not found
    return 1 if failed else 0


def main(argv) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--bin", type=Path, required=True, help="the emulator programs' folder (build/cpu/bin/emu)")
    p.add_argument("--emucc", type=Path, help="scanlab-emucc (for 'planted')")
    p.add_argument("--driver-lib", type=Path,
                   help="libscanlab_driver.a, the drivers' command line and JSON (for 'planted')")
    sub = p.add_subparsers(dest="what", required=True)
    c = sub.add_parser("clean")
    c.add_argument("chapters", nargs="+")
    pl = sub.add_parser("planted")
    pl.add_argument("mutants", nargs="+")
    a = p.parse_args(argv)
    if a.what == "planted" and not (a.emucc and a.driver_lib):
        p.error("planted needs --emucc and --driver-lib")
    return clean(a) if a.what == "clean" else planted(a)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
