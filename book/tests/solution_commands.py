#!/usr/bin/env python3
"""Fails when a page of the student edition shows a command that needs the reference solutions.

The student edition speaks to the repository a student has (made by `./lab release`), which has no
solutions/ and no instructor edition: there `./lab run NN --solution`, `./lab viz NN --solution`,
`./lab figures` and `./lab book --instructor` stop with "needs the reference solutions" (lab:
no_solutions_here), and the reference programs (chNN_slug_solution) are not built. A page that
shows one sends the student to a command that refuses; the instructor edition may show them.

    solution_commands.py --site DIR    DIR: the built student edition (book/site)

Left out of the check: the measurement records (measurements.md and measurements/), whose commands
say how each recorded number was produced, in the instructor's repository, not what a student runs.

Standard library only; run with any python3 >= 3.9.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from solution_code import print_by_page, site_texts  # noqa: E402  (a page's text as a reader sees it)

# What needs solutions/, each with what a page should show instead.
NEEDS_SOLUTIONS = [
    (re.compile(r"(?<![\w-])--solution(?![\w-])"), "--solution (run the student's code: drop it)"),
    (re.compile(r"(?<![\w-])--instructor(?![\w-])"), "--instructor (the instructor edition)"),
    (re.compile(r"\bch\d\d_\w+?_solution(?:_traced)?\b"), "a reference program (chNN_slug_solution)"),
    (re.compile(r"\./lab figures\b"), "./lab figures (drawn from the reference's runs)"),
]
# Measurement records: how each number was produced, in the instructor's repository.
RECORDS = ("measurements/",)  # measurements.md is measurements/index.html
SHOWN = 60  # characters of context either side of a finding


def page_of(key: str) -> str:
    """The page a text belongs to: a search-index entry's location, or the HTML file's path."""
    return key.split("#", 1)[1] if key.startswith("search/") else key


def is_record(key: str) -> bool:
    return page_of(key).lstrip("/").startswith(RECORDS)


def findings(texts: dict[str, str]) -> list[tuple[str, str, str]]:
    """(page, what, context) for every command needing solutions/ outside the records."""
    found = []
    for key, text in texts.items():
        if is_record(key):
            continue
        for pattern, what in NEEDS_SOLUTIONS:
            for match in pattern.finditer(text):
                context = text[max(0, match.start() - SHOWN):match.end() + SHOWN]
                found.append((key, what, context))
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--site", type=Path, required=True, help="the built student edition")
    args = parser.parse_args(argv)
    if not (args.site / "index.html").is_file():
        print(f"solution_commands: {args.site} is not a built site (no index.html)", file=sys.stderr)
        return 2
    texts = site_texts(args.site)
    found = findings(texts)
    checked = sum(1 for key in texts if not is_record(key))
    print(f"{args.site}: {checked} texts checked (pages and search-index entries; "
          f"{len(texts) - checked} of the measurement records left out)")
    if found:
        print(f"FAIL: {len(found)} command(s) that need the reference solutions, which a "
              "student's repository does not have:")
        print_by_page([(key, f"{what}: ...{context}...") for key, what, context in found])
        return 1
    print("OK: no page of the student edition shows a command that needs solutions/")
    return 0


if __name__ == "__main__":
    sys.exit(main())
