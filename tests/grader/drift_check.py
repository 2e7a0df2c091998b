#!/usr/bin/python3
# Drift check: every exercise file must hold the same code as its reference solution outside the
# student's TODO regions (the lines between "// BEGIN TODO" and "// END TODO", markers included in
# the check), so that what students get and what the book, the tests and the grader were checked
# against are the same code everywhere else. Blank lines and whole-line // comments are not code:
# the exercise carries the teaching notes and hints, the solution its own short notes on the
# answers, so they may differ. The book's snippet markers (// --8<-- [start:NAME]) are compared
# like code: both editions' listings must cover the same code. Run by ctest
# (grader_exercise_drift); exit status 1 on drift.
"""Check that exercises/NN_slug has the code of solutions/NN_slug outside // BEGIN TODO ... // END TODO."""

import argparse
import re
import sys
from pathlib import Path
from typing import List, Optional, Tuple

BEGIN = re.compile(r"^\s*//\s*BEGIN TODO\b")
END = re.compile(r"^\s*//\s*END TODO\b")
PROSE = re.compile(r"^\s*(//.*)?$")  # a blank line or a whole-line // comment
SNIPPET = re.compile(r"--8<--")   # a book snippet marker: compared, although it is a comment


class Layout:
    """A file split at its TODO regions: the code lines outside them (with their line numbers; blank
    lines and comments left out, snippet markers kept) and the number of regions, or the first
    structural error (an unpaired or nested marker)."""

    def __init__(self, lines: List[str]):
        self.outside: List[Tuple[int, str]] = []
        self.regions = 0
        self.error: Optional[str] = None
        inside = False
        for no, line in enumerate(lines, 1):
            if BEGIN.match(line):
                if inside:
                    self.error = f"line {no}: BEGIN TODO inside another TODO region"
                    return
                inside = True
                self.regions += 1
                # The marker separates regions: keep it, so regions cannot move across code.
                self.outside.append((no, line.rstrip()))
            elif END.match(line):
                if not inside:
                    self.error = f"line {no}: END TODO without BEGIN TODO"
                    return
                inside = False
                self.outside.append((no, line.rstrip()))
            elif not inside and (SNIPPET.search(line) or not PROSE.match(line)):
                self.outside.append((no, line.rstrip()))
        if inside:
            self.error = "BEGIN TODO never closed by END TODO"


def compare(exercise: Path, solution: Path) -> List[str]:
    """Problems found comparing one exercise file with its solution (empty: no drift)."""
    ex = Layout(exercise.read_text().splitlines())
    so = Layout(solution.read_text().splitlines())
    problems = []
    for name, layout in ((exercise, ex), (solution, so)):
        if layout.error:
            problems.append(f"{name}: {layout.error}")
    if problems:
        return problems
    if ex.regions != so.regions:
        problems.append(f"{exercise}: {ex.regions} TODO regions, but {solution} has {so.regions}")
    # Lengths may differ: the common part first, then the extra lines below.
    for (eno, eline), (sno, sline) in zip(ex.outside, so.outside, strict=False):
        if eline != sline:
            problems.append(f"{exercise}:{eno} differs from {solution}:{sno} outside the TODO regions:\n"
                            f"    exercise: {eline}\n    solution: {sline}")
            return problems
    if len(ex.outside) != len(so.outside):
        longer, (no, line) = ((exercise, ex.outside[len(so.outside)]) if len(ex.outside) > len(so.outside)
                              else (solution, so.outside[len(ex.outside)]))
        problems.append(f"{longer}:{no} has lines outside the TODO regions that the other file lacks: {line}")
    return problems


def check_tree(exercises: Path, solutions: Path) -> List[str]:
    problems = []
    chapters = sorted(d.name for d in solutions.iterdir() if d.is_dir()) if solutions.is_dir() else []
    if not chapters:
        problems.append(f"no chapter folders in {solutions}")
    for ch in chapters:
        sol_files = sorted(p.relative_to(solutions / ch) for p in (solutions / ch).rglob("*") if p.is_file())
        ex_files = sorted(p.relative_to(exercises / ch) for p in (exercises / ch).rglob("*") if p.is_file()) \
            if (exercises / ch).is_dir() else []
        for rel in sorted(set(sol_files) - set(ex_files)):
            problems.append(f"{exercises / ch / rel}: missing (the solution has it)")
        for rel in sorted(set(ex_files) - set(sol_files)):
            problems.append(f"{solutions / ch / rel}: missing (the exercise has it)")
        for rel in sorted(set(sol_files) & set(ex_files)):
            problems += compare(exercises / ch / rel, solutions / ch / rel)
    for d in sorted(exercises.iterdir()) if exercises.is_dir() else []:
        if d.is_dir() and not (solutions / d.name).is_dir():
            problems.append(f"{d}: no matching folder in {solutions}")
    return problems


def main(argv: List[str]) -> int:
    repo = Path(__file__).resolve().parents[2]
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--exercises", type=Path, default=repo / "exercises")
    p.add_argument("--solutions", type=Path, default=repo / "solutions")
    a = p.parse_args(argv)
    problems = check_tree(a.exercises, a.solutions)
    for problem in problems:
        print(f"drift: {problem}", file=sys.stderr)
    if problems:
        return 1
    files = sum(1 for p in a.solutions.rglob("*") if p.is_file())
    print(f"no drift: {files} exercise files have their solutions' code outside the TODO regions")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
