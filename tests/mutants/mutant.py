#!/usr/bin/python3
# Mutants: one planted bug each, as an exact find/replace patch on a chapter's reference solution.
#
# A mutant lives in tests/mutants/NN_slug/<name>.mutant:
#
#   # What the bug is, and why the grading tests must catch it (comment lines start with #).
#   file: hillis_steele.cuh          the solution file to patch (relative to solutions/NN_slug)
#   orders: default,reverse          optional: the emulator orders to grade it with (without it:
#                                    the default order, which real grading runs among others)
#   mentions: race on shared memory  a failing test's message must say this (a hint the report owes
#                                    the student, not only the lost points); `check` requires it
#   test: <a test case's name>       a test case of tests/grade/NN_slug.cu that fails on this bug
#                                    (one line each; `check` requires one and that it exists): ctest
#                                    grades the mutant with these cases only. A case that fails loses
#                                    its points in a full grade too, so that is proof enough, at a
#                                    fraction of the time (the whole-sort cases of chapter 09 take a
#                                    minute on the emulator; the one that catches a bug, a second).
#   @@ find
#   <lines, verbatim, that must occur exactly once in the file>
#   @@ replace
#   <the lines that take their place>
#   @@ end
#
# Several find/replace pairs may follow one another. A find that matches no place or more than
# one place is an error, so a mutant fails loudly when the solution it patches changes, instead of
# silently testing the unchanged solution. The idea of scoring a test suite by the planted bugs it
# rejects is mutation testing (DeMillo, Lipton and Sayward, 1978); here each mutant is written by
# hand to be a bug a student plausibly makes.
#
#   mutant.py apply FILE --into DIR    write the mutated solution file into DIR/NN_slug/
#   mutant.py check [FILE...]          check that every mutant (default: all) applies and has a
#                                      mentions: line
"""Parse and apply scanlab mutants (tests/mutants/NN_slug/*.mutant)."""

import argparse
import dataclasses
import sys
from pathlib import Path
from typing import List, Optional, Tuple

MUTANTS = Path(__file__).resolve().parent
REPO = MUTANTS.parent.parent
sys.path.insert(0, str(REPO / "grader"))
from scanlab_grade.chapters import declared_tests  # noqa: E402  (the test case names, as graded)


class MutantError(Exception):
    pass


@dataclasses.dataclass
class Mutant:
    path: Path
    chapter: str                       # NN_slug: the folder the mutant sits in
    file: str                          # relative to solutions/NN_slug
    edits: List[Tuple[str, str]]       # (find, replace), each a run of whole lines
    orders: Optional[str] = None
    about: str = ""                    # the leading comment
    mentions: Optional[str] = None     # text some failing test's message must contain
    tests: List[str] = dataclasses.field(default_factory=list)  # test cases that fail on it

    @property
    def name(self) -> str:
        return self.path.stem


def parse(path: Path) -> Mutant:
    path = Path(path)
    lines = path.read_text().splitlines()
    header = {}
    tests: List[str] = []
    about = []
    edits: List[Tuple[str, str]] = []
    i = 0
    while i < len(lines) and not lines[i].startswith("@@"):
        line = lines[i].strip()
        if line.startswith("#"):
            about.append(line.lstrip("#").strip())
        elif line:
            key, sep, value = line.partition(":")
            if not sep or key.strip() not in ("file", "orders", "mentions", "test"):
                raise MutantError(f"{path}:{i + 1}: expected 'file:', 'orders:', 'mentions:', 'test:', a # "
                                  "comment or '@@ find'")
            if key.strip() == "test":
                tests.append(value.strip())
            else:
                header[key.strip()] = value.strip()
        i += 1
    while i < len(lines):
        if lines[i].rstrip() != "@@ find":
            raise MutantError(f"{path}:{i + 1}: expected '@@ find'")
        j = i + 1
        while j < len(lines) and lines[j].rstrip() != "@@ replace":
            if lines[j].startswith("@@"):
                raise MutantError(f"{path}:{j + 1}: '@@ find' needs '@@ replace' before {lines[j]!r}")
            j += 1
        k = j + 1
        while k < len(lines) and lines[k].rstrip() != "@@ end":
            if lines[k].startswith("@@"):
                raise MutantError(f"{path}:{k + 1}: '@@ replace' needs '@@ end' before {lines[k]!r}")
            k += 1
        if k >= len(lines):
            raise MutantError(f"{path}: '@@ find' at line {i + 1} is not closed by '@@ replace' ... '@@ end'")
        find = "".join(line + "\n" for line in lines[i + 1:j])
        replace = "".join(line + "\n" for line in lines[j + 1:k])
        if not find.strip():
            raise MutantError(f"{path}:{i + 1}: empty find text")
        if find == replace:
            raise MutantError(f"{path}:{i + 1}: the replacement changes nothing")
        edits.append((find, replace))
        i = k + 1
        while i < len(lines) and not lines[i].strip():
            i += 1
    if "file" not in header:
        raise MutantError(f"{path}: no 'file:' line")
    if not edits:
        raise MutantError(f"{path}: no '@@ find' ... '@@ end' block")
    return Mutant(path, path.parent.name, header["file"], edits, header.get("orders"), " ".join(about),
                  header.get("mentions"), tests)


def mutate(m: Mutant, text: str) -> str:
    for n, (find, replace) in enumerate(m.edits, 1):
        count = text.count(find)
        if count != 1:
            where = "nowhere" if count == 0 else f"{count} times"
            raise MutantError(f"{m.path.name}: edit {n} matches {where} in {m.chapter}/{m.file} (it must "
                              f"match exactly once; has the solution changed?):\n{find}")
        text = text.replace(find, replace)
    return text


def apply(m: Mutant, into: Path, solutions: Path = REPO / "solutions") -> Path:
    """Writes the mutated solution file to into/NN_slug/file and returns its path."""
    src = solutions / m.chapter / m.file
    if not src.is_file():
        raise MutantError(f"{m.path.name}: no file {src}")
    dst = Path(into) / m.chapter / m.file
    dst.parent.mkdir(parents=True, exist_ok=True)
    dst.write_text(mutate(m, src.read_text()))
    return dst


def all_mutants() -> List[Path]:
    return sorted(MUTANTS.glob("[0-9][0-9]_*/*.mutant"))


def main(argv: List[str]) -> int:
    p = argparse.ArgumentParser(prog="mutant.py", description=__doc__)
    sub = p.add_subparsers(dest="cmd", required=True)
    a_apply = sub.add_parser("apply", help="write the mutated solution file into DIR/NN_slug/")
    a_apply.add_argument("mutant")
    a_apply.add_argument("--into", required=True, metavar="DIR")
    a_check = sub.add_parser("check", help="check that mutants parse and apply exactly once")
    a_check.add_argument("mutants", nargs="*")
    a = p.parse_args(argv)
    try:
        if a.cmd == "apply":
            print(apply(parse(Path(a.mutant)), Path(a.into)))
            return 0
        paths = [Path(m) for m in a.mutants] or all_mutants()
        for path in paths:
            m = parse(path)
            mutate(m, (REPO / "solutions" / m.chapter / m.file).read_text())
            if not m.mentions:
                raise MutantError(f"{path}: no 'mentions:' line: name the text of the hint that a failing test's "
                                  "message gives for this bug (see README.md)")
            if not m.tests:
                raise MutantError(f"{path}: no 'test:' line: name a test case that fails on this bug (see "
                                  "README.md)")
            declared = {t.name for t in declared_tests(REPO / "tests" / "grade" / f"{m.chapter}.cu")}
            for name in m.tests:
                if name not in declared:
                    raise MutantError(f"{path}: 'test: {name}': tests/grade/{m.chapter}.cu has no such test case")
            print(f"ok  {m.chapter}/{m.name}: {m.about.split('.')[0]}")
        return 0
    except MutantError as e:
        print(f"mutant: {e}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
