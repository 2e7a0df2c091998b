#!/usr/bin/env python3
"""Checks that the places that name the chapters and the Debian packages agree with the one list
of each: chapters/chapters.json (the chapters) and lab's *_PACKAGES arrays (the packages).

  chapters   README.md's chapter table (number, title, status, in order), the book's nav in
             book/mkdocs.yml (number, title, page, in order), chapters/CMakeLists.txt (reads the
             manifest; names no chapter of its own), and the tree: each chapter's folder, book
             page and the student's files in exercises/ and solutions/
  packages   README.md's list of Debian packages names exactly what `./lab packages` prints, and
             every "apt install NAME" / "apt-get install NAME" in README.md, the book's pages and
             hooks, cmake/ and .ci/ names one of them

Prints every disagreement and exits 1 if there is any. Standard library only.
  python3 tests/manifest/check_manifest.py [REPO]
"""
import json
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parents[2]
problems = []


def problem(text):
    problems.append(text)


def manifest():
    with open(ROOT / "chapters" / "chapters.json", encoding="utf-8") as f:
        return json.load(f)["chapters"]


def readme_chapter_rows():
    """(nn, title, status) of each row of README.md's table under '## Chapters'."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = re.search(r"^## Chapters\n(.*?)(?=^## )", text, re.M | re.S)
    if not section:
        problem("README.md: no '## Chapters' section")
        return []
    rows = []
    for line in section.group(1).splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("|") and re.fullmatch(r"[0-9]{2}", cells[0]):
            if len(cells) < 3:
                problem(f"README.md: chapter row with too few columns: {line}")
                continue
            # Columns: NN | chapter (the manifest's title) | what it covers | status
            rows.append((cells[0], cells[1], cells[-1]))
    return rows


def nav_chapters():
    """(nn, title, page) of each entry '"NN · Title": page' of book/mkdocs.yml's nav."""
    text = (ROOT / "book" / "mkdocs.yml").read_text(encoding="utf-8")
    return re.findall(r'^\s*-\s*"([0-9]{2}) · ([^"]+)":\s*(\S+)\s*$', text, re.M)


def differences(label, got, want):
    """The entries of two lists that differ, one line each, for a readable report."""
    lines = [f"  entry {i}: {label} {g!r}, manifest {w!r}"
             for i, (g, w) in enumerate(zip(got, want, strict=False)) if g != w]
    if len(got) != len(want):
        lines.append(f"  {label} has {len(got)} chapters, the manifest {len(want)}")
    return "\n".join(lines)


def check_chapters():
    chapters = manifest()
    want = [(c["nn"], c["title"]) for c in chapters]

    readme = readme_chapter_rows()
    if [(nn, title) for nn, title, _ in readme] != want:
        problem("README.md's chapter table disagrees with the manifest (number, title; in order):\n" +
                differences("README", [(nn, title) for nn, title, _ in readme], want))
    for (nn, _, status), c in zip(readme, chapters, strict=False):
        if nn == c["nn"] and status != c["status"]:
            problem(f"README.md: chapter {nn} has status '{status}', the manifest '{c['status']}'")

    nav = nav_chapters()
    want_nav = [(c["nn"], c["title"], c["page"]) for c in chapters]
    if nav != want_nav:
        problem("book/mkdocs.yml's nav disagrees with the manifest (number, title, page; in order):\n" +
                differences("nav", nav, want_nav))

    cmake = (ROOT / "chapters" / "CMakeLists.txt").read_text(encoding="utf-8")
    if "chapters.json" not in cmake:
        problem("chapters/CMakeLists.txt does not read chapters/chapters.json")
    for nn, slug in re.findall(r"^\s*scanlab_add_chapter\(\s*([0-9]+)\s+(\w+)", cmake, re.M):
        problem(f"chapters/CMakeLists.txt registers chapter {nn} {slug} itself: the manifest lists the chapters")

    for c in chapters:
        cid = f"{c['nn']}_{c['slug']}"
        if not (ROOT / "chapters" / cid).is_dir():
            problem(f"chapter {cid}: no folder chapters/{cid}/")
        if not (ROOT / "book" / "docs" / c["page"]).is_file():
            problem(f"chapter {cid}: no book page book/docs/{c['page']}")
        for name in c["files"]:
            # A student's repository (./lab release) has no solutions/.
            for tree in ("exercises", "solutions") if (ROOT / "solutions").is_dir() else ("exercises",):
                if not (ROOT / tree / cid / name).is_file():
                    problem(f"chapter {cid}: the manifest names {tree}/{cid}/{name}, which does not exist")


def lab_packages():
    out = subprocess.run(["bash", str(ROOT / "lab"), "packages"], capture_output=True, text=True, check=True)
    return [line.split()[1] for line in out.stdout.splitlines()]


def check_packages():
    packages = lab_packages()
    if len(packages) < 5:
        problem(f"./lab packages printed too few packages: {packages}")
    known = set(packages)

    text = (ROOT / "README.md").read_text(encoding="utf-8")
    # The paragraph of every package, and in the instructor's repository the one after it, of the
    # packages of the tests of grading a class (a student's README has only the first).
    para = re.search(r"^Debian packages \(what `./lab` installs[^)]*\):(.*?)\n\n"
                     r"(For the tests of grading a class.*?\n\n)?", text, re.M | re.S)
    if not para:
        problem("README.md: no paragraph 'Debian packages (what `./lab` installs): ...'")
    else:
        named = re.findall(r"`([a-z0-9][a-z0-9.+-]+)`", para.group(1) + (para.group(2) or ""))
        if sorted(set(named)) != sorted(known):
            problem("README.md's Debian packages differ from lab's *_PACKAGES:\n"
                    f"  only in README: {sorted(set(named) - known)}\n  only in lab:    {sorted(known - set(named))}")

    sources = [ROOT / "README.md"]
    for folder, pattern in (("book/docs", "**/*.md"), ("book/hooks", "*.py"), ("cmake", "*.cmake"), (".ci", "*")):
        if (ROOT / folder).is_dir():
            sources += [p for p in sorted((ROOT / folder).glob(pattern)) if p.is_file()]
    for path in sources:
        for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
            for m in re.finditer(r"apt(?:-get)? install((?:\s+-\S+)*)((?:\s+[a-z0-9][a-z0-9.+-]+)+)", line):
                for name in m.group(2).split():
                    if name not in known:
                        problem(f"{path.relative_to(ROOT)}: 'apt install {name}': {name} is not in lab's package lists")


check_chapters()
check_packages()
for p in problems:
    print("check_manifest: " + p)
print(f"check_manifest: {len(problems)} problem(s)" if problems else "check_manifest: all agree")
sys.exit(1 if problems else 0)
