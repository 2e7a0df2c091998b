#!/usr/bin/env python3
"""Looks for the reference solutions' code in a built book or in a folder of files: the one check
that a student's material holds no answer (the student edition, exercises/, a student's repository
made by `./lab release`).

The code a student writes is the inside of the TODO regions (`// BEGIN TODO` ... `// END TODO`) of
solutions/. From each region this takes its distinctive lines: not blank, not only braces and
punctuation, not a comment, at least MIN_LENGTH characters, and not code that the student is given
anyway: code found in a source file outside solutions/ (chapters/, common/, the exercise's own code,
...) or outside the TODO regions of a solutions/ file, such as `__syncthreads();` or
`const int tid = static_cast<int>(threadIdx.x);`. A region with no such line (each of its lines
is given somewhere) is looked for by its runs of consecutive lines that are not given
(distinctive_runs). The comments inside an exercise's TODO regions are not given: they are hints,
and a hint that holds a line of the answer gives it away. A line's trailing `//` comment is
dropped, and lines compare with their whitespace collapsed. A page shows a line when the line
occurs in the page's text (the HTML without its tags, the way a reader sees it, so syntax
highlighting does not hide it); a file, when it occurs in the file's text.

    solution_code.py --site DIR                  fails when any page shows a solution line
                                                 (the student edition)
    solution_code.py --tree DIR                  fails when any text file under DIR holds a solution
                                                 line (exercises/, a student's repository; .git/,
                                                 build/ and built sites aside)
    solution_code.py --site DIR --expect shown   fails unless every TODO region that the pages
                                                 include is shown (the instructor edition: proves
                                                 that the scanner sees what it looks for)
--site and --tree may be given together and more than once; the solutions are those of --root.

Standard library only; run with any python3 >= 3.9.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import re
import subprocess
import sys
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "book" / "hooks"))
import snippets  # noqa: E402  (the book's snippet hook: TODO regions and directives, one parser)

MIN_LENGTH = 12
SHOWN_PER_PAGE = 3  # lines listed per offending page
SOURCE_SUFFIXES = {".cu", ".cuh", ".h", ".hpp", ".cpp", ".cc"}
_NOT_CODE = re.compile(r"^[\s{}()\[\];,]*$")  # braces and punctuation only
_COMMENT = re.compile(r"^(//|/\*|\*)")


def normalize(text: str) -> str:
    """Whitespace runs become one space; leading and trailing whitespace goes."""
    return " ".join(text.split())


@dataclass
class TodoRegion:
    """One TODO region of a solutions/ file and its distinctive lines."""
    path: str            # relative to the repository, e.g. solutions/01_hillis_steele/x.cuh
    begin: int           # 1-based line of // BEGIN TODO
    end: int             # 1-based line of // END TODO
    lines: list[str] = field(default_factory=list)

    @property
    def name(self) -> str:
        return f"{self.path}:{self.begin}-{self.end}"


def code_of(line: str) -> str:
    """A source line without its trailing // comment, whitespace collapsed."""
    line = normalize(line)
    code = line.split("//", 1)[0].rstrip()
    return code if code else line


def is_distinctive(line: str, given: str) -> bool:
    """`given`: the text the student has anyway, lines joined with newlines."""
    return (len(line) >= MIN_LENGTH and not _NOT_CODE.match(line) and not _COMMENT.match(line)
            and line not in given)


def source_files(folder: Path) -> list[Path]:
    return sorted(path for path in folder.rglob("*")
                  if path.suffix in SOURCE_SUFFIXES and path.is_file())


def given_lines(path: Path, rel: str) -> list[str]:
    """The lines of a source file outside solutions/ that a student is given: all of them, but for
    the comments inside the TODO regions of an exercise (hints, which must not hold the answer)."""
    lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    hints: set[int] = set()
    if rel.startswith(snippets.EXERCISES):
        for begin, end in snippets.todo_regions(lines, rel):
            hints.update(n for n in range(begin + 1, end) if _COMMENT.match(lines[n].strip()))
    return [normalize(line) for number, line in enumerate(lines) if number not in hints]


def repository_sources(root: Path) -> list[Path]:
    """The repository's source files: those git tracks in a checkout (so that a release made inside
    it, or any other untracked copy, is not taken for given code), else those under its folders
    (the build folders and hidden ones aside)."""
    try:
        listed = subprocess.run(["git", "-C", str(root), "ls-files", "-z"], capture_output=True,
                                check=True).stdout.decode("utf-8", "replace").split("\0")
        top = subprocess.run(["git", "-C", str(root), "rev-parse", "--show-toplevel"],
                             capture_output=True, text=True, check=True).stdout.strip()
        if Path(top).resolve() == root.resolve():
            return sorted(root / rel for rel in listed
                          if Path(rel).suffix in SOURCE_SUFFIXES and (root / rel).is_file())
    except (OSError, subprocess.CalledProcessError):
        pass
    return [path for folder in sorted(root.iterdir())
            if folder.is_dir() and folder.name != "build" and not folder.name.startswith(".")
            for path in source_files(folder)]


def release_tool(root: Path):
    """release/make_release.py of `root` as a module (None where there is none), for its lists."""
    script = root / "release" / "make_release.py"
    if not script.is_file():
        return None
    spec = importlib.util.spec_from_file_location("make_release", script)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def instructors_only(root: Path) -> tuple[str, ...]:
    """What a student never gets, so not given code (a copy of a solution in the grader's tests, a
    mutant): the paths `./lab release` leaves out (release/make_release.py's LEFT_OUT, the one list)."""
    tool = release_tool(root)
    return tuple(tool.LEFT_OUT) if tool else ()


def library_answers(root: Path) -> tuple[str, ...]:
    """The library files that hold a chapter's answer (make_release.py's ANSWERS_IN_LIBRARY): given
    code only where the material checked holds them."""
    tool = release_tool(root)
    return tuple(getattr(tool, "ANSWERS_IN_LIBRARY", {})) if tool else ()


def todo_regions(root: Path = REPO, not_given: tuple[str, ...] = ()) -> list[TodoRegion]:
    """Every TODO region of every solutions/ source file, with its distinctive lines. `not_given`:
    source files of `root` (relative paths) that the material checked does not hold, so that their
    lines are not given code there (a library answer that a release leaves out)."""
    solutions = root / snippets.SOLUTIONS
    if not solutions.is_dir():
        raise SystemExit(f"solution_code: {root} has no solutions/ to look for (a student's "
                         "repository cannot check itself: run this in the instructor's)")
    # What a student has anyway: the sources outside solutions/ (the build folders and hidden
    # ones aside; an exercise's hints aside), and the solutions' lines outside their TODO regions.
    given: list[str] = []
    kept_back = instructors_only(root)
    for path in repository_sources(root):
        rel = path.relative_to(root).as_posix()
        if not rel.startswith(snippets.SOLUTIONS) and not rel.startswith(kept_back) and rel not in not_given:
            given += given_lines(path, rel)
    inside: list[tuple[str, list[str], list[tuple[int, int]]]] = []
    for path in source_files(solutions):
        rel = path.relative_to(root).as_posix()
        lines = path.read_text(encoding="utf-8").splitlines()
        spans = snippets.todo_regions(lines, rel)
        inside.append((rel, lines, spans))
        hidden = {number for begin, end in spans for number in range(begin, end + 1)}
        given += (normalize(line) for number, line in enumerate(lines) if number not in hidden)
    given_text = "\n".join(given)
    given_flow = " ".join(given)  # as a scan sees a text: its lines run together
    regions: list[TodoRegion] = []
    for rel, lines, spans in inside:
        for begin, end in spans:
            body = lines[begin + 1:end]
            distinctive = dict.fromkeys(code_of(line) for line in body)
            kept = [line for line in distinctive if is_distinctive(line, given_text)]
            regions.append(TodoRegion(rel, begin + 1, end + 1, kept or distinctive_runs(body, given_flow)))
    return regions


def distinctive_runs(body: list[str], given_flow: str) -> list[str]:
    """For a region none of whose lines is its own (each one is given somewhere, as
    `out[0] = running;` may be): its runs of consecutive lines that are not given, as a page or a
    file shows them (blank lines aside, whitespace collapsed), the shortest such runs. The answer is
    then the order of the lines, and a run is that order. A run holds at least one line of code
    that would be distinctive on its own length (not only braces, short lines or comments)."""
    rows = [normalize(line) for line in body if line.strip()]
    for width in range(2, len(rows) + 1):
        windows = [rows[i:i + width] for i in range(len(rows) - width + 1)]
        runs = dict.fromkeys(" ".join(window) for window in windows
                             if any(is_distinctive(code_of(row), "") for row in window))
        kept = [run for run in runs if run not in given_flow]
        if kept:
            return kept
    return []


class _TextOfHtml(HTMLParser):
    """The text a reader sees: character data outside <script> and <style>."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self._hidden = 0

    def handle_starttag(self, tag, attrs):
        if tag in ("script", "style"):
            self._hidden += 1

    def handle_endtag(self, tag):
        if tag in ("script", "style") and self._hidden:
            self._hidden -= 1

    def handle_data(self, data):
        if not self._hidden:
            self.parts.append(data)


def text_of_html(html: str) -> str:
    parser = _TextOfHtml()
    parser.feed(html)
    parser.close()
    return normalize("".join(parser.parts))


def site_texts(site: Path) -> dict[str, str]:
    """Page (relative path) -> its normalized text, for every HTML page and the search index."""
    texts = {page.relative_to(site).as_posix(): text_of_html(page.read_text(encoding="utf-8"))
             for page in sorted(site.rglob("*.html"))}
    index = site / "search" / "search_index.json"
    if index.is_file():
        for number, doc in enumerate(json.loads(index.read_text(encoding="utf-8")).get("docs", [])):
            where = f"search/search_index.json#{doc.get('location') or number}"
            texts[where] = text_of_html(doc.get("text", ""))
    return texts


# Not the student's material: version control, build output, built books (checked as sites).
_TREE_SKIP = {".git", "build", "site", "site-instructor", "__pycache__"}


def tree_texts(folder: Path) -> dict[str, str]:
    """File (path relative to `folder`'s parent) -> its normalized text, for every text file under
    `folder` (a file that is not UTF-8 text, such as an image, is skipped)."""
    texts: dict[str, str] = {}
    for path in sorted(folder.rglob("*")):
        if not path.is_file() or path.is_symlink() or \
                _TREE_SKIP.intersection(path.relative_to(folder).parts[:-1]):
            continue
        try:
            text = path.read_text(encoding="utf-8")
        except (UnicodeDecodeError, OSError):
            continue
        if "\0" not in text:
            texts[path.relative_to(folder.parent).as_posix()] = normalize(text)
    return texts


def shown_lines(regions: list[TodoRegion], texts: dict[str, str]) -> list[tuple[str, TodoRegion, str]]:
    """(page, region, line) for every distinctive line that a page shows."""
    return [(page, region, line) for page, text in texts.items() for region in regions
            for line in region.lines if line in text]


def included_regions(docs: Path, regions: list[TodoRegion], root: Path = REPO) -> list[TodoRegion]:
    """The TODO regions that the instructor edition's listings show: those that overlap a region
    a page includes (exercises/ directives read as solutions/, as that edition reads them)."""
    by_file: dict[str, list[TodoRegion]] = {}
    for region in regions:
        by_file.setdefault(region.path, []).append(region)
    included: dict[str, TodoRegion] = {}
    for page in sorted(docs.rglob("*.md")):
        for line in page.read_text(encoding="utf-8").splitlines():
            directive = snippets._DIRECTIVE.match(line)
            if not directive:
                continue
            rel_path, name = snippets._split_spec(directive.group("spec"))
            rel_path = snippets.edition_path(rel_path, "instructor")
            if rel_path not in by_file:
                continue
            lines = (root / rel_path).read_text(encoding="utf-8").splitlines()
            first, end = snippets.section_span(lines, rel_path, name, str(page))
            for region in by_file[rel_path]:
                if region.begin - 1 < end and region.end - 1 >= first:
                    included[region.name] = region
    return list(included.values())


def print_by_page(found: list[tuple[str, str]]) -> None:
    """Prints (page, finding) pairs grouped by page: up to SHOWN_PER_PAGE findings each."""
    by_page: dict[str, list[str]] = {}
    for page, text in found:
        by_page.setdefault(page, []).append(text)
    for page, shown in by_page.items():
        print(f"  {page}:")
        for text in shown[:SHOWN_PER_PAGE]:
            print(f"      {text}")
        if len(shown) > SHOWN_PER_PAGE:
            print(f"      ... and {len(shown) - SHOWN_PER_PAGE} more")


def report_leaks(found: list[tuple[str, TodoRegion, str]], where: str) -> None:
    """Prints what each page or file shows of the solutions."""
    pages = {page for page, _, _ in found}
    print(f"FAIL: {len(pages)} {where} show solution code, {len(found)} line(s) in all "
          f"(TODO region of solutions/: line):")
    print_by_page([(page, f"{region.name}: {line}") for page, region, line in found])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--site", type=Path, action="append", default=[], help="a built site folder")
    parser.add_argument("--tree", type=Path, action="append", default=[],
                        help="a folder of files (exercises/, a student's repository)")
    parser.add_argument("--expect", choices=("absent", "shown"), default="absent",
                        help="absent: the student's material (default); shown: the instructor edition")
    parser.add_argument("--root", type=Path, default=REPO,
                        help="the repository with solutions/ (default: the one holding this script)")
    parser.add_argument("--docs", type=Path,
                        help="the book's pages, for --expect shown (default: ROOT/book/docs)")
    args = parser.parse_args(argv)
    docs = args.docs or args.root / "book" / "docs"
    if not args.site and not args.tree:
        parser.error("name at least one --site or --tree")
    if args.expect == "shown" and (args.tree or len(args.site) != 1):
        parser.error("--expect shown takes one --site and no --tree")

    for site in args.site:
        if not (site / "index.html").is_file():
            print(f"solution_code: {site} is not a built site (no index.html)", file=sys.stderr)
            return 2
    for tree in args.tree:
        if not tree.is_dir():
            print(f"solution_code: {tree} is not a folder", file=sys.stderr)
            return 2
    regions = todo_regions(args.root)
    blind = [region.name for region in regions if not region.lines]
    print(f"solution_code: {len(regions)} TODO regions in solutions/, "
          f"{sum(len(r.lines) for r in regions)} distinctive lines")
    if blind:
        print(f"  {len(blind)} region(s) have no distinctive line or run of lines (all of it is given "
              "code too) and cannot be checked: "
              + ", ".join(blind))

    if args.expect == "absent":
        failed = False
        for site in args.site:
            texts = site_texts(site)
            found = shown_lines(regions, texts)
            print(f"{site}: {len(texts)} texts (pages and search-index entries)")
            if found:
                report_leaks(found, "page(s)")
                failed = True
        for tree in args.tree:
            texts = tree_texts(tree)
            # A library answer the tree does not hold is an answer there, wherever its lines show.
            absent = tuple(name for name in library_answers(args.root) if not (tree / name).is_file())
            found = shown_lines(todo_regions(args.root, absent) if absent else regions, texts)
            print(f"{tree}: {len(texts)} text files"
                  + (f"; without {', '.join(absent)}, whose lines count as answers" if absent else ""))
            if found:
                report_leaks(found, "file(s)")
                failed = True
        if failed:
            return 1
        print("OK: no page or file shows a line of a solution's TODO region")
        return 0

    texts = site_texts(args.site[0])
    found = shown_lines(regions, texts)
    expected = [region for region in included_regions(docs, regions, args.root) if region.lines]
    seen = {region.name for _, region, _ in found}
    missing = [region.name for region in expected if region.name not in seen]
    if not expected:
        print("FAIL: the pages include no TODO region, so nothing shows that the scanner works")
        return 1
    if missing:
        print(f"FAIL: {len(missing)} of the {len(expected)} TODO regions that the pages include "
              "are not found in the site:\n  " + "\n  ".join(missing))
        return 1
    print(f"OK: all {len(expected)} TODO regions that the pages include are found in the site")
    return 0


if __name__ == "__main__":
    sys.exit(main())
