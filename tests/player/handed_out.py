"""What of the lab this repository holds, for the tests that also run in a student's repository
(./lab release): the chapters handed out (chapters/chapters.json, through book/figures.py, which
also says whose a trace is: chNN_...) and whether solutions/ is here (a student's has none). A test
skips, saying why, what needs something that is not here; the instructor's checkout has it all."""
from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "book"))
import figures  # noqa: E402

CHAPTERS = figures.chapters_here(ROOT)
SOLUTIONS = (ROOT / "solutions").is_dir()


def here(name: str) -> bool:
    """Whether the trace (or figure) NAME's chapter is in this repository."""
    return figures.handed_out(name, CHAPTERS)


def require(test, *names: str, solutions: bool = False) -> None:
    """Skips `test` unless the chapters of these traces are here (and solutions/, if asked)."""
    missing = sorted({figures.chapter_of(n) for n in names if not here(n)})
    if missing:
        which = f"chapter {missing[0]} is" if len(missing) == 1 else f"chapters {' and '.join(missing)} are"
        test.skipTest(f"{which} not in this repository (chapters/chapters.json)")
    if solutions and not SOLUTIONS:
        test.skipTest("needs solutions/ (a student's repository has none)")
