#!/usr/bin/env python3
"""Plots of scanlab_bench runs: throughput against n, the way GPU engineers read speed.

  plot.py RUN.json [RUN.json ...] [--out FILE.svg] [--types int32] [--rows ch07_lookback,cub,copy]

One chart per run and type of element: GB/s (the bytes the bench counts) against n on a log2
axis, one line per row, the copy as the roof (black), CUB rows dashed in the colour of the row
they are compared with. Several runs (an H200's and an H100's) go side by side on one y scale.
The caption names each run's GPU, CUDA and CUB versions, the commit and the file it was drawn
from. This module is the one place of the charts' style: `./lab plot`, `./lab bench --plot`
(scanlab_bench --plot runs this file) and the book's plots (book/figures.py) all draw with it.

The SVG keeps text as text (searchable, scalable) and is the same bytes for the same runs and
matplotlib version (no date, fixed ids), so the book's staleness check can compare it. Exit
status: 0 drawn, 1 a run that cannot be drawn (the message says why), 2 bad arguments.
"""

from __future__ import annotations

import argparse
import math
import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_run import COPY_ROW, Run, RunError, is_cub, load_run  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]

# Okabe & Ito's palette, which stays apart for the common colour-blindnesses; black is the copy's.
# Yellow, the weakest on white, comes last. Every row also gets its own marker, so the lines can
# be told apart in greyscale print too.
PALETTE = ["#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#F0E442"]
MARKERS = ["o", "s", "^", "D", "v", "P", "X", "<", ">"]
COPY_COLOUR = "#000000"
SHARED_CUB_COLOUR = "#707070"
MAX_LINES = 9  # more rows than this in one chart: one chart per chapter instead
SUPERSCRIPT = str.maketrans("0123456789-", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻")


class UsageError(Exception):
    pass


@dataclass(frozen=True)
class Style:
    colour: str
    marker: str
    dashed: bool
    filled: bool
    width: float


@dataclass
class Panel:
    run: Run
    type: str
    rows: list[str]
    heading: str


def display_path(path: Path) -> str:
    """The path a caption names: from the repository root when the file is in it."""
    resolved = path.resolve()
    try:
        return str(resolved.relative_to(ROOT))
    except ValueError:
        return str(path)


def power_label(n: float) -> str:
    return "2" + str(int(round(math.log2(n)))).translate(SUPERSCRIPT)


def size_label(n: int) -> str:
    return power_label(n) if n & (n - 1) == 0 else str(n)


def chapter_of(algorithm: str) -> str:
    return algorithm[:4] if algorithm.startswith("ch") and algorithm[2:4].isdigit() else algorithm


def styles_for(panels: list[Panel]) -> tuple[dict[str, Style], list[str]]:
    """One style per row over the whole figure, so a row looks the same in every chart, and the
    legend's order: each row followed by its CUB row, the copy last. A CUB row that is the baseline
    of one row only takes that row's colour and marker (open, dashed)."""
    partners: dict[str, set[str]] = {}
    for p in panels:
        for row in p.rows:
            base = p.run.baseline_of(row, p.type) if row != COPY_ROW else None  # copy has a ratio to CUB too
            if base is not None:
                partners.setdefault(base, set()).add(row)
    mate_of = {next(iter(rows)): base for base, rows in partners.items() if len(rows) == 1}
    order: list[str] = []
    for p in panels:
        order += [r for r in p.rows if r not in order]
    styles: dict[str, Style] = {}
    legend: list[str] = []
    i = 0
    for row in order:
        if row == COPY_ROW or is_cub(row):
            continue
        styles[row] = Style(PALETTE[i % len(PALETTE)], MARKERS[i % len(MARKERS)], False, True, 1.6)
        legend.append(row)
        i += 1
        mate = mate_of.get(row)
        if mate in order:
            styles[mate] = Style(styles[row].colour, styles[row].marker, dashed=True, filled=False, width=1.6)
            legend.append(mate)
    for row in order:  # a CUB row compared with several rows: grey, for it belongs to none of them
        if is_cub(row) and row not in styles:
            styles[row] = Style(SHARED_CUB_COLOUR, MARKERS[i % len(MARKERS)], True, False, 1.6)
            legend.append(row)
            i += 1
    if COPY_ROW in order:
        styles[COPY_ROW] = Style(COPY_COLOUR, "", dashed=False, filled=True, width=2.4)
        legend.append(COPY_ROW)
    return styles, legend


def split_rows(run: Run, type_: str, rows: list[str]) -> list[list[str]]:
    """The rows of one chart, or, past MAX_LINES, one chart per chapter: its rows, the CUB rows
    they are compared with, and the copy."""
    if len(rows) <= MAX_LINES:
        return [rows]
    groups: dict[str, list[str]] = {}
    for row in rows:
        if row != COPY_ROW and not is_cub(row):
            groups.setdefault(chapter_of(row), []).append(row)
    used = set()
    charts = []
    for members in groups.values():
        bases = []
        for row in members:
            base = run.baseline_of(row, type_)
            if base in rows and base not in bases:
                bases.append(base)
        used.update(bases)
        chart = [r for r in rows if r in members or r in bases or r == COPY_ROW]
        charts.append(chart)
    rest = [r for r in rows if is_cub(r) and r not in used]
    if rest:
        charts.append(rest + ([COPY_ROW] if COPY_ROW in rows else []))
    return charts


def group_name(chart: list[str]) -> str:
    """What a chart of a split run shows: its chapter ("ch11"), or "CUB" for the CUB rows left."""
    own = [r for r in chart if r != COPY_ROW and not is_cub(r)]
    return chapter_of(own[0]) if own else "CUB"


def make_panels(runs: list[Run], types: list[str] | None, rows: list[str] | None) -> list[list[Panel]]:
    """The grid of charts: one column per run and type, one line of charts per group of rows."""
    names = [r.gpu for r in runs]
    columns = []
    for run in runs:
        run_types = types or run.types
        for t in run_types:
            if t not in run.types:
                raise UsageError(f"{display_path(run.path)} has no {t} rows (it has: {', '.join(run.types)})")
            available = run.rows_of(t)
            if rows:
                missing = [r for r in rows if r not in run.algorithms]
                if missing:
                    raise UsageError(f"{display_path(run.path)} has no row {', '.join(missing)} "
                                     f"(it has: {', '.join(run.algorithms)})")
                chosen = [r for r in rows if r in available]
            else:
                chosen = available
            if not chosen:
                raise RunError(f"{display_path(run.path)}: none of the rows asked for was measured for {t}")
            heading = run.gpu if names.count(run.gpu) == 1 else f"{run.gpu} ({run.path.name})"
            charts = split_rows(run, t, chosen)
            which = (lambda chart: f", {group_name(chart)}") if len(charts) > 1 else (lambda chart: "")
            columns.append([Panel(run, t, chart, f"{heading}, {t}{which(chart)}") for chart in charts])
    depth = max(len(c) for c in columns)
    return [[c[i] if i < len(c) else None for c in columns] for i in range(depth)]


def caption_lines(runs: list[Run], commits: list[str | None], width: int) -> list[str]:
    names = [r.gpu for r in runs]
    lines = []
    for run, commit in zip(runs, commits, strict=True):
        who = run.gpu if names.count(run.gpu) == 1 else f"{run.gpu} ({run.path.name})"
        built = commit or (f"commit {run.commit}" if run.commit else "commit not recorded in the run")
        lines.append(f"{who}: CUDA {run.cuda}, CUB {run.cub}, {built}; drawn from {display_path(run.path)}")
    lines.append(f"GB/s counts {runs[0].bytes_counted.replace('*', ' × ')} over the median time. "
                 "Copy (black) is the roof; CUB rows are dashed.")
    for run in runs:
        for (algorithm, t), statuses in sorted(run.not_measured.items()):
            if (algorithm, t) not in run.series:
                lines.append(f"Not drawn: {algorithm} ({t}) on the {run.gpu}, {', '.join(sorted(set(statuses)))}.")
    return [w for line in lines for w in textwrap.wrap(line, width, break_on_hyphens=False)]


def draw(runs: list[Run], out: Path, types: list[str] | None = None, rows: list[str] | None = None,
         commits: list[str | None] | None = None, title: str | None = None, log_y: bool = False) -> None:
    """Draws RUNS into OUT (an SVG). LOG_Y: a log scale for GB/s, for rows far below the copy
    (the sorts), where a linear scale would flatten them onto the axis."""
    import matplotlib

    matplotlib.use("svg")
    from matplotlib import pyplot as plt
    from matplotlib.ticker import FixedLocator, NullLocator

    grid = make_panels(runs, types, rows)
    panels = [p for line in grid for p in line if p is not None]
    styles, legend = styles_for(panels)
    ncols, nrows = len(grid[0]), len(grid)
    with matplotlib.rc_context({
        "svg.fonttype": "none",  # text stays text
        "svg.hashsalt": "scanlab-bench-plot",  # fixed ids: the same runs give the same bytes
        "font.family": "sans-serif",
        "font.sans-serif": ["DejaVu Sans"],
        "font.size": 10,
        "axes.spines.top": False,
        "axes.spines.right": False,
        "axes.grid": True,
        "axes.grid.axis": "y",
        "grid.color": "#d9d9d9",
        "grid.linewidth": 0.6,
        "legend.frameon": False,
    }):
        width = max(6.0, 3.7 * ncols + 0.6)  # inches: about the book's column at 96 dpi for two charts
        chars = int((width - 0.95) * 72 / (8 * 0.6))
        caption = caption_lines(runs, commits or [None] * len(runs), chars)
        # The legend: its rows in pairs (a row beside its CUB row) when every CUB row has its own.
        order = [r for r in legend if any(p.run.series.get((r, p.type)) for p in panels if r in p.rows)]
        paired = all(styles[r].dashed for r in order[1::2] if r != COPY_ROW) and len(order) > 3
        ncol = 2 if paired or ncols == 1 else min(4, len(order))
        legend_rows = math.ceil(len(order) / ncol)
        head, axes_h, under = 0.45, 3.0 * nrows + 0.75 * (nrows - 1), 0.6
        legend_h, caption_h = 0.24 * legend_rows + 0.15, 0.18 * len(caption) + 0.1
        height = head + axes_h + under + legend_h + caption_h
        fig, axes = plt.subplots(nrows, ncols, figsize=(width, height), sharey="row", squeeze=False)
        fig.subplots_adjust(left=0.75 / width, right=1 - 0.2 / width, top=1 - head / height,
                            bottom=(under + legend_h + caption_h) / height, wspace=0.16,
                            hspace=0.75 / 3.0)
        handles = {}
        for r, line in enumerate(grid):
            for c, panel in enumerate(line):
                ax = axes[r][c]
                if panel is None:
                    ax.set_visible(False)
                    continue
                sizes = sorted({p.n for row in panel.rows for p in panel.run.series.get((row, panel.type), [])})
                for row in panel.rows:
                    points = panel.run.series.get((row, panel.type), [])
                    if not points:
                        continue
                    s = styles[row]
                    (h,) = ax.plot([p.n for p in points], [p.gb_per_s for p in points], label=row, color=s.colour,
                                   linestyle=(0, (5, 3)) if s.dashed else "-", linewidth=s.width,
                                   marker=s.marker or None, markersize=5,
                                   markerfacecolor=s.colour if s.filled else "white", markeredgewidth=1.2,
                                   zorder=1 if row == COPY_ROW else 2,
                                   gid=f"series-{r}-{c}-{row}")
                    handles.setdefault(row, h)
                ax.set_xscale("log", base=2)
                lo, hi = math.floor(math.log2(sizes[0])), math.ceil(math.log2(sizes[-1]))
                step = 1 if hi - lo <= 8 else 2
                ticks = [2.0**k for k in range(lo + (lo % step if step == 2 else 0), hi + 1, step)]
                ax.xaxis.set_major_locator(FixedLocator(ticks))
                ax.xaxis.set_minor_locator(NullLocator())
                ax.set_xticklabels([power_label(t) for t in ticks])
                ax.set_xlim(2.0 ** (math.log2(sizes[0]) - 0.3), 2.0 ** (math.log2(sizes[-1]) + 0.3))
                if log_y:
                    ax.set_yscale("log")
                ax.set_title(panel.heading, fontsize=10, loc="left")
                ax.set_xlabel("n, elements (log₂ scale)")
                if c == 0:
                    ax.set_ylabel("throughput, GB/s")
                ax.tick_params(labelleft=True)
        for line in axes:
            shown = [ax for ax in line if ax.get_visible()]
            values = [y for ax in shown for drawn in ax.get_lines() for y in drawn.get_ydata()]
            if log_y:
                ticks = [m * 10.0**e for e in range(0, 6) for m in (1, 2, 5)
                         if min(values) / 1.5 <= m * 10.0**e <= max(values) * 1.5]
                for ax in shown:
                    ax.set_ylim(min(values) / 1.3, max(values) * 1.3)
                    ax.yaxis.set_major_locator(FixedLocator(ticks))
                    ax.yaxis.set_minor_locator(NullLocator())
                    ax.set_yticklabels([f"{t:g}" for t in ticks])
                    ax.set_ylabel("throughput, GB/s (log scale)" if ax is shown[0] else "")
            else:
                for ax in shown:
                    ax.set_ylim(0, max(values) * 1.04)
        entries, labels = row_major([handles[r] for r in order], order, ncol)
        fig.legend(entries, labels, loc="upper center", ncol=ncol,
                   bbox_to_anchor=(0.5, (legend_h + caption_h) / height), fontsize=9, handlelength=3.2,
                   columnspacing=2.0)
        fig.text(0.75 / width, (caption_h - 0.05) / height, "\n".join(caption), fontsize=8, va="top",
                 ha="left", color="#333333", linespacing=1.5)
        if title:
            fig.suptitle(title, x=0.75 / width, ha="left", fontsize=11)
        sources = "; ".join(f"{display_path(r.path)} sha256:{r.sha256}" for r in runs)
        fig.savefig(out, format="svg", bbox_inches="tight", pad_inches=0.1, metadata={
            "Date": None,
            "Creator": f"scanlab bench/plot.py, matplotlib {matplotlib.__version__}",
            "Source": sources,
            "Title": title or "; ".join(p.heading for p in panels),
        })
        plt.close(fig)


def row_major(handles: list, labels: list[str], ncol: int) -> tuple[list, list[str]]:
    """Matplotlib fills a legend column by column; this order reads line by line instead (a row
    and its CUB row side by side), blank entries filling the last line."""
    from matplotlib.lines import Line2D

    rows = math.ceil(len(handles) / ncol)
    blank = rows * ncol - len(handles)
    handles = handles + [Line2D([], [], alpha=0)] * blank
    labels = labels + [""] * blank
    order = [r * ncol + c for c in range(ncol) for r in range(rows)]
    return [handles[i] for i in order], [labels[i] for i in order]


def parse_list(text: str | None) -> list[str] | None:
    return [x for x in text.split(",") if x] if text else None


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="plot", description=__doc__.split("\n\n")[0])
    ap.add_argument("runs", nargs="+", type=Path, metavar="RUN.json",
                    help="scanlab_bench --json files (or the table it printed, for runs kept as text)")
    ap.add_argument("--out", type=Path, help="the SVG to write (default: the first run's name, .svg, here)")
    ap.add_argument("--types", help="element types to draw, comma-separated (default: every type in the runs)")
    ap.add_argument("--rows", help="rows to draw, comma-separated, in the legend's order (default: all)")
    ap.add_argument("--title", help="a title above the charts")
    ap.add_argument("--log-y", action="store_true", help="GB/s on a log scale (rows far below the copy, e.g. sorts)")
    a = ap.parse_args(argv)
    out = a.out or Path(a.runs[0].with_suffix(".svg").name)
    if out.suffix.lower() != ".svg":
        print(f"plot: --out {out}: the plot is an SVG; name it FILE.svg", file=sys.stderr)
        return 2
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        print("plot: needs matplotlib (Debian package python3-matplotlib; ./lab installs it)", file=sys.stderr)
        return 1
    try:
        runs = [load_run(p) for p in a.runs]
        draw(runs, out, parse_list(a.types), parse_list(a.rows), title=a.title, log_y=a.log_y)
    except RunError as e:
        print(f"plot: {e}", file=sys.stderr)
        return 1
    except UsageError as e:
        print(f"plot: {e}", file=sys.stderr)
        return 2
    except OSError as e:
        print(f"plot: cannot write {out}: {e.strerror or e}", file=sys.stderr)
        return 1
    print(f"plot: wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
