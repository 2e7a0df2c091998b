"""What the bench's row checks share: `scanlab_bench --list` read into {row name: what it says}, and
the command line that runs a check on it (sort_rows_check.py, copy_rows_check.py)."""

import subprocess
import sys
from typing import Callable, Dict, List


def rows_of(listing: str) -> Dict[str, str]:
    """Each line of `--list` is a row's name, spaces, and what the row runs."""
    rows = {}
    for line in listing.splitlines():
        name, _, what = line.partition(" ")
        rows[name] = what.strip()
    return rows


def main(doc: str, what: str, problems: Callable[[Dict[str, str]], List[str]]) -> int:
    """Runs `BENCH --list` (BENCH: the one argument), prints what `problems` finds in its rows and
    exits 1 when it finds any, 2 on a usage error (the check's docstring is its usage)."""
    if len(sys.argv) != 2:
        print(doc.strip(), file=sys.stderr)
        return 2
    done = subprocess.run([sys.argv[1], "--list"], capture_output=True, text=True, timeout=60)
    if done.returncode != 0:
        print(f"{sys.argv[1]} --list failed ({done.returncode}): {done.stderr.strip()}")
        return 1
    wrong = problems(rows_of(done.stdout))
    for w in wrong:
        print(w)
    print(f"{what}: {len(wrong)} problem(s)")
    return 1 if wrong else 0
