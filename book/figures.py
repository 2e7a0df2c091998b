#!/usr/bin/env python3
"""The book's figures (book/docs/figures/), remade from real runs: `./lab figures` runs this.

Every figure is drawn by the visualizer (scanlab-viz, what `./lab viz NN` runs) from a run of a
chapter's reference solution on the CPU emulator. FIGURES below is the one list of them: the
scanlab-viz arguments of each run and the files of that run that the book shows.

  figures.py --viz build/cpu/bin/scanlab-viz           remake the figures in book/docs/figures/
  figures.py --viz build/cpu/bin/scanlab-viz --check   remake them in a temporary folder and fail
                                                        when the committed ones differ (a ctest)

Each figure is committed twice: NAME.svg, the picture the book shows, and src/NAME.dot, the
Graphviz source the visualizer wrote for it. What --check compares, and why:

  * src/NAME.dot, byte for byte with the DOT of a new run. The DOT is the visualizer's own output
    (every value, label, colour and pinned position): it does not depend on the Graphviz version,
    so any difference means the figure is stale (the kernels, the emulator or the visualizer
    changed since it was made).
  * NAME.svg against the new run's SVG (rendered here, by this machine's Graphviz), on what does
    not depend on the Graphviz version: the node and edge names, every text in the picture (in
    order) and the colours used. Coordinates are not compared: another Graphviz release places
    edges and text a little differently, and that does not make a figure wrong. So an SVG that was
    not rendered again after its DOT changed, or that was edited by hand, fails; one rendered by
    another Graphviz passes, and CI needs no particular Graphviz version.
  * Nothing else lives in book/docs/figures/: a figure that is no longer in FIGURES fails too.
"""
import argparse
import concurrent.futures
import json
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FIGURES_DIR = ROOT / "book" / "docs" / "figures"


def chapter_of(name):
    """The chapter NN of a figure, trace or plot named chNN_...: the name says whose it is, and a
    student's repository (./lab release) holds only those of the chapters handed out."""
    return name[2:4] if len(name) > 4 and name[:2] == "ch" and name[2:4].isdigit() and name[4] == "_" else None


def chapters_here(root=ROOT):
    """The chapters this repository has: chapters/chapters.json (all of them, or in a student's
    repository those handed out)."""
    return {c["nn"] for c in json.loads((root / "chapters" / "chapters.json").read_text(encoding="utf-8"))["chapters"]}


def handed_out(name, chapters=None):
    """Whether a figure, trace or plot is in this repository: its chapter is (or it has none)."""
    nn = chapter_of(name)
    return nn is None or nn in (chapters_here() if chapters is None else chapters)

# One row per scanlab-viz run: its arguments (as for `./lab viz`), then {file the run writes: name
# of the figure in book/docs/figures/}. Chapter 01's steps are computed from the input; the others
# come from a traced run of the reference solution (--solution) on the emulator.
FIGURES = [
    ("01 --input 3,1,7,0,4,1,6,3", {"steps": "ch01_steps"}),
    ("02 --solution --input 3,1,7,0,4,1,6,3", {"upsweep": "ch02_upsweep", "downsweep": "ch02_downsweep"}),
    ("03 --solution", {"bank_levels": "ch03_bank_levels", "bank_map_load": "ch03_bank_map_load",
                       "bank_map_up5": "ch03_bank_map_up5"}),
    ("05 --solution", {"scan_then_propagate": "ch05_multi_block"}),
    ("05 --solution --algorithm reduce-then-scan --max-blocks 2", {"reduce_then_scan": "ch05_reduce_then_scan"}),
    ("07 --solution", {"snapshot": "ch07_fig6_snapshot"}),
    ("07 --solution --at 16", {"snapshot": "ch07_fig6_step16"}),
]


def run_viz(viz, args, out):
    """Runs scanlab-viz ARGS --out OUT; returns its output, raises on failure. The emulator runs
    with its default options whatever SCANLAB_EMU_* variables are set (a block order or a memory
    model from the environment would change what some figures show)."""
    cmd = [str(viz)] + shlex.split(args) + ["--out", str(out)]
    env = {k: v for k, v in os.environ.items() if not k.startswith("SCANLAB_EMU_")}
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
    if r.returncode != 0:
        raise RuntimeError(f"scanlab-viz {args} failed (exit status {r.returncode}):\n{r.stdout}")
    return r.stdout


def regenerate(viz, into):
    """Runs every row of FIGURES (in parallel, each into its own folder under INTO); returns
    {figure name: (path of its new .dot, path of its new .svg)}."""
    made = {}
    jobs = max(1, min(len(FIGURES), os.cpu_count() or 1))
    with concurrent.futures.ThreadPoolExecutor(jobs) as pool:
        runs = []
        for i, (args, files) in enumerate(FIGURES):
            out = Path(into) / f"run{i}"
            runs.append(pool.submit(run_viz, viz, args, out))
            for written, name in files.items():
                made[name] = (out / f"{written}.dot", out / f"{written}.svg")
        for run in runs:
            run.result()
    for name, paths in made.items():
        for p in paths:
            if not p.is_file():
                raise RuntimeError(f"{name}: scanlab-viz did not write {p}")
    return made


def svg_content(path):
    """What an SVG says independently of the Graphviz version that rendered it: the names of its
    nodes and edges and every text, in document order, and how many times each colour is used
    (Graphviz 2.x writes an invisible stroke as "transparent", later versions as "none")."""
    texts, colours = [], Counter()
    for e in ET.parse(path).iter():
        tag = e.tag.rsplit("}", 1)[-1]
        if tag in ("title", "text"):
            texts.append((tag, "".join(e.itertext())))
        for attr in ("fill", "stroke"):
            value = e.get(attr)
            if value is not None:
                colours["none" if value == "transparent" else value.lower()] += 1
    return texts, colours


def first_difference(a, b):
    for i, (x, y) in enumerate(zip(a, b, strict=False)):
        if x != y:
            return f"item {i}: {x!r} here, {y!r} in a new rendering"
    return f"{len(a)} items here, {len(b)} in a new rendering"


def check(figures_dir, made):
    """Compares the committed figures with the new ones; returns the problems found."""
    problems = []
    expected = {f"{name}.svg" for name in made}
    for p in sorted(figures_dir.iterdir()):
        if p.is_file() and p.name not in expected:
            problems.append(f"{p.name}: not made by any row of FIGURES in book/figures.py")
    src = figures_dir / "src"
    for p in sorted(src.iterdir()) if src.is_dir() else []:
        if p.name not in {f"{name}.dot" for name in made}:
            problems.append(f"src/{p.name}: not made by any row of FIGURES in book/figures.py")
    for name, (new_dot, new_svg) in sorted(made.items()):
        dot, svg = src / f"{name}.dot", figures_dir / f"{name}.svg"
        if not dot.is_file():
            problems.append(f"src/{name}.dot: missing (the DOT source of {name}.svg)")
        elif dot.read_bytes() != new_dot.read_bytes():
            problems.append(f"src/{name}.dot: stale, a new run draws something else (diff it with {new_dot})")
        if not svg.is_file():
            problems.append(f"{name}.svg: missing")
            continue
        try:
            (texts, colours), (new_texts, new_colours) = svg_content(svg), svg_content(new_svg)
        except ET.ParseError as e:
            problems.append(f"{name}.svg: not a well-formed SVG ({e})")
            continue
        if texts != new_texts:
            problems.append(f"{name}.svg: its nodes, edges or texts are not those of its DOT source "
                            f"({first_difference(texts, new_texts)})")
        elif colours != new_colours:
            problems.append(f"{name}.svg: its colours are not those of its DOT source "
                            f"(here {dict(colours - new_colours)}, in a new rendering {dict(new_colours - colours)})")
    return problems


def update(figures_dir, made):
    """Copies the new figures into FIGURES_DIR (NAME.svg, src/NAME.dot) and removes the files no
    row makes; prints what changed."""
    (figures_dir / "src").mkdir(parents=True, exist_ok=True)
    wanted = set()
    for name, (new_dot, new_svg) in sorted(made.items()):
        for new, old in ((new_svg, figures_dir / f"{name}.svg"), (new_dot, figures_dir / "src" / f"{name}.dot")):
            wanted.add(old)
            if old.is_file() and old.read_bytes() == new.read_bytes():
                continue
            print(f"{'updated' if old.is_file() else 'added'} {old.relative_to(ROOT)}")
            shutil.copyfile(new, old)
    for p in sorted(figures_dir.iterdir()) + sorted((figures_dir / "src").iterdir()):
        if p.is_file() and p not in wanted:
            print(f"removed {p.relative_to(ROOT)} (no row of FIGURES makes it)")
            p.unlink()


# ---------------------------------------------------------------------------------------------
# The plots: speeds measured on GPUs, drawn by bench/plot.py (the style of every chart) from the
# committed runs in book/docs/measurements/ into book/docs/figures/plots/NAME.svg. No build and no
# GPU needed: `figures.py --plots [--check]` (./lab figures runs it; the ctest book_plots_current
# runs it with --check).
#
# --check draws every plot again in a temporary folder. With the matplotlib version that drew the
# committed SVG (its metadata names it), the two must be the same bytes: bench/plot.py writes no
# date and fixed ids. With another version, layout may differ, so only what does not depend on it
# is compared: the runs' SHA-256 (in the SVG's metadata) and every text. Either way a run whose
# JSON changed, a row list that changed or a hand-edited SVG fails, and nothing else may live in
# plots/.

PLOTS_DIR = FIGURES_DIR / "plots"
MEASUREMENTS = ROOT / "book" / "docs" / "measurements"


@dataclass(frozen=True)
class Plot:
    name: str  # book/docs/figures/plots/NAME.svg
    runs: tuple  # under book/docs/measurements/; side by side, H200 first
    rows: tuple  # the rows drawn, in the legend's order
    types: tuple = ("int32",)
    log_y: bool = False
    commits: tuple = ()  # per run (or None): the commit, where the folder's README names it and the run does not


README = "(the folder's README)"
PLOTS = [
    # The first H200 runs were kept as scanlab_bench's printed table only (bench_run.py reads it).
    Plot("ch04_tiles_h200", ("h200-2026-11-21/bench_chapters_00_05.txt",),
         ("ch01_hillis_steele_tiles", "ch02_blelloch_tiles", "ch03_blelloch_padded_tiles", "ch04_items_tiles",
          "cub", "copy")),
    Plot("ch06_chained_h200", ("h200-2026-11-21/bench_scan.txt",),
         ("ch06_chained", "ch05_reduce_then_scan", "cub", "copy"), log_y=True),
    Plot("ch05_scans_h100", ("h100-2026-11-26/bench_apps_after_split.json",),
         ("ch05_scan_then_propagate", "ch05_reduce_then_scan", "ch07_lookback", "cub", "copy")),
    Plot("ch07_lookback_h200_h100",
         ("h200-2026-11-26/one_wave_tile/scan_cub301.json", "h100-2026-11-26/one_wave_tile/scan_cub301.json"),
         ("ch07_lookback", "cub", "copy"), commits=(None, f"commit b73e181 {README}")),
    Plot("ch07_two_cubs_h100",
         ("h100-2026-11-26/two_sided_storage/bench_scan_cub301.json",
          "h100-2026-11-26/two_sided_storage/bench_scan_cub350.json"),
         ("ch07_lookback", "cub", "copy")),
    Plot("ch08_compaction_h200_h100",
         ("h200-2026-11-27/apps_a0fada4/ch08.json", "h100-2026-11-27/apps_d415497/ch08.json"),
         ("ch08_select_if_single_pass", "ch08_partition_if_single_pass", "cub_select_if", "cub_partition_if", "copy"),
         commits=(f"commit a0fada4 {README}", f"commit d415497 {README}")),
    Plot("ch09_onesweep_h200_h100",
         ("h200-2026-11-27/ch09_full_tiles_window/ch09.json", "h100-2026-11-27/ch09_full_tiles_window/ch09.json"),
         ("ch09_onesweep_sort_keys", "ch09_onesweep_sort_pairs", "cub_radix_sort_keys", "cub_radix_sort_pairs", "copy"),
         log_y=True, commits=(f"commit 672c65b {README}", f"commit 672c65b {README}")),
    Plot("ch10_segmented_h200_h100",
         ("h200-2026-11-27/apps_a0fada4/ch10.json", "h100-2026-11-27/apps_d415497/ch10.json"),
         ("ch10_segmented_scan", "cub_inclusive_sum_by_key", "copy"),
         commits=(f"commit a0fada4 {README}", f"commit d415497 {README}")),
    # The two-tile kernel at every size against chapter 07's: where they cross (2^23) is where the
    # scan object (ch11_async_copy) now stages; in these runs it still staged from 2^25.
    Plot("ch11_scan_h200_h100",
         ("h200-2026-11-27/scan_tables_after_polls/scan_cub350.json",
          "h100-2026-11-27/ch11_two_tiles/scan_cub301.json"),
         ("ch11_two_tiles", "ch07_lookback", "cub", "copy"), commits=(f"commit c4fdd72 {README}", None)),
]


class NoMatplotlib(RuntimeError):
    """The plots cannot be drawn here (the ctest is then skipped, exit 77)."""


def plot_module():
    """bench/plot.py, or NoMatplotlib."""
    sys.path.insert(0, str(ROOT / "bench"))
    try:
        import matplotlib  # noqa: F401
        import plot
    except ImportError as e:
        raise NoMatplotlib(f"the plots need matplotlib (Debian package python3-matplotlib): {e}") from None
    return plot


def draw_plots(into, plots=None, measurements=MEASUREMENTS):
    """Draws every plot into INTO; returns {name: path of its new SVG}."""
    plot = plot_module()
    made = {}
    for p in PLOTS if plots is None else plots:
        out = Path(into) / f"{p.name}.svg"
        try:
            runs = [plot.load_run(measurements / r) for r in p.runs]
            plot.draw(runs, out, list(p.types), list(p.rows), commits=list(p.commits) or None, log_y=p.log_y)
        except (plot.RunError, plot.UsageError) as e:
            raise RuntimeError(f"plot {p.name}: {e}") from None
        made[p.name] = out
    return made


def svg_meta_texts(path):
    """(the matplotlib version named in the SVG's metadata, its dc:source, every text in order)."""
    root = ET.parse(path).getroot()
    creator = source = ""
    texts = []
    for e in root.iter():
        tag = e.tag.rsplit("}", 1)[-1]
        if tag == "source":
            source = e.text or ""
        elif tag == "title" and (e.text or "").startswith("scanlab bench/plot.py"):
            creator = e.text
        elif tag == "text":
            texts.append("".join(e.itertext()))
    return creator, source, texts


def check_plots(plots_dir, made):
    """Compares the committed plots with new drawings; returns the problems found."""
    problems = []
    if plots_dir.is_dir():
        for p in sorted(plots_dir.iterdir()):
            if p.name not in {f"{name}.svg" for name in made}:
                problems.append(f"plots/{p.name}: not made by any row of PLOTS in book/figures.py")
    for name, new in sorted(made.items()):
        old = plots_dir / f"{name}.svg"
        if not old.is_file():
            problems.append(f"plots/{name}.svg: missing")
            continue
        if old.read_bytes() == new.read_bytes():
            continue
        try:
            (creator, source, texts), (new_creator, new_source, new_texts) = svg_meta_texts(old), svg_meta_texts(new)
        except ET.ParseError as e:
            problems.append(f"plots/{name}.svg: not a well-formed SVG ({e})")
            continue
        if creator == new_creator:
            problems.append(f"plots/{name}.svg: stale, a new drawing differs (its runs, its row of PLOTS or "
                            f"bench/plot.py changed; diff it with {new})")
        elif source != new_source:
            problems.append(f"plots/{name}.svg: drawn from other data than its runs hold now "
                            f"(here: {source}; now: {new_source})")
        elif texts != new_texts:
            problems.append(f"plots/{name}.svg: its texts are not those of a new drawing "
                            f"({first_difference(texts, new_texts)})")
    return problems


def plots_main(check_only, plots_dir, keep):
    tmp = tempfile.mkdtemp(prefix="scanlab-plots-")
    try:
        chapters = chapters_here()
        made = draw_plots(tmp, [p for p in PLOTS if handed_out(p.name, chapters)])  # a release: its chapters'
        if not check_only:
            plots_dir.mkdir(parents=True, exist_ok=True)
            for name, new in sorted(made.items()):
                old = plots_dir / f"{name}.svg"
                if not (old.is_file() and old.read_bytes() == new.read_bytes()):
                    print(f"{'updated' if old.is_file() else 'added'} {old.relative_to(ROOT)}")
                    shutil.copyfile(new, old)
            for p in sorted(plots_dir.iterdir()):
                if p.name not in {f"{name}.svg" for name in made}:
                    print(f"removed {p.relative_to(ROOT)} (no row of PLOTS makes it)")
                    p.unlink()
            print(f"figures: {len(made)} plots in {plots_dir}")
            return 0
        problems = check_plots(plots_dir, made)
        if not problems:
            print(f"figures: all {len(made)} plots in {plots_dir} are what a new drawing of their runs gives")
            return 0
        for p in problems:
            print(f"figures: {p}", file=sys.stderr)
        print("figures: run ./lab figures to draw them again, look at the result, and commit it", file=sys.stderr)
        keep = True
        return 1
    except NoMatplotlib as e:
        print(f"figures: {e}", file=sys.stderr)
        return 77
    except RuntimeError as e:
        print(f"figures: {e}", file=sys.stderr)
        return 1
    finally:
        if keep:
            print(f"figures: the new plots are in {tmp}", file=sys.stderr)
        else:
            shutil.rmtree(tmp, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--viz", help="the scanlab-viz program (build/cpu/bin/scanlab-viz)")
    ap.add_argument("--plots", action="store_true",
                    help="the plots of measured runs instead (book/docs/figures/plots/; needs no --viz)")
    ap.add_argument("--check", action="store_true",
                    help="remake the figures in a temporary folder and fail when the committed ones differ")
    ap.add_argument("--figures", type=Path, default=FIGURES_DIR, help="the figures folder (default: %(default)s)")
    ap.add_argument("--keep", action="store_true", help="keep the temporary folder (to diff a stale figure)")
    a = ap.parse_args()
    if a.plots:
        return plots_main(a.check, a.figures / "plots", a.keep)
    if not a.viz:
        ap.error("--viz is needed for the diagrams (or --plots for the plots)")
    tmp = tempfile.mkdtemp(prefix="scanlab-figures-")
    try:
        made = regenerate(a.viz, tmp)
        traces = regenerate_traces(a.viz, tmp)
        if not a.check:
            update(a.figures, made)
            update_traces(a.figures / "traces", traces)
            print(f"figures: {len(made)} figures in {a.figures}")
            return 0
        problems = check(a.figures, made) + check_traces(a.figures / "traces", traces)
        if not problems:
            print(f"figures: all {len(made)} figures and {len(traces)} traces in {a.figures} are what a new run draws")
            return 0
        for p in problems:
            print(f"figures: {p}", file=sys.stderr)
        print("figures: run ./lab figures to remake them, look at the result, and commit it", file=sys.stderr)
        a.keep = True
        return 1
    except RuntimeError as e:
        print(f"figures: {e}", file=sys.stderr)
        return 1
    finally:
        if a.keep:
            print(f"figures: the new files are in {tmp}", file=sys.stderr)
        else:
            shutil.rmtree(tmp, ignore_errors=True)


# ---------------------------------------------------------------------------------------------
# The traces the book's step-through players play (visualizer/player/; book/hooks/player.py embeds
# book/docs/figures/traces/NAME.jsonl where a chapter page names it). Each is the trace file of a
# scanlab-viz run, checked like a DOT source: byte for byte what a new run records. A run with the
# same arguments as a row of FIGURES is not made twice: regenerate() left its files in run{i}/.
TRACES = [
    # (scanlab-viz arguments, the trace file the run writes, name)
    ("01 --input 3,1,7,0,4,1,6,3", "steps.jsonl", "ch01_steps"),
    ("02 --solution --input 3,1,7,0,4,1,6,3", "trace.jsonl", "ch02_blelloch"),
    ("03 --solution", "banks.jsonl", "ch03_banks"),
    ("05 --solution", "trace.jsonl", "ch05_scan_then_propagate"),
    ("07 --solution", "trace.jsonl", "ch07_fig6"),
    ("08 --solution", "trace.jsonl", "ch08_compaction"),  # no figure: the player draws its tiles
]


def regenerate_traces(viz, into):
    """{name: path of the new trace} for every row of TRACES, after regenerate(viz, into)."""
    made = {}
    figure_args = [args for args, _ in FIGURES]
    for args, file, name in TRACES:
        out = Path(into) / f"run{figure_args.index(args)}" if args in figure_args else None
        if out is None or not (out / file).is_file():
            out = Path(into) / f"trace_{name}"
            run_viz(viz, args, out)
        if not (out / file).is_file():
            raise RuntimeError(f"{name}: scanlab-viz {args} did not write {file}")
        made[name] = out / file
    return made


def check_traces(traces_dir, made):
    problems = []
    for name, new in sorted(made.items()):
        old = traces_dir / f"{name}.jsonl"
        if not old.is_file():
            problems.append(f"traces/{name}.jsonl: missing")
        elif old.read_bytes() != new.read_bytes():
            problems.append(f"traces/{name}.jsonl: stale, a new run records something else (diff it with {new})")
    for p in sorted(traces_dir.iterdir()) if traces_dir.is_dir() else []:
        if p.name not in {f"{name}.jsonl" for name in made}:
            problems.append(f"traces/{p.name}: not made by any row of TRACES in book/figures.py")
    return problems


def update_traces(traces_dir, made):
    traces_dir.mkdir(parents=True, exist_ok=True)
    for name, new in sorted(made.items()):
        old = traces_dir / f"{name}.jsonl"
        if not (old.is_file() and old.read_bytes() == new.read_bytes()):
            print(f"{'updated' if old.is_file() else 'added'} {old.relative_to(ROOT)}")
            shutil.copyfile(new, old)
    for p in sorted(traces_dir.iterdir()):
        if p.name not in {f"{name}.jsonl" for name in made}:
            print(f"removed {p.relative_to(ROOT)} (no row of TRACES makes it)")
            p.unlink()


if __name__ == "__main__":
    sys.exit(main())
