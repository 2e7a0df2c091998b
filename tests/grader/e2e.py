#!/usr/bin/python3
# End-to-end checks of the grader, run by ctest: each scenario makes a student folder the way a
# student or an instructor would (a copy of exercises/, with solutions, a mutant, a syntax error or
# a hang put in), grades it with scanlab_grade.py into a JSON report, and checks the scores.
# Every scenario shares one grader build folder (the ctest fixture `grader_prepare` configures it
# and builds the checkers and the emulator once; the scenarios then share it).
#
#   e2e.py --work DIR prepare | stubs | solutions | broken | hang | mutant FILE.mutant
"""End-to-end scenarios for scanlab_grade.py (see tests/grader/CMakeLists.txt)."""

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import List

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
GRADER = REPO / "grader"
sys.path.insert(0, str(REPO / "tests" / "mutants"))
sys.path.insert(0, str(GRADER))

import mutant  # noqa: E402
from scanlab_grade.build import COMPILE_ERROR_LINES  # noqa: E402
from scanlab_grade.chapters import declared_tests  # noqa: E402
from scanlab_grade.cli import EXTENSIONS  # noqa: E402

GRADE = [sys.executable, "-m", "scanlab_grade"]
BUILD_DIR = None  # --build-dir; None: WORK/build
GRADE_ENV = dict(os.environ, PYTHONPATH=str(GRADER))

failures: List[str] = []


def expect(ok: bool, what: str, quiet: bool = False) -> None:
    if not ok or not quiet:
        print(("ok    " if ok else "FAIL  ") + what, flush=True)
    if not ok:
        failures.append(what)


def grade(work: Path, folder: Path, *args: str, report: str = "json") -> subprocess.CompletedProcess:
    out = work / f"{folder.name}.{EXTENSIONS[report]}"
    cmd = [*GRADE, "--build-dir", str(BUILD_DIR or work / "build"),
           "--exercises", str(folder), "--report", report, "--out", str(out), *args]
    print("+ " + " ".join(cmd), flush=True)
    t0 = time.monotonic()
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=GRADE_ENV)
    print(p.stdout, end="", flush=True)
    print(f"(graded in {time.monotonic() - t0:.1f} s, exit status {p.returncode})", flush=True)
    if p.returncode != 0:
        raise SystemExit(f"the grader failed (exit status {p.returncode})")
    p.report_path = out
    p.report = out.read_text()
    return p


def check_json(text: str) -> dict:
    """Parses a JSON report and checks that it is complete and adds up."""
    r = json.loads(text)
    q = True
    for key in ("seed", "chapters", "score", "points"):
        expect(key in r, f"JSON report has '{key}'", q)
    expect(r["score"] == sum(c["score"] for c in r["chapters"]), "JSON total score = sum of chapters", q)
    expect(r["points"] == sum(c["points"] for c in r["chapters"]), "JSON total points = sum of chapters", q)
    for c in r["chapters"]:
        for key in ("chapter", "score", "points", "tests", "status"):
            expect(key in c, f"chapter {c.get('chapter')} has '{key}'", q)
        expect(c["score"] == sum(t["score"] for t in c["tests"]), f"chapter {c['chapter']}: score = sum of tests", q)
        expect(c["points"] == sum(t["points"] for t in c["tests"]), f"chapter {c['chapter']}: points = sum of tests", q)
        expect(c["points"] > 0 and len(c["tests"]) > 0, f"chapter {c['chapter']}: has tests and points", q)
        for t in c["tests"]:
            expect(t["score"] in (0, t["points"]) and (t["score"] == t["points"]) == t["passed"],
                   f"chapter {c['chapter']} test '{t['name'][:50]}': score is all or nothing", q)
            if not t["passed"]:
                expect(bool(t["message"]), f"failed test '{t['name'][:50]}' says why", q)
    expect(True, f"the JSON report is valid and adds up: {r['score']} of {r['points']}")
    return r


def check_junit(text: str, r: dict) -> None:
    """Parses a JUnit report and checks it against the JSON report of the same folder."""
    root = ET.fromstring(text)
    expect(root.tag == "testsuites", "JUnit root is <testsuites>")
    suites = root.findall("testsuite")
    expect([s.get("name") for s in suites] == [f"{c['chapter']}_{c['slug']}" for c in r["chapters"]],
           "JUnit has one <testsuite> per chapter")
    for s, c in zip(suites, r["chapters"], strict=False):  # a missing suite fails the check above
        cases = [tc for tc in s.findall("testcase") if tc.get("name") != "build"]
        expect([tc.get("name") for tc in cases] == [t["name"] for t in c["tests"]],
               f"JUnit suite {s.get('name')} lists every test case")
        failed = sum(1 for tc in cases if tc.find("failure") is not None)
        expect(failed == (sum(1 for t in c["tests"] if not t["passed"]) if c["status"] == "graded" else 0),
               f"JUnit suite {s.get('name')}: <failure> per failed test")
        expect(int(s.get("failures")) == failed, f"JUnit suite {s.get('name')}: failures attribute")
        if c["status"] == "compile_error":
            err = s.find("testcase[@name='build']/error")
            expect(err is not None and bool((err.text or "").strip()),
                   f"JUnit suite {s.get('name')}: <error> with the compiler output")


def chapter(r: dict, nn: str) -> dict:
    return next(c for c in r["chapters"] if c["chapter"] == nn)


def solutions_folder(work: Path, name: str) -> Path:
    """A copy of exercises/ with the reference solutions put in, as a student who finished would have."""
    folder = work / name
    shutil.rmtree(folder, ignore_errors=True)
    shutil.copytree(REPO / "exercises", folder)
    shutil.copytree(REPO / "solutions", folder, dirs_exist_ok=True)
    return folder


def replace_once(path: Path, find: str, replace: str) -> None:
    text = path.read_text()
    if text.count(find) != 1:
        raise SystemExit(f"{path}: '{find}' occurs {text.count(find)} times, not once")
    path.write_text(text.replace(find, replace))


# ---- scenarios ---------------------------------------------------------------------------------


def scenario_prepare(work: Path, _args) -> None:
    build = Path(BUILD_DIR or work / "build")
    cmd = [*GRADE, "--build-dir", str(build), "--prepare"]
    print("+ " + " ".join(cmd), flush=True)
    subprocess.run(cmd, check=True, env=GRADE_ENV)
    # The runners' precompiled prelude must be usable with the flags runners are compiled with: g++
    # would otherwise read the headers as text, right but without the time it is there to save.
    prelude = build / "common" / "emu" / "runner-pch" / "scanlab_runner_prelude.hpp"
    program = work / "prelude_check.cu"
    program.write_text("int main() { return 0; }\n")
    cmd = [str(build / "bin" / "scanlab-emucc"), str(program), "-o", str(work / "prelude_check"),
           "-include", str(prelude), "-Winvalid-pch", "-Werror=invalid-pch"]
    print("+ " + " ".join(cmd), flush=True)
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    print(p.stdout, end="", flush=True)
    expect(p.returncode == 0, "the runners' precompiled prelude is used by a runner's compile")
    # Nor does the prelude read the JSON library: a runner is compiled for every student graded,
    # and merely including nlohmann/json.hpp costs each compile more than a second (runner.hpp).
    deps = prelude.with_name(prelude.name + ".d")
    expect(deps.is_file() and "nlohmann" not in deps.read_text(),
           f"the runners' prelude does not include the JSON library ({deps.name})")


def scenario_stubs(work: Path, _args) -> None:
    folder = work / "stubs"
    shutil.rmtree(folder, ignore_errors=True)
    shutil.copytree(REPO / "exercises", folder)
    # The default order only: a test that fails there fails real grading, which runs every order.
    r = check_json(grade(work, folder, "--orders", "default").report)
    expect(r["points"] > 0 and r["score"] == 0, f"untouched exercises score 0 of {r['points']}")
    for c in r["chapters"]:
        expect(c["status"] == "graded", f"stub chapter {c['chapter']} compiles and runs")
        expect(c["score"] == 0 and not any(t["passed"] for t in c["tests"]),
               f"stub chapter {c['chapter']}: every test fails")


def scenario_solutions(work: Path, args) -> None:
    # One chapter per ctest (grade_NN_slug_solution_emu), so that they run side by side and a
    # failure names its chapter. One order, the default: the other order a class is graded in
    # (reverse) adds a thread order, and the block orders of the tests that don't choose their own.
    # Both are covered elsewhere: the chapters' programs run race-free in every thread order
    # (racecheck_clean_chNN), and the grading tests whose outcome can depend on the block order run
    # in order, reversed and shuffled (for_each_block_order). The second order doubled these tests'
    # time: the thirteen of them took 184 s on two cores with both orders, 98 s with this one.
    chapters = ["--chapters", args.chapters] if args.chapters else []
    folder = solutions_folder(work, "solutions" + (f"-{args.chapters}" if args.chapters else ""))
    r = check_json(grade(work, folder, *chapters, "--orders", "default").report)
    expect(r["score"] == r["points"] > 0, f"the solutions score full marks: {r['score']} of {r['points']}")
    for c in r["chapters"]:
        declared = declared_tests(REPO / "tests" / "grade" / f"{c['chapter']}_{c['slug']}.cu")
        expect([(t.name, t.points) for t in declared] == [(t["name"], t["points"]) for t in c["tests"]],
               f"chapter {c['chapter']}: the points declared in the source are the points the program reports")


def scenario_broken(work: Path, _args) -> None:
    """Chapter 01 does not compile; chapter 00 (solved) must still be graded. Also checks that
    every report format is valid and complete for it."""
    folder = solutions_folder(work, "broken")
    header = folder / "01_hillis_steele" / "hillis_steele.cuh"
    replace_once(header, "namespace ch01 {", "namespace ch01 {\nthis line is not C++;")
    p = grade(work, folder, "--chapters", "00,01")
    r = check_json(p.report)
    c0, c1 = chapter(r, "00"), chapter(r, "01")
    expect(c1["status"] == "compile_error" and c1["score"] == 0, "the chapter that does not compile scores 0")
    expect(c1["points"] > 0, "... and still shows the points it was worth")
    err = c1["compile_error"] or ""
    expect("error" in err and "hillis_steele.cuh" in err, "... with the compiler's error")
    expect(str(folder) in err and "scanlab-grade-" not in err,
           "... naming the student's file, not the grader's copy")
    expect(len(err.splitlines()) <= COMPILE_ERROR_LINES, "... in at most 20 lines")
    expect(c0["status"] == "graded" and c0["score"] == c0["points"], "the other chapter is graded (full marks)")
    # The other formats of the same grade, chapter 01 only (the JSON report above holds both; grading
    # chapter 00 again would only repeat the build and the run).
    only_01 = dict(r, chapters=[c1])
    check_junit(grade(work, folder, "--chapters", "01", "--seed", str(r["seed"]), report="junit").report, only_01)
    text = grade(work, folder, "--chapters", "01", "--seed", str(r["seed"]), report="text").report
    expect("does not compile" in text and f"--seed {r['seed']}" in text and "total" in text,
           "the text report shows the compile error, the replay seed and the total")


def scenario_hang(work: Path, _args) -> None:
    """A host loop that never ends (killed by the per-test time limit) and a kernel that spins
    (ended by the emulator) each fail their tests, and the other tests are still graded."""
    folder = solutions_folder(work, "hang")
    header = folder / "00_sequential" / "sequential_scan.cuh"
    # The host inclusive scan hangs for the max monoid (one test case uses it on the host).
    replace_once(header, "void sequential_inclusive_scan(const T* in, T* out, std::size_t n, Op op) {\n"
                         "  // BEGIN TODO\n",
                 "void sequential_inclusive_scan(const T* in, T* out, std::size_t n, Op op) {\n"
                 "  // BEGIN TODO\n"
                 "  if constexpr (std::is_same_v<Op, scanlab::Max<T>>) {\n"
                 "    volatile bool forever = true;\n"
                 "    while (forever) {\n"
                 "    }\n"
                 "  }\n")
    header.write_text("#include <type_traits>\n" + header.read_text())
    # The one-thread exclusive kernel spins without touching memory for n == 1000.
    replace_once(header, "  if (blockIdx.x != 0 || threadIdx.x != 0) return;\n  T running = Op::identity();\n",
                 "  if (blockIdx.x != 0 || threadIdx.x != 0) return;\n"
                 "  volatile unsigned spin = 1;  // odd, so never 0\n"
                 "  while (n == 1000 && spin != 0) spin = spin + 2;\n"
                 "  T running = Op::identity();\n")
    t0 = time.monotonic()
    r = check_json(grade(work, folder, "--chapters", "00", "--orders", "default", "--timeout", "4").report)
    took = time.monotonic() - t0
    c = chapter(r, "00")
    by_name = {t["name"]: t for t in c["tests"]}
    max_test = next(t for n, t in by_name.items() if n.startswith("host scans use the monoid's identity"))
    expect(not max_test["passed"] and "timed out" in (max_test["message"] or ""),
           f"the hanging host test is killed and says so: {max_test['message']}")
    spin = [t for n, t in by_name.items() if n.startswith("one-thread GPU exclusive")][0]
    expect(not spin["passed"], f"the spinning kernel's test fails: {spin['message']}")
    incl = [t for n, t in by_name.items() if n.startswith("one-thread GPU inclusive")][0]
    host = [t for n, t in by_name.items() if n.startswith("host exclusive")][0]
    expect(incl["passed"] and host["passed"], "tests that do not hang still pass")
    expect(took < 120, f"nothing hangs: graded in {took:.0f} s")


def scenario_mutant(work: Path, args) -> None:
    m = mutant.parse(Path(args.mutant))
    folder = solutions_folder(work, f"mutant-{m.chapter}-{m.name}")
    mutant.apply(m, folder)
    nn = m.chapter.split("_")[0]
    # One order unless the mutant names others: real grading runs the default order among others and
    # a test must pass in every order, so a mutant the default order catches fails real grading too;
    # a bug only another order shows says so in its `orders:` line. (Half the grading time, in CI.)
    extra = ["--orders", m.orders or "default"]
    # Only the test cases the mutant names: one of them failing costs points in a full grade too.
    for name in m.tests:
        extra += ["--test", name]
    r = check_json(grade(work, folder, "--chapters", nn, *extra).report)
    c = chapter(r, nn)
    failed = [t for t in c["tests"] if not t["passed"]]
    expect(c["status"] == "graded",
           f"mutant {m.chapter}/{m.name} compiles (a mutant is a wrong program, not a broken one)")
    expect(c["score"] < c["points"], f"mutant {m.chapter}/{m.name} loses points: {c['score']} of {c['points']}, "
                                     f"{len(failed)} of {len(c['tests'])} tests fail")
    for t in failed:
        print(f"      caught by: {t['name']}  [{t['order'] or ''}]  {(t['message'] or '')[:160]}")
    if m.mentions:
        expect(any(m.mentions in (t["message"] or "") for t in failed),
               f"mutant {m.chapter}/{m.name}: a failing test's message says '{m.mentions}'")


def main(argv: List[str]) -> int:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--work", type=Path, required=True, help="folder for the student folders (and the grader build)")
    p.add_argument("--build-dir", type=Path,
                   help="the grader's build folder (default: WORK/build); ctest passes its own build tree")
    p.add_argument("scenario", choices=["prepare", "stubs", "solutions", "broken", "hang", "mutant"])
    p.add_argument("mutant", nargs="?", help="with 'mutant': the .mutant file")
    p.add_argument("--chapters", help="with 'solutions': the chapters to grade (default: all)")
    a = p.parse_args(argv)
    a.work.mkdir(parents=True, exist_ok=True)
    global BUILD_DIR
    BUILD_DIR = a.build_dir.resolve() if a.build_dir else None
    if a.scenario == "mutant" and not a.mutant:
        p.error("mutant needs a .mutant file")
    globals()[f"scenario_{a.scenario}"](a.work.resolve(), a)
    if failures:
        print(f"\n{len(failures)} check(s) failed:\n  " + "\n  ".join(failures))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
