"""The emulator's findings in a test's messages, each once. A test case that launches many kernels
(every size, every block order) gets the same race or misuse report from each launch, from each
block, and from both the runner's findings and its log: one copy is kept, where it first appears,
with the count of the others. A report's lines are parts of a message (" | " between them, see
doctest_run._lines); its first line, which says what was found, is a part like any other."""

import re
from typing import Dict, List

SEP = " | "

# A part that the emulator wrote (its log lines, and the runner's findings as the checker quotes them).
_FINDING = re.compile(r"racecheck:|scanlab emulator|weak memory:|the emulator found:|banks:|"
                      r"hazard in kernel|arrivals missing|arrive[sd]? on cuda::barrier")
# What differs between copies of one finding: the block and thread, the element and byte, addresses,
# and the counts the emulator appends.
_VARIES = [
    (re.compile(r"\(\d+,\d+,\d+\)"), "(.)"),
    (re.compile(r"\[\d+\] \(byte \d+\)"), "[.]"),
    (re.compile(r"0x[0-9a-fA-F]+"), "0x."),
    (re.compile(r"\(\d+ times?\)"), ""),
    (re.compile(r"\d+ hazards?"), "hazards"),
]


def is_finding(part: str) -> bool:
    return bool(_FINDING.search(part))


def _key(part: str) -> str:
    for pattern, repl in _VARIES:
        part = pattern.sub(repl, part)
    return " ".join(part.split())


def _with_count(part: str, n: int) -> str:
    return part if n <= 1 else f"{part} [{n - 1} more like it in this test]"


def dedup(details: List[str]) -> List[str]:
    """Each failure (a message of " | "-separated parts) with every emulator finding kept only where
    it first appears in the test, counted over all of them; other repeated parts of one failure are
    kept once. A failure left with nothing new is dropped, unless it is the first."""
    counts: Dict[str, int] = {}
    for d in details:
        for part in d.split(SEP):
            if is_finding(part):
                counts[_key(part)] = counts.get(_key(part), 0) + 1
    shown = set()
    out: List[str] = []
    for i, d in enumerate(details):
        kept: List[str] = []
        seen_here = set()
        for part in d.split(SEP):
            k = _key(part)
            if is_finding(part):
                if k in shown:
                    continue
                shown.add(k)
                kept.append(_with_count(part, counts[k]))
            elif k not in seen_here:
                seen_here.add(k)
                kept.append(part)
        if kept or i == 0:
            out.append(SEP.join(kept))
    return out


def dedup_message(message: str) -> str:
    """One message on its own (a crash's reason with the runner's last lines)."""
    return dedup([message])[0] if message else message
