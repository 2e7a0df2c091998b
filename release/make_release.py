#!/usr/bin/env python3
"""Makes the repository a class receives (`./lab release DEST [--chapters 00-07]`): a fresh git
repository with one commit that holds the given code, the exercises as stubs, the grading tests,
the lab's own tests that need no solution, the student edition of the book and a README written for
students, and nothing of solutions/, the instructor edition, the mutants or the hostile corpus.

What goes in is the files of the commit checked out here (HEAD: uncommitted changes are not in it,
and the release's commit message names the commit), less LEFT_OUT, the chapters not chosen and the
library's answers that no chosen chapter needs (ANSWERS_IN_LIBRARY); then
a few files are written for the student's repository (make_release, "Written for the student's
repository").
Without solutions/ the build, `lab` and the book switch to the student's repository on their own
(cmake/ScanlabChapters.cmake: SCANLAB_HAVE_SOLUTIONS; lab: have_solutions). At the end the tree is
checked for the solutions' code (book/tests/solution_code.py) and a leak fails the release.

Standard library only; run with any python3 >= 3.9.
"""

from __future__ import annotations

import argparse
import fnmatch
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
AUTHOR = ("scanlab release", "release@scanlab.invalid")

# Left out of every release, each with the reason (a path ending in "/" is a folder).
LEFT_OUT = {
    "solutions/": "the answers",
    "tests/mutants/": "planted bugs in the solutions",
    "tests/diagnostics/planted_races/": "races planted in the solutions",
    "tests/grader/": "the grader's own tests: they grade the solutions and the hostile corpus",
    "tests/exercises/": "compares the exercises with the solutions",
    "tests/gpu/": "the GPU checks behind the book's measured figures: they run the solutions",
    "tests/lint/": "would judge the layout of the student's own code as a failure of the lab",
    "tests/platforms/": "the course platforms' tests: they grade the solutions, the mutants and the hostile corpus",
    "book/mkdocs-instructor.yml": "the instructor edition",
    "docs/ARCHITECTURE.md": "the lab's developers' guide (solutions/, mutants, how to add a chapter)",
    "release/": "this tool",
}
# Library files that hold a chapter's answer, with the chapters that build on them. The chapters
# after chapter 07 need a look-back that works whatever the state of the student's own, so the
# library carries one (chapter 07's page says so). A release holds such a file only when it hands
# out one of the chapters that need it (hand those out after the answered chapter is done), and
# otherwise leaves out the file and what quotes it: the library's own test of it and the A/B
# programs behind the book's measurements (fnmatch patterns). book/tests/solution_code.py reads
# this list too: in a tree without the file, its lines are an answer, not given code.
ANSWERS_IN_LIBRARY = {
    "common/include/scanlab/single_pass/lookback.cuh": {
        "answers": "07",
        "needed_by": ("08", "09", "10", "11", "12"),
        "with": ("tests/common/single_pass_test.cu", "book/docs/measurements/*/programs.diff",
                 "book/docs/measurements/*/make_variants.py.txt"),
    },
}
# The book's figures, the players' traces and the plots are named chNN_... after their chapter
# (book/figures.py: chapter_of); those of the chapters not handed out are left out with them.
FIGURE_FOLDERS = ("book/docs/figures/", "book/docs/figures/src/", "book/docs/figures/traces/",
                  "book/docs/figures/plots/")
STUBS = "book/stubs"  # the stubs as handed out, which the book lists (book/hooks/snippets.py)


class ReleaseError(Exception):
    """A release that cannot be made; the message says why."""


def head_commit(repo: Path) -> tarfile.TarFile:
    """HEAD's files, as a tar archive (git archive): what a release is made of."""
    try:
        out = subprocess.run(["git", "-C", str(repo), "archive", "--format=tar", "HEAD"],
                             capture_output=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError) as e:
        detail = e.stderr.decode(errors="replace").strip() if isinstance(e, subprocess.CalledProcessError) else e
        raise ReleaseError(f"{repo} is not a git checkout with a commit (a release is made of one): "
                           f"{detail}") from None
    return tarfile.open(fileobj=io.BytesIO(out))


def git_output(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True,
                          check=True).stdout.strip()


def load_manifest(archive: tarfile.TarFile) -> dict:
    return json.loads(read_text(archive, "chapters/chapters.json"))


def read_text(archive: tarfile.TarFile, name: str) -> str:
    try:
        return archive.extractfile(name).read().decode("utf-8")
    except (KeyError, AttributeError):
        raise ReleaseError(f"the commit has no {name}") from None


def parse_chapters(spec: str | None, numbers: list[str]) -> list[str]:
    """'00-07', '00,01,03' or a mix ('00-02,05'); None: every chapter. Numbers in manifest order."""
    if spec is None:
        return list(numbers)
    chosen: set[str] = set()
    for part in spec.split(","):
        m = re.fullmatch(r"\s*([0-9]{1,2})\s*(?:-\s*([0-9]{1,2})\s*)?", part)
        if not m:
            raise ReleaseError(f"--chapters: '{part}' is not a chapter number or a range NN-MM "
                               "(e.g. --chapters 00-07 or --chapters 00,01,03)")
        first = int(m.group(1))
        last = int(m.group(2)) if m.group(2) else first
        if last < first:
            raise ReleaseError(f"--chapters: the range '{part.strip()}' ends before it starts")
        for n in range(first, last + 1):
            nn = f"{n:02d}"
            if nn not in numbers:
                raise ReleaseError(f"--chapters: there is no chapter {nn} (the chapters are "
                                   f"{numbers[0]} to {numbers[-1]}: ./lab chapters lists them)")
            chosen.add(nn)
    return [nn for nn in numbers if nn in chosen]


def instructor_only_pages(mkdocs_yml: str) -> list[str]:
    """The pages under `extra: instructor_only:` in book/mkdocs.yml (a list of `- page` lines)."""
    m = re.search(r"^  instructor_only:[^\n]*\n((?:    - [^\n]+\n)+)", mkdocs_yml, re.M)
    return re.findall(r"^    - (\S+)", m.group(1), re.M) if m else []


def student_mkdocs(text: str, dropped_pages: list[str], instructor_pages: list[str]) -> str:
    """book/mkdocs.yml for the student's repository: no nav entry for a page it does not have, and
    the book's two settings for a student's repository (the stubs, the pages left out)."""
    gone = set(dropped_pages) | set(instructor_pages)
    lines = [line for line in text.split("\n")
             if not (re.match(r"^\s*- [^:]*:\s*(\S+)\s*$", line)
                     and re.match(r"^\s*- [^:]*:\s*(\S+)\s*$", line).group(1) in gone)]
    text = "\n".join(lines)
    extra = (f"  stubs: {STUBS}                # the listings of exercises/ show the stubs as handed out\n"
             "  left_out:                       # pages of chapters not handed out: links to them are text\n"
             + "".join(f"    - {page}\n" for page in dropped_pages))
    if not dropped_pages:
        extra = extra.split("  left_out:")[0]
    new, count = re.subn(r"^(  edition: student[^\n]*\n)", lambda m: m.group(1) + extra, text, flags=re.M)
    if count != 1:
        raise ReleaseError("book/mkdocs.yml has no line '  edition: student' under extra:")
    return new


def readme_section(readme: str, heading: str) -> str:
    m = re.search(rf"^## {re.escape(heading)}\n(.*?)(?=^## |\Z)", readme, re.M | re.S)
    if not m:
        raise ReleaseError(f"README.md has no section '## {heading}', which the student's README repeats")
    return m.group(1).strip("\n")


def student_readme(template: str, readme: str, manifest: dict, kept: list[str]) -> str:
    """release/README.md with its {placeholders} filled from this README.md (the chapter table, the
    packages): the same facts as here, for the chapters handed out."""
    table = []
    for line in readme_section(readme, "Chapters").split("\n"):
        row = re.match(r"^\| *([0-9]{2}) *\|", line)
        if line.startswith("|") and (not row or row.group(1) in kept):
            table.append(line)  # the header, the rule and the rows of the chapters handed out
    if len(table) != len(kept) + 2:
        raise ReleaseError("README.md's chapter table does not have one row per chapter handed out")
    packages = re.search(r"^Debian packages \(what `./lab` installs.*?\n\n", readme, re.M | re.S)
    if not packages:
        raise ReleaseError("README.md has no paragraph 'Debian packages (what `./lab` installs ...'")
    packages = packages.group(0).strip("\n")
    if "12" not in kept:
        # Open MPI serves chapter 12 alone; without it, lab neither installs nor lists it.
        packages, found = re.subn(r"`libopenmpi-dev` and `openmpi-bin` \(chapter 12's[^)]*\),\s+", "", packages)
        if found != 1:
            raise ReleaseError("README.md's Debian packages do not name `libopenmpi-dev` and `openmpi-bin` "
                               "(chapter 12's ...) as make_release.py expects")
    text = template
    for name, value in (("chapter_table", "\n".join(table)), ("packages", packages),
                        ("first", next(f"{c['nn']}_{c['slug']}" for c in manifest["chapters"]
                                       if c["nn"] == kept[0]))):
        text = text.replace("{" + name + "}", value)
    return text


def write_manifest(path: Path, manifest: dict, kept: list[str]) -> None:
    """chapters.json with the chapters handed out, in the same layout: one chapter a line."""
    rows = [json.dumps(c, ensure_ascii=False) for c in manifest["chapters"] if c["nn"] in kept]
    head = {k: v for k, v in manifest.items() if k != "chapters"}
    lines = ["{"] + [f"  {json.dumps(k)}: {json.dumps(v, ensure_ascii=False)}," for k, v in head.items()]
    lines += ['  "chapters": [', ",\n".join(f"    {row}" for row in rows), "  ]", "}", ""]
    path.write_text("\n".join(lines), encoding="utf-8")


def answers_left_out(kept: list[str]) -> list[str]:
    """The ANSWERS_IN_LIBRARY files that a release of the chapters `kept` leaves out: those that no
    chapter handed out needs."""
    return [name for name, use in ANSWERS_IN_LIBRARY.items() if not set(use["needed_by"]) & set(kept)]


def selected(files: list[str], manifest: dict, kept: list[str], instructor_pages: list[str]) -> list[str]:
    """The tracked files that go into the release."""
    dropped = [c for c in manifest["chapters"] if c["nn"] not in kept]
    prefixes = list(LEFT_OUT) + [f"book/docs/{page}" for page in instructor_pages]
    for c in dropped:
        cid = f"{c['nn']}_{c['slug']}"
        prefixes += [f"chapters/{cid}/", f"exercises/{cid}/", f"tests/grade/{cid}.", f"tests/grade/{cid}_",
                     f"tests/chapters/ch{c['nn']}_", f"book/docs/{c['page']}"
                     ] + [f"{folder}ch{c['nn']}_" for folder in FIGURE_FOLDERS]
    patterns = [pattern for name in answers_left_out(kept) for pattern in (name, *ANSWERS_IN_LIBRARY[name]["with"])]
    return [name for name in files if not any(name == p or name.startswith(p) for p in prefixes)
            and not any(fnmatch.fnmatchcase(name, pattern) for pattern in patterns)]


def git(dest: Path, *args: str) -> None:
    env = dict(os.environ, GIT_AUTHOR_NAME=AUTHOR[0], GIT_AUTHOR_EMAIL=AUTHOR[1],
               GIT_COMMITTER_NAME=AUTHOR[0], GIT_COMMITTER_EMAIL=AUTHOR[1])
    subprocess.run(["git", "-C", str(dest), "-c", "commit.gpgsign=false", "-c", "core.hooksPath=/dev/null",
                    *args], check=True, env=env, stdout=subprocess.DEVNULL)


def make_release(dest: Path, spec: str | None, repo: Path = REPO, check: bool = True) -> int:
    archive = head_commit(repo)
    manifest = load_manifest(archive)
    numbers = [c["nn"] for c in manifest["chapters"]]
    kept = parse_chapters(spec, numbers)
    if dest.exists() and (not dest.is_dir() or any(dest.iterdir())):
        raise ReleaseError(f"{dest} exists and is not an empty folder: name a new one")
    inside = dest.resolve() == repo.resolve() or repo.resolve() in dest.resolve().parents
    if inside and dest.resolve().relative_to(repo.resolve()).parts[:1] != ("build",):
        raise ReleaseError(f"{dest} is inside this checkout: make the release outside it (or under build/)")
    mkdocs_yml = read_text(archive, "book/mkdocs.yml")
    instructor_pages = instructor_only_pages(mkdocs_yml)
    members = {m.name: m for m in archive.getmembers() if not m.isdir()}
    files = selected(sorted(members), manifest, kept, instructor_pages)

    dest.mkdir(parents=True, exist_ok=True)
    for name in files:
        member = members[name]
        if not (member.isfile() or member.issym()):
            continue
        out = dest / name
        out.parent.mkdir(parents=True, exist_ok=True)
        if member.issym():
            out.symlink_to(member.linkname)
        else:
            out.write_bytes(archive.extractfile(member).read())
            out.chmod(0o755 if member.mode & 0o111 else 0o644)

    # Written for the student's repository.
    dropped_pages = [c["page"] for c in manifest["chapters"] if c["nn"] not in kept]
    write_manifest(dest / "chapters" / "chapters.json", manifest, kept)
    (dest / "book" / "mkdocs.yml").write_text(student_mkdocs(mkdocs_yml, dropped_pages, instructor_pages),
                                              encoding="utf-8")
    readme = student_readme(read_text(archive, "release/README.md"), read_text(archive, "README.md"),
                            manifest, kept)
    (dest / "README.md").write_text(readme, encoding="utf-8")
    (dest / ".devcontainer").mkdir(exist_ok=True)
    (dest / ".devcontainer" / "devcontainer.json").write_text(read_text(archive, "release/devcontainer.json"),
                                                             encoding="utf-8")
    shutil.copytree(dest / "exercises", dest / STUBS)
    # GitHub Classroom's workflow for the chapters handed out, written by the release's own grader
    # (lab autograder classroom), so that its points are the release's.
    workflow = dest / ".github" / "workflows" / "classroom.yml"
    workflow.parent.mkdir(parents=True)
    subprocess.run([sys.executable, "-m", "scanlab_grade.autograder", "classroom", "--chapters", ",".join(kept),
                    "--out", str(workflow)], env=dict(os.environ, PYTHONPATH=str(dest / "grader")), check=True,
                   stdout=subprocess.DEVNULL)

    source = git_output(repo, "rev-parse", "--short", "HEAD")
    git(dest, "init", "-q", "-b", "main")
    git(dest, "add", "-A")
    git(dest, "commit", "-q", "-m", f"scanlab (from {source}), chapters {', '.join(kept)}")
    count = sum(1 for p in dest.rglob("*") if p.is_file() and ".git" not in p.relative_to(dest).parts)
    size = sum(p.stat().st_size for p in dest.rglob("*") if p.is_file() and ".git" not in p.relative_to(dest).parts)
    print(f"release: {dest}: chapters {' '.join(kept)} of commit {source}; {count} files, {size / 1e6:.1f} MB, "
          f"one commit by '{AUTHOR[0]}'")
    left_out = answers_left_out(kept)
    for name, use in ANSWERS_IN_LIBRARY.items():
        answered = use["answers"]
        if name in left_out:
            print(f"release: left out {name}, chapter {answered}'s answer: no chapter handed out needs it")
        elif answered in kept:
            print(f"release: holds {name}, chapter {answered}'s answer, which the chapters after it need: "
                  f"hand them out once chapter {answered} is done")
    if git_output(repo, "status", "--porcelain", "--untracked-files=no"):
        print("release: (this checkout has uncommitted changes: the release holds the commit, not them)")

    if check:
        sys.path.insert(0, str(repo / "book" / "tests"))
        import solution_code
        rc = solution_code.main(["--root", str(repo), "--tree", str(dest)])
        if rc != 0:
            print(f"release: {dest} holds lines of the solutions (above): do not hand it out before "
                  "those exercises or pages are fixed", file=sys.stderr)
            return 1
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="./lab release", description=__doc__.split("\n\n")[0])
    parser.add_argument("dest", type=Path, metavar="DIR", help="the new repository (a new or empty folder)")
    parser.add_argument("--chapters", metavar="LIST",
                        help="the chapters handed out: 00-07, 00,01,03 or a mix (default: all)")
    parser.add_argument("--no-check", action="store_true",
                        help="do not look for the solutions' code in the release (the tests do it themselves)")
    a = parser.parse_args(argv)
    try:
        return make_release(a.dest, a.chapters, check=not a.no_check)
    except ReleaseError as e:
        print(f"lab: release: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
