#!/usr/bin/python3
# Keeps the student's files the student's: exercises/NN_slug/X.cuh holds the teaching notes, the
# hints and the TODO regions; solutions/NN_slug/X.cuh is the answer key, with the same code outside
# the TODO regions (grader_exercise_drift checks that) but not a second copy of the exercise's
# prose. This counts the lines of each exercise file that lie in runs of at least RUN identical
# lines shared with its solution (difflib's matching blocks, in order) and fails when more than
# --max-percent of all exercise lines do (issue 13: under 30%). Run by ctest
# (exercises_not_copied_in_solutions); -v prints every file.
"""Share of exercise lines in identical runs of >= 6 lines with their solutions."""

import argparse
import difflib
import sys
from pathlib import Path
from typing import List, Tuple

RUN = 6  # shorter runs are the code every pair shares: includes, signatures, markers


def shared_lines(exercise: List[str], solution: List[str], run: int = RUN) -> int:
    """Lines of `exercise` inside identical runs of at least `run` lines with `solution`."""
    matcher = difflib.SequenceMatcher(None, exercise, solution, autojunk=False)
    return sum(block.size for block in matcher.get_matching_blocks() if block.size >= run)


def measure(exercises: Path, solutions: Path) -> List[Tuple[str, int, int]]:
    """(exercise file, its lines, its lines shared with the solution) for every exercise file."""
    rows = []
    for path in sorted(p for p in exercises.rglob("*") if p.is_file()):
        rel = path.relative_to(exercises)
        other = solutions / rel
        lines = path.read_text(encoding="utf-8").splitlines()
        shared = shared_lines(lines, other.read_text(encoding="utf-8").splitlines()) if other.is_file() else 0
        rows.append((rel.as_posix(), len(lines), shared))
    return rows


def main(argv: List[str]) -> int:
    repo = Path(__file__).resolve().parents[2]
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--exercises", type=Path, default=repo / "exercises")
    p.add_argument("--solutions", type=Path, default=repo / "solutions")
    p.add_argument("--max-percent", type=float, default=30.0)
    p.add_argument("-v", "--verbose", action="store_true")
    a = p.parse_args(argv)
    rows = measure(a.exercises, a.solutions)
    total = sum(r[1] for r in rows)
    shared = sum(r[2] for r in rows)
    if a.verbose:
        for rel, lines, same in rows:
            print(f"{rel:60s} {lines:5d} {same:5d} {same / max(lines, 1):5.0%}")
    percent = 100.0 * shared / max(total, 1)
    print(f"exercise lines {total}, in identical runs of >= {RUN} lines with the solutions: {shared} "
          f"({percent:.0f}%, limit {a.max_percent:.0f}%)")
    if percent > a.max_percent:
        worst = sorted(rows, key=lambda r: r[2], reverse=True)[:3]
        print("the solutions repeat too much of the exercises (teaching notes belong in the exercise, "
              "given code in chapters/NN_slug/); most shared: "
              + ", ".join(f"{rel} ({same} lines)" for rel, _, same in worst), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
