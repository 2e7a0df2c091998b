"""The lab's speed goals, checked against a scanlab_bench run: compaction near its bound, chapter 11
near a copy, Onesweep at or past CUB, the segmented scan ahead of CUB. Standard library only.

    python3 bench/goals.py RUN.json [RUN.json ...]   each run's goals: every row, type and size
                                                     measured against its goal, met or not
    python3 bench/goals.py --bench-args              the scanlab_bench arguments of a run that
                                                     measures every goal (./lab goals --run)

A goal holds on a row and type when every size the run measured from the goal's smallest size up
meets it, and the run measured each size the goal names. "x copy" is the copy's time over the row's
in the same run (above 1: faster), "x CUB" the ratio the run recorded against the row's CUB
counterpart (for a sort, the faster of CUB's two item-count types). Each run is judged on its own:
the goals ask for one run with the copy and CUB beside the rows.

Exit status: 0 when every goal of every run is met; 1 when one is missed or not measured; 2 when a
file is not a run (the message says why).
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_run import COPY_ROW, Run, RunError, load_run  # noqa: E402


@dataclass(frozen=True)
class Goal:
    what: str                # the goal in words
    row: str                 # the bench row it is checked on
    types: tuple[str, ...]   # the element types it is checked for
    against: str             # "copy" (x copy) or "cub" (x CUB, the run's recorded ratio)
    at_least: float          # the ratio the row must reach
    sizes: tuple[int, ...]   # log2 of the sizes the run must measure; larger ones count too
    baselines: tuple[str, ...] = ()  # rows a run needs beside it for its ratio


SORT_KEYS = ("cub_radix_sort_keys_int", "cub_radix_sort_keys_size_t")
SORT_PAIRS = ("cub_radix_sort_pairs_int", "cub_radix_sort_pairs_size_t")
SORT_KEYS_U64 = ("cub_radix_sort_keys_u64_int", "cub_radix_sort_keys_u64_size_t")
SORT_PAIRS_U64 = ("cub_radix_sort_pairs_u64_int", "cub_radix_sort_pairs_u64_size_t")
BOTH = ("int32", "float")

GOALS = (
    Goal("select-if, half kept, at 1.1 x copy (its bound: 1.33)", "ch08_select_if_single_pass", BOTH, "copy", 1.10,
         (26, 28)),
    Goal("partition-if, half kept, at 0.85 x copy (its bound: 1.0)", "ch08_partition_if_single_pass", BOTH, "copy",
         0.85, (26, 28)),
    Goal("Onesweep, uniform uint32 keys, at or past CUB's SortKeys", "ch09_onesweep_sort_keys", ("int32",), "cub",
         1.0, (24, 26, 28), SORT_KEYS),
    Goal("Onesweep, uniform uint32 pairs, at or past CUB's SortPairs", "ch09_onesweep_sort_pairs", ("int32",), "cub",
         1.0, (24, 26, 28), SORT_PAIRS),
    Goal("Onesweep, uniform uint64 keys, at or past CUB's SortKeys", "ch09_onesweep_keys_u64", ("int32",), "cub", 1.0,
         (24, 26, 28), SORT_KEYS_U64),
    Goal("Onesweep, uniform uint64 pairs, at or past CUB's SortPairs", "ch09_onesweep_pairs_u64", ("int32",), "cub",
         1.0, (24, 26, 28), SORT_PAIRS_U64),
    Goal("segmented scan at 1.5 x CUB's InclusiveSumByKey", "ch10_segmented_scan", ("int32",), "cub", 1.5,
         (22, 24, 26, 28), ("cub_inclusive_sum_by_key",)),
    Goal("chapter 11's scan object at 0.95 x copy", "ch11_async_copy", BOTH, "copy", 0.95, (26, 28)),
)


def goal_rows() -> list[str]:
    """The rows a run needs for every goal: the copy, then each goal's CUB counterparts and row."""
    rows = [COPY_ROW]
    for g in GOALS:
        for name in (*g.baselines, g.row):
            if name not in rows:
                rows.append(name)
    return rows


def bench_args() -> list[str]:
    """scanlab_bench's arguments for one run that measures every goal: its rows, at every size a
    goal names, in every type one asks for."""
    sizes = sorted({s for g in GOALS for s in g.sizes})
    types = [t for t in BOTH if any(t in g.types for g in GOALS)]
    return ["--algorithms", ",".join(goal_rows()), "--sizes", ",".join(f"2^{s}" for s in sizes),
            "--types", ",".join(types)]


@dataclass
class Verdict:
    goal: Goal
    type_: str
    ratios: dict[int, float]  # log2 n -> the ratio measured
    missing: list[str]        # why a size the goal names has no ratio

    @property
    def below(self) -> bool:
        return any(r < self.goal.at_least for r in self.ratios.values())

    @property
    def met(self) -> bool:
        return not self.missing and bool(self.ratios) and not self.below

    @property
    def word(self) -> str:
        if self.met:
            return "met"
        if self.below:
            return "MISSED"
        return "incomplete" if self.ratios else "not measured"


def log2_of(n: int) -> int | None:
    return n.bit_length() - 1 if n & (n - 1) == 0 else None


def by_log2(run: Run, row: str, type_: str) -> dict:
    """A row's measured points at the run's power-of-two sizes, by log2 n."""
    return {k: p for p in run.series.get((row, type_), []) if (k := log2_of(p.n)) is not None}


def judge(run: Run, goal: Goal, type_: str) -> Verdict:
    points, copies = by_log2(run, goal.row, type_), by_log2(run, COPY_ROW, type_)
    ratios: dict[int, float] = {}
    missing: list[str] = []
    for k in sorted(set(points) | set(goal.sizes)):
        if k < min(goal.sizes):
            continue
        p = points.get(k)
        if p is None:
            status = run.not_measured.get((goal.row, type_))
            why = f"not measured ({', '.join(sorted(set(status)))})" if status else "not in the run"
            missing.append(f"2^{k}: {why}")
        elif goal.against == "copy":
            if k in copies:
                ratios[k] = copies[k].median_ms / p.median_ms
            else:
                missing.append(f"2^{k}: no copy row to compare with")
        elif p.ratio_to_cub is not None:
            ratios[k] = p.ratio_to_cub
        else:
            missing.append(f"2^{k}: no CUB counterpart measured ({', '.join(goal.baselines) or 'cub'})")
    return Verdict(goal, type_, ratios, missing)


def report(run: Run) -> tuple[list[str], bool]:
    """The lines that say how the run meets each goal, and whether it meets them all."""
    commit = f", commit {run.commit}" if run.commit else ""
    lines = [f"{run.path}: {run.gpu}, CUDA {run.cuda}, CUB {run.cub}{commit}"]
    all_met = True
    for goal in GOALS:
        for type_ in goal.types:
            v = judge(run, goal, type_)
            all_met = all_met and v.met
            unit = "x copy" if goal.against == "copy" else "x CUB"
            cells = ", ".join(f"2^{k} {r:.3f}" + ("" if r >= goal.at_least else " (below)") for k, r in
                              sorted(v.ratios.items()))
            detail = "; ".join(x for x in (cells, *v.missing) if x)
            lines.append(f"  {v.word:12s} {goal.what} [{goal.row}, {type_}; {unit} >= {goal.at_least:g}]: {detail}")
    return lines, all_met


def main(argv: list[str]) -> int:
    if argv == ["--bench-args"]:
        print(" ".join(bench_args()))
        return 0
    if not argv or any(a.startswith("-") for a in argv):
        print(__doc__.strip(), file=sys.stderr)
        return 2
    all_met = True
    for path in argv:
        try:
            run = load_run(path)
        except RunError as e:
            print(f"goals: {e}", file=sys.stderr)
            return 2
        lines, met = report(run)
        print("\n".join(lines))
        all_met = all_met and met
    print("every goal met" if all_met else "not every goal met (above)")
    return 0 if all_met else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
