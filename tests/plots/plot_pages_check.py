#!/usr/bin/env python3
"""The book's plots in a browser: pages of the built student edition load them, offline.

For chapters 07, 09 and 11 (the ones that must show their H200 and H100 curves), headless
Chromium loads the page from disk with the network cut off (book/tests/render_check.py's
dump_dom) and this check fails when the page does not show its plot (an <img> of
figures/plots/NAME.svg, NAME from book/figures.py's PLOTS), when the site's copy of the plot is not
the committed one, or when Chromium draws the plot itself as a blank picture (a screenshot with
fewer than a few distinct rows of pixels). Exits 77 (ctest: skipped) without Chromium, and in a
student's repository (./lab release) that has none of the three chapters; one that has some checks
those (book/figures.py: handed_out).

  plot_pages_check.py --site build/cpu/book/site
"""

import argparse
import struct
import subprocess
import sys
import tempfile
import zlib
from pathlib import Path
from urllib.parse import unquote, urlsplit

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "book" / "tests"))
sys.path.insert(0, str(ROOT / "book"))
import figures  # noqa: E402
import render_check  # noqa: E402

PAGES = {
    "chapters/07-decoupled-lookback/index.html": "ch07_lookback_h200_h100",
    "chapters/09-radix-sort/index.html": "ch09_onesweep_h200_h100",
    "chapters/11-async-copy-scan/index.html": "ch11_scan_h200_h100",
}


def png_distinct_rows(png: bytes) -> int:
    """How many different rows of (filtered) pixel data a PNG has: 1 or 2 for a blank picture."""
    if png[:8] != b"\x89PNG\r\n\x1a\n":
        return 0
    pos, width, channels, data = 8, 0, 4, b""
    while pos < len(png):
        length, kind = struct.unpack(">I4s", png[pos:pos + 8])
        body = png[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, _, depth, colour = struct.unpack(">IIBB", body[:10])
            channels = {0: 1, 2: 3, 4: 2, 6: 4}.get(colour, 4) * max(1, depth // 8)
        elif kind == b"IDAT":
            data += body
        pos += 12 + length
    raw = zlib.decompress(data)
    stride = 1 + width * channels
    return len({raw[i:i + stride] for i in range(0, len(raw), stride)})


def screenshot(chromium: str, svg: Path, profile: Path, out: Path) -> bytes:
    command = [chromium, "--headless", "--disable-gpu", "--no-sandbox", "--no-first-run",
               "--disable-extensions", "--disable-dev-shm-usage", "--proxy-server=127.0.0.1:9",
               f"--user-data-dir={profile}", "--window-size=1300,800", "--hide-scrollbars",
               f"--screenshot={out}", svg.resolve().as_uri()]
    subprocess.run(command, capture_output=True, text=True, timeout=60)
    return out.read_bytes() if out.is_file() else b""


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--site", type=Path, required=True, help="the built student edition")
    site = ap.parse_args().site
    pages = {rel: name for rel, name in PAGES.items() if figures.handed_out(name)}
    if not pages:
        print("plot_pages_check: SKIPPED: this repository has none of chapters 07, 09 and 11 (chapters/chapters.json)")
        return render_check.SKIP
    chromium = render_check.find_chromium()
    if chromium is None:
        print("plot_pages_check: SKIPPED: Chromium is not installed (Debian: chromium)")
        return render_check.SKIP
    failed = 0
    with tempfile.TemporaryDirectory(prefix="scanlab-plot-pages-") as tmp:
        for rel, name in pages.items():
            page = site / rel
            if not page.is_file():
                print(f"FAIL {rel}: no such page in {site}")
                failed += 1
                continue
            dom = render_check.dump_dom(chromium, page, Path(tmp) / "profile", 5000, 60)
            images = render_check.parse_dom(dom).images
            shown = [src for src in images if urlsplit(src).path.endswith(f"figures/plots/{name}.svg")]
            problems = render_check.check_page(site, rel, dom, [])
            if not shown:
                problems.append(f"no <img> of figures/plots/{name}.svg (images: {images})")
            else:
                svg = (page.parent / unquote(urlsplit(shown[0]).path)).resolve()
                committed = ROOT / "book" / "docs" / "figures" / "plots" / f"{name}.svg"
                if svg.is_file() and svg.read_bytes() != committed.read_bytes():
                    problems.append(f"the site's {name}.svg is not the committed one (rebuild the book)")
                rows = png_distinct_rows(screenshot(chromium, svg, Path(tmp) / "profile", Path(tmp) / f"{name}.png"))
                if rows < 50:
                    problems.append(f"Chromium draws {name}.svg as a blank picture ({rows} distinct rows)")
            if problems:
                failed += 1
                print(f"FAIL {rel}:\n  " + "\n  ".join(problems))
            else:
                print(f"ok   {rel}: shows {name}.svg, which Chromium draws ({rows} distinct rows of pixels)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
