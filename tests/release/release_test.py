#!/usr/bin/env python3
"""The repository a class receives (`./lab release`, release/make_release.py), made the way an
instructor makes it: into a new `mktemp -d` folder (mode 0700), from this checkout's HEAD, with a
small chapter range (--chapters 00-02) to keep it cheap.

  release_test.py tree      what is in it and what is not: one commit by "scanlab release"; no
                            solutions/, instructor edition, mutants, hostile corpus or grader
                            tests; the chapters handed out only (manifest, book nav, pages, tests,
                            figures, traces, plots); no library file that holds the answer of a
                            chapter when no chapter handed out needs it (chapter 07's look-back);
                            the student README stands alone and names no solutions/; no line of a
                            solution's TODO region in the tree or in its built book (mkdocs
                            --strict, when mkdocs is here); what needs a solution says so; bad
                            arguments are refused in one line (seconds)
  release_test.py devcontainer
                            .devcontainer/devcontainer.json parses (JSON with comments), names a
                            Debian image and runs the lab's own install step, `./lab setup`, which
                            lab has (no package list of its own, no CUDA)
  release_test.py grade     the release's grader, grading tests and build, as root in that 0700
                            folder: chapter 00's stub scores zero and the reference solution copied
                            in scores full marks (the grader builds its runtime in the release:
                            about 3 minutes on 2 cores)
  release_test.py configure a release of every chapter (no --chapters) configures (`cmake --preset cpu`):
                            no chapter asks for a solution's target in a student's repository
                            (seconds)
  release_test.py self-test the release's own `./lab test`, as root, on a fresh clone of it in that
                            0700 folder: the lab's own tests pass and the score is printed; then
                            the stub and the solution graded there as above (a whole build of the
                            lab: see tests/release/CMakeLists.txt for its time)

Standard library only.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
CHAPTERS = "00-02"
KEPT = ["00", "01", "02"]
failures: list[str] = []


def check(ok: bool, what: str) -> None:
    print(f"  {'ok  ' if ok else 'FAIL'} {what}")
    if not ok:
        failures.append(what)


def run(cmd: list[str], cwd: Path = REPO, env: dict | None = None, timeout: int = 600) -> subprocess.CompletedProcess:
    return subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=timeout,
                          env=dict(os.environ, **(env or {})), stdin=subprocess.DEVNULL)


def make_release(parent: Path, chapters: str | None = CHAPTERS) -> Path:
    """A release in a new folder under `parent` (a mktemp -d folder: 0700); chapters None: all."""
    dest = parent / "scanlab-class"
    t0 = time.monotonic()
    p = run([sys.executable, str(REPO / "release" / "make_release.py"), str(dest),
             *(["--chapters", chapters] if chapters else [])])
    print(p.stdout + p.stderr, end="")
    if p.returncode != 0:
        sys.exit(f"release_test: ./lab release failed (exit {p.returncode})")
    print(f"release_test: made the release in {time.monotonic() - t0:.1f} s")
    return dest


def manifest(root: Path) -> list[dict]:
    return json.loads((root / "chapters" / "chapters.json").read_text(encoding="utf-8"))["chapters"]


def test_tree(dest: Path) -> None:
    log = run(["git", "log", "--format=%an|%s"], cwd=dest).stdout.strip().splitlines()
    check(len(log) == 1 and log[0].startswith("scanlab release|"), f"one commit by 'scanlab release' ({log})")
    check(run(["git", "status", "--porcelain"], cwd=dest).stdout == "", "the commit holds the whole tree")
    for gone in ("solutions", "book/mkdocs-instructor.yml", "book/docs/instructors.md", "tests/mutants",
                 "tests/grader", "tests/platforms", "release", "docs/ARCHITECTURE.md"):
        check(not (dest / gone).exists(), f"no {gone}")
    ours = [c for c in manifest(REPO) if c["nn"] in KEPT]
    others = [c for c in manifest(REPO) if c["nn"] not in KEPT]
    check([c["nn"] for c in manifest(dest)] == KEPT, f"chapters.json lists {KEPT} only")
    for c in ours:
        cid = f"{c['nn']}_{c['slug']}"
        for path in (f"chapters/{cid}", f"exercises/{cid}", f"tests/grade/{cid}.cu", f"book/docs/{c['page']}"):
            check((dest / path).exists(), f"has {path}")
        for name in c["files"]:
            same = (dest / "exercises" / cid / name).read_bytes() == (REPO / "exercises" / cid / name).read_bytes()
            check(same and (dest / "book/stubs" / cid / name).is_file(), f"exercises/{cid}/{name}: the stub, "
                  "and its copy for the book in book/stubs/")
    for c in others:
        cid = f"{c['nn']}_{c['slug']}"
        left = [p for p in (f"chapters/{cid}", f"exercises/{cid}", f"tests/grade/{cid}.cu", f"book/docs/{c['page']}")
                if (dest / p).exists()]
        left += [p.relative_to(dest).as_posix() for p in sorted((dest / "tests/chapters").glob(f"ch{c['nn']}_*"))]
        check(not left, f"chapter {c['nn']} left out ({left or 'nothing of it'})")
    # The book's figures, the players' traces and the plots are named chNN_... after their chapter.
    figures = {p.relative_to(REPO).as_posix(): m[1] for p in sorted((REPO / "book/docs/figures").rglob("ch*"))
               if (m := re.match(r"ch([0-9]{2})_", p.name)) and p.is_file()}
    extra = [f for f, nn in figures.items() if nn not in KEPT and (dest / f).exists()]
    check(not extra, f"no figure, trace or plot of a chapter not handed out ({extra or 'none'})")
    lost = [f for f, nn in figures.items() if nn in KEPT and not (dest / f).is_file()]
    check(not lost, f"the figures, traces and plots of chapters {KEPT} ({lost or 'all there'})")
    workflow = dest / ".github/workflows/classroom.yml"
    text = workflow.read_text(encoding="utf-8") if workflow.is_file() else ""
    graded = sorted(set(re.findall(r"--chapters ([0-9]{2})\b", text)))
    check(graded == KEPT, f"GitHub Classroom's workflow grades chapters {KEPT} ({graded})")
    nav = re.findall(r'^\s*-\s*"([0-9]{2}) ·', (dest / "book/mkdocs.yml").read_text(encoding="utf-8"), re.M)
    check(nav == KEPT, f"the book's nav lists chapters {KEPT} ({nav})")

    readme = (dest / "README.md").read_text(encoding="utf-8")
    check("solutions/" not in readme and "--solution" not in readme, "README.md names no solutions/")
    for words in ("./lab tour", "./lab test", "./lab grade --chapters", "BEGIN TODO", ".devcontainer"):
        check(words in readme, f"README.md tells the student about {words}")
    for page in sorted((dest / "book/docs/chapters").glob("*.md")):
        opening = page.read_text(encoding="utf-8").split("\n## ", 1)[0]
        check("solutions/" not in opening, f"{page.name}: its opening names no solutions/")
    for readme in sorted((dest / "chapters").glob("*/README.md")):
        text = readme.read_text(encoding="utf-8")
        check("solutions/" not in text and not re.search(r"--solution\b|_solution\b", text),
              f"chapters/{readme.parent.name}/README.md names no solutions/, --solution or reference program")

    p = run([sys.executable, "-B", str(REPO / "book/tests/solution_code.py"), "--tree", str(dest)])
    print(p.stdout, end="")
    check(p.returncode == 0, "no line of a solution's TODO region in the tree")
    # Chapter 07's answer in the library (release/make_release.py, ANSWERS_IN_LIBRARY): no chapter
    # handed out here needs it, so the release has neither it nor what quotes it, and its lines in
    # any other file would be found (they are an answer here, not given code).
    sys.path.insert(0, str(REPO / "release"))
    import make_release
    lookback = "common/include/scanlab/single_pass/lookback.cuh"
    quoting = [lookback] + [f.relative_to(REPO).as_posix()
                            for pattern in make_release.ANSWERS_IN_LIBRARY[lookback]["with"]
                            for f in sorted(REPO.glob(pattern))]
    check(len(quoting) > 3 and not [q for q in quoting if (dest / q).exists()],
          f"no {lookback} (chapter 07's answer), its test or the A/B programs that quote it")
    planted = dest / "notes" / "lookback_copy.txt"
    planted.parent.mkdir()
    planted.write_text((REPO / lookback).read_text(encoding="utf-8"), encoding="utf-8")
    p = run([sys.executable, "-B", str(REPO / "book/tests/solution_code.py"), "--tree", str(dest)])
    shutil.rmtree(planted.parent)
    check(p.returncode == 1 and "notes/lookback_copy.txt" in p.stdout and "07_decoupled_lookback" in p.stdout,
          "a copy of the library's look-back planted in the release is found as chapter 07's answer")
    check(make_release.answers_left_out(["00", "07"]) == [lookback] and
          make_release.answers_left_out(["07", "08"]) == [] and make_release.answers_left_out(["12"]) == [],
          "a release holds the library's look-back exactly when it hands out a chapter after 07")
    if shutil.which("mkdocs"):
        site = dest.parent / "site"
        p = run(["mkdocs", "build", "--strict", "-q", "-f", str(dest / "book/mkdocs.yml"), "-d", str(site)])
        check(p.returncode == 0, f"the student book builds with --strict\n{p.stdout}{p.stderr}")
        if p.returncode == 0:
            page = (site / "chapters/01-hillis-steele/index.html").read_text(encoding="utf-8")
            check("The listings of your files" in page, "a chapter page says its listings are the stubs")
            p = run([sys.executable, "-B", str(REPO / "book/tests/solution_code.py"), "--site", str(site)])
            print(p.stdout, end="")
            check(p.returncode == 0, "no line of a solution's TODO region in the built book")
            p = run([sys.executable, "-B", str(REPO / "book/tests/solution_commands.py"), "--site", str(site)])
            print(p.stdout, end="")
            check(p.returncode == 0, "no command in the built book that needs solutions/")
    else:
        print("  (mkdocs is not installed: the release's book is not built)")

    # What needs a solution says so, in one line, before building anything.
    for args, words in ((["run", "00", "--solution"], "run --solution needs the reference solutions"),
                        (["figures"], "figures (they are drawn from their runs) needs the reference"),
                        (["book", "--instructor"], "book --instructor (the instructor edition) needs the reference"),
                        (["release", str(dest.parent / "again")], "this is a student's repository")):
        p = run(["bash", str(dest / "lab"), *args], cwd=dest, env={"SCANLAB_NO_INSTALL": "1"}, timeout=60)
        check(p.returncode != 0 and words in p.stderr, f"./lab {' '.join(args[:2])} in the release: "
              f"'{p.stderr.strip().splitlines()[-1] if p.stderr.strip() else ''}'")
    # ...and its help does not offer it (lab's usage: the lines marked "|").
    p = run(["bash", str(dest / "lab"), "help"], cwd=dest, env={"SCANLAB_NO_INSTALL": "1"}, timeout=60)
    offered = [w for w in ("--solution", "--instructor", "  figures", "  release") if w in p.stdout]
    offered += [line for line in p.stdout.splitlines() if line.startswith("|")]
    check(p.returncode == 0 and not offered,
          f"./lab help in the release offers nothing that needs solutions/ ({offered or 'nothing'})")
    # make_release's own refusals.
    for args, words in ((["--chapters", "00-99"], "there is no chapter 13"),
                        (["--chapters", "x"], "is not a chapter number"),
                        (["--chapters", "03-01"], "ends before it starts")):
        p = run([sys.executable, str(REPO / "release/make_release.py"), str(dest.parent / "bad"), *args])
        check(p.returncode == 2 and words in p.stderr and "Traceback" not in p.stderr,
              f"--chapters {args[1]} is refused: {p.stderr.strip()}")
    p = run([sys.executable, str(REPO / "release/make_release.py"), str(dest)])
    check(p.returncode == 2 and "not an empty folder" in p.stderr, "a folder that is not empty is refused")


def jsonc(text: str) -> dict:
    """JSON with // and /* */ comments (devcontainer.json's format); strings are left alone."""
    out, i = [], 0
    while i < len(text):
        if text[i] == '"':
            j = i + 1
            while text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            out.append(text[i:j + 1])
            i = j + 1
        elif text.startswith("//", i):
            i = text.find("\n", i) if "\n" in text[i:] else len(text)
        elif text.startswith("/*", i):
            i = text.index("*/", i) + 2
        else:
            out.append(text[i])
            i += 1
    return json.loads("".join(out))


def test_devcontainer(dest: Path) -> None:
    path = dest / ".devcontainer" / "devcontainer.json"
    check(path.is_file(), ".devcontainer/devcontainer.json is in the release")
    config = jsonc(path.read_text(encoding="utf-8"))
    image = config.get("image", "")
    check(re.search(r"(debian|devcontainers/base):(bookworm|12)", image) is not None, f"a Debian image ({image})")
    check(config.get("postCreateCommand") == "./lab setup", "it installs with the lab's own step, ./lab setup "
          f"({config.get('postCreateCommand')!r})")
    check("cuda" not in json.dumps(config).lower(), "no CUDA")
    p = run(["bash", "-c", 'source "$1"; declare -F cmd_setup && ./lab help', "bash", str(dest / "lab")], cwd=dest)
    check(p.returncode == 0 and "  setup " in p.stdout, "lab has the setup command and lists it")
    # One package list: `lab setup` installs lab's lists, which `./lab packages` prints.
    p = run(["bash", "-c", 'source "$1"; ensure_packages() { echo "$1 $2"; }; cmd_setup 2>/dev/null', "bash",
             str(dest / "lab")], cwd=dest, env={"SCANLAB_PRESET": "cpu"})
    installed = set(p.stdout.split())
    listed = {line.split()[1] for line in run(["bash", str(dest / "lab"), "packages"], cwd=dest).stdout.splitlines()
              if not line.startswith("lint ")}
    check(listed <= installed,
          f"./lab setup installs every package of lab's lists ({sorted(listed - installed)} missing)")
    # Open MPI serves chapter 12 alone, which this release leaves out.
    readme = (dest / "README.md").read_text(encoding="utf-8")
    check("openmpi" not in " ".join(sorted(installed)) and "openmpi" not in readme,
          "without chapter 12, ./lab setup installs no Open MPI and README.md names none")


def grade(dest: Path, exercises: Path, build_dir: Path | None) -> dict:
    """Chapter 00 of `exercises`, graded by the release's grader (its build: `build_dir`, or the
    grader's own under the release)."""
    build = ["--build-dir", str(build_dir)] if build_dir else []
    p = run([sys.executable, "-m", "scanlab_grade", "--chapters", "00", "--exercises", str(exercises),
             *build, "--report", "json", "--scratch", str(dest.parent)],
            cwd=dest, env={"PYTHONPATH": str(dest / "grader")}, timeout=900)
    if p.returncode != 0:
        print(p.stdout + p.stderr)
        sys.exit(f"release_test: the release's grader failed (exit {p.returncode})")
    return json.loads(p.stdout)


def test_grade(dest: Path, build_dir: Path | None = None) -> None:
    t0 = time.monotonic()
    r = grade(dest, dest / "exercises", build_dir)
    statuses = [c["status"] for c in r["chapters"]]
    check(r["points"] > 0 and r["score"] == 0 and statuses == ["graded"],
          f"the stub compiles and scores zero: {r['score']} of {r['points']} ({statuses}, "
          f"{time.monotonic() - t0:.0f} s)")
    solved = dest.parent / "solved"
    shutil.copytree(dest / "exercises", solved)
    shutil.copytree(REPO / "solutions" / "00_sequential", solved / "00_sequential", dirs_exist_ok=True)
    r = grade(dest, solved, build_dir)
    check(r["points"] > 0 and r["score"] == r["points"], f"the solution copied in scores full marks: "
          f"{r['score']} of {r['points']}")


def test_configure(dest: Path) -> None:
    """A release of every chapter configures: what a chapter's CMake registers for the reference
    solution only (its targets, the tests that run them) must not be asked for without it."""
    p = run(["cmake", "--preset", "cpu"], cwd=dest, env={"SCANLAB_NO_INSTALL": "1"}, timeout=600)
    errors = [line for line in (p.stdout + p.stderr).splitlines() if "CMake Error" in line or "No target" in line]
    check(p.returncode == 0, f"a release of every chapter configures (cmake --preset cpu): {errors[:4] or 'no error'}")
    check((dest / "common/include/scanlab/single_pass/lookback.cuh").is_file() and
          (dest / "tests/common/single_pass_test.cu").is_file(),
          "it holds the library's look-back and its test (chapters 08-12 need them)")


def test_self(dest: Path) -> None:
    clone = dest.parent / "clone"
    check(run(["git", "clone", "-q", str(dest), str(clone)]).returncode == 0, "the release clones")
    t0 = time.monotonic()
    p = subprocess.run(["./lab", "test"], cwd=clone, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True, timeout=3600)
    print(p.stdout[-6000:])
    print(f"release_test: the release's ./lab test took {time.monotonic() - t0:.0f} s")
    check(p.returncode == 0, "the release's own ./lab test passes")
    check(re.search(r"100% tests passed", p.stdout) is not None, "every ctest of the release passes")
    check(re.search(r"score|Score", p.stdout) is not None, "it prints the score of the exercises")
    viz = clone / "build" / "cpu" / "bin" / "scanlab-viz"
    if viz.is_file():  # built where Graphviz is (visualizer/CMakeLists.txt)
        p = run([str(viz), "--help"], cwd=clone, timeout=60)
        check(p.returncode == 0 and "--solution" not in p.stdout, "scanlab-viz --help offers no --solution")
    test_grade(clone, clone / "build" / "cpu")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("what", choices=["tree", "devcontainer", "grade", "self-test", "configure"])
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder and say where it is")
    a = parser.parse_args()
    top = run(["git", "rev-parse", "--show-toplevel"]).stdout.strip()
    if not top or Path(top).resolve() != REPO:
        print(f"release_test: skipped: {REPO} is not a git checkout (a release is made from one)")
        return 77
    parent = Path(tempfile.mkdtemp(prefix="scanlab-release-"))  # mode 0700, as mktemp -d makes it
    try:
        t0 = time.monotonic()
        dest = make_release(parent, None if a.what == "configure" else CHAPTERS)
        {"tree": lambda: test_tree(dest), "devcontainer": lambda: test_devcontainer(dest),
         "grade": lambda: test_grade(dest), "self-test": lambda: test_self(dest),
         "configure": lambda: test_configure(dest)}[a.what]()
        print(f"release_test {a.what}: {time.monotonic() - t0:.0f} s in all")
    finally:
        if a.keep:
            print(f"release_test: kept {parent}")
        else:
            shutil.rmtree(parent, ignore_errors=True)
    if failures:
        print(f"release_test {a.what}: {len(failures)} check(s) FAILED")
        return 1
    print(f"release_test {a.what}: all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
