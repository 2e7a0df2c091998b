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
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FIGURES_DIR = ROOT / "book" / "docs" / "figures"

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


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--viz", required=True, help="the scanlab-viz program (build/cpu/bin/scanlab-viz)")
    ap.add_argument("--check", action="store_true",
                    help="remake the figures in a temporary folder and fail when the committed ones differ")
    ap.add_argument("--figures", type=Path, default=FIGURES_DIR, help="the figures folder (default: %(default)s)")
    ap.add_argument("--keep", action="store_true", help="keep the temporary folder (to diff a stale figure)")
    a = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="scanlab-figures-")
    try:
        made = regenerate(a.viz, tmp)
        if not a.check:
            update(a.figures, made)
            print(f"figures: {len(made)} figures in {a.figures}")
            return 0
        problems = check(a.figures, made)
        if not problems:
            print(f"figures: all {len(made)} figures in {a.figures} are what a new run draws")
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


if __name__ == "__main__":
    sys.exit(main())
