#!/usr/bin/env python3
"""Looks for the reference solutions' code in a built book.

The code a student writes is the inside of the TODO regions (`// BEGIN TODO` ... `// END TODO`) of
solutions/. From each region this takes its distinctive lines: not blank, not only braces and
punctuation, not a comment, at least MIN_LENGTH characters, and not code that the student is given
anyway: text found in a source file outside solutions/ (the exercise itself with its comments,
chapters/, common/, ...) or outside the TODO regions of a solutions/ file, such as
`__syncthreads();` or `const int tid = static_cast<int>(threadIdx.x);`. A line's trailing `//`
comment is dropped, and lines compare with their whitespace collapsed. A page shows a line when
the line occurs in the page's text (the HTML without its tags, the way a reader sees it, so syntax
highlighting does not hide it).

    solution_code.py --site DIR                  fails when any page shows a solution line
                                                 (the student edition)
    solution_code.py --site DIR --expect shown   fails unless every TODO region that the pages
                                                 include is shown (the instructor edition: proves
                                                 that the scanner sees what it looks for)

Standard library only; run with any python3 >= 3.9.
"""

from __future__ import annotations

import argparse
import json
import re
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


def todo_regions(root: Path = REPO) -> list[TodoRegion]:
    """Every TODO region of every solutions/ source file, with its distinctive lines."""
    solutions = root / snippets.SOLUTIONS
    # What a student has anyway: the sources outside solutions/ (the build folders and hidden
    # ones aside), and the solutions' lines outside their TODO regions.
    given: list[str] = []
    for folder in sorted(root.iterdir()):
        if folder.is_dir() and folder != solutions and folder.name != "build" \
                and not folder.name.startswith("."):
            for path in source_files(folder):
                given += map(normalize,
                             path.read_text(encoding="utf-8", errors="replace").splitlines())
    inside: list[tuple[str, list[str], list[tuple[int, int]]]] = []
    for path in source_files(solutions):
        rel = path.relative_to(root).as_posix()
        lines = path.read_text(encoding="utf-8").splitlines()
        spans = snippets.todo_regions(lines, rel)
        inside.append((rel, lines, spans))
        hidden = {number for begin, end in spans for number in range(begin, end + 1)}
        given += (normalize(line) for number, line in enumerate(lines) if number not in hidden)
    given_text = "\n".join(given)
    regions: list[TodoRegion] = []
    for rel, lines, spans in inside:
        for begin, end in spans:
            distinctive = dict.fromkeys(code_of(line) for line in lines[begin + 1:end])
            regions.append(TodoRegion(rel, begin + 1, end + 1,
                                      [line for line in distinctive if is_distinctive(line, given_text)]))
    return regions


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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--site", type=Path, required=True, help="the built site folder")
    parser.add_argument("--expect", choices=("absent", "shown"), default="absent",
                        help="absent: the student edition (default); shown: the instructor edition")
    parser.add_argument("--root", type=Path, default=REPO,
                        help="the repository (default: the one holding this script)")
    parser.add_argument("--docs", type=Path,
                        help="the book's pages, for --expect shown (default: ROOT/book/docs)")
    args = parser.parse_args(argv)
    docs = args.docs or args.root / "book" / "docs"

    if not (args.site / "index.html").is_file():
        print(f"solution_code: {args.site} is not a built site (no index.html)", file=sys.stderr)
        return 2
    regions = todo_regions(args.root)
    blind = [region.name for region in regions if not region.lines]
    texts = site_texts(args.site)
    found = shown_lines(regions, texts)
    print(f"solution_code: {len(regions)} TODO regions in solutions/, "
          f"{sum(len(r.lines) for r in regions)} distinctive lines; {len(texts)} texts "
          f"(pages and search-index entries) in {args.site}")
    if blind:
        print(f"  {len(blind)} region(s) have no distinctive line and cannot be checked: "
              + ", ".join(blind))

    if args.expect == "absent":
        if not found:
            print("OK: no page shows a line of a solution's TODO region")
            return 0
        by_page: dict[str, list[str]] = {}
        for page, region, line in found:
            by_page.setdefault(page, []).append(f"{region.name}: {line}")
        print(f"FAIL: {len(by_page)} page(s) show solution code "
              f"(TODO region of solutions/: line):")
        for page, shown in by_page.items():
            print(f"  {page}:")
            for text in shown[:SHOWN_PER_PAGE]:
                print(f"      {text}")
            if len(shown) > SHOWN_PER_PAGE:
                print(f"      ... and {len(shown) - SHOWN_PER_PAGE} more")
        return 1

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
