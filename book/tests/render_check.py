#!/usr/bin/env python3
"""Renders pages of a built book in headless Chromium, offline, and checks what a reader sees.

For each page (default: chapters 01 and 07 of the student edition) Chromium loads the page from
disk (file://) with every network request sent to a dead proxy, runs its JavaScript, and dumps
the resulting DOM. The check fails when

  - the math is not typeset: no KaTeX output (.katex), a KaTeX error (.katex-error), or TeX
    delimiters \\( or \\[ left in the text outside code;
  - an <img> names a file that the site does not have, or anything on the network;
  - a script or stylesheet would come from the network (the book must work offline);
  - the page shows a line of a reference solution's TODO region (solution_code.py's test).

Exits 77 (ctest: skipped) when Chromium is not installed (Debian package `chromium`; or set
SCANLAB_CHROMIUM to a Chromium or Chrome binary). Standard library only.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

sys.path.insert(0, str(Path(__file__).resolve().parent))
import solution_code  # noqa: E402

DEFAULT_PAGES = ["chapters/01-hillis-steele/index.html", "chapters/07-decoupled-lookback/index.html"]
SKIP = 77
# The text outside these elements must hold no TeX delimiters; KaTeX keeps the TeX source in
# <annotation> (MathML) without them.
_RAW_TEX_ALLOWED_IN = {"pre", "code", "annotation", "script", "style", "textarea"}
_VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source",
         "track", "wbr"}


def find_chromium() -> str | None:
    named = os.environ.get("SCANLAB_CHROMIUM")
    if named:
        return shutil.which(named) or (named if Path(named).is_file() else None)
    for name in ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable"):
        found = shutil.which(name)
        if found:
            return found
    return None


def dump_dom(chromium: str, page: Path, profile: Path, budget_ms: int, timeout_s: int) -> str:
    """The DOM of a page after its scripts ran (for budget_ms of virtual time), with no network."""
    command = [
        chromium, "--headless", "--disable-gpu", "--no-sandbox", "--no-first-run",
        "--disable-extensions", "--disable-dev-shm-usage", "--disable-background-networking",
        "--proxy-server=127.0.0.1:9",  # nothing listens there: every network request fails
        "--proxy-bypass-list=<-loopback>",
        f"--user-data-dir={profile}", f"--virtual-time-budget={budget_ms}",
        "--dump-dom", page.resolve().as_uri(),
    ]
    result = subprocess.run(command, capture_output=True, text=True, timeout=timeout_s)
    if result.returncode != 0 or "<html" not in result.stdout:
        raise RuntimeError(f"chromium failed on {page} (exit {result.returncode}):\n"
                           + result.stderr[-2000:])
    return result.stdout


class _Dom(HTMLParser):
    """What the checks need from a dumped DOM."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.stack: list[str] = []
        self.katex = 0          # elements of class katex (one per typeset formula)
        self.katex_errors = 0
        self.arithmatex = 0     # formulas that arithmatex left for the browser
        self.images: list[str] = []
        self.remote: list[str] = []   # scripts and stylesheets from the network
        self.raw_tex: list[str] = []  # text snippets with TeX delimiters outside code

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        classes = (attributes.get("class") or "").split()
        self.katex += "katex" in classes
        self.katex_errors += "katex-error" in classes
        self.arithmatex += "arithmatex" in classes
        if tag == "img":
            self.images.append(attributes.get("src") or "")
        if tag == "script" and attributes.get("src"):
            self._check_local(attributes["src"])
        if tag == "link" and "stylesheet" in (attributes.get("rel") or "").split():
            self._check_local(attributes.get("href") or "")
        if tag not in _VOID:
            self.stack.append(tag)

    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)
        if tag not in _VOID:
            self.stack.pop()

    def handle_endtag(self, tag):
        if tag in self.stack:
            while self.stack.pop() != tag:
                pass

    def handle_data(self, data):
        if ("\\(" in data or "\\[" in data) and not _RAW_TEX_ALLOWED_IN.intersection(self.stack):
            self.raw_tex.append(" ".join(data.split())[:80])

    def _check_local(self, url: str):
        if urlsplit(url).scheme in ("http", "https") or url.startswith("//"):
            self.remote.append(url)


def parse_dom(dom: str) -> _Dom:
    parsed = _Dom()
    parsed.feed(dom)
    parsed.close()
    return parsed


def check_page(site: Path, rel: str, dom: str, regions) -> list[str]:
    """The problems of one rendered page (empty: it is fine)."""
    parsed = parse_dom(dom)
    problems: list[str] = []
    if parsed.katex == 0:
        problems.append(f"no typeset math (no .katex element; {parsed.arithmatex} formulas left "
                        "by arithmatex): did KaTeX load?")
    if parsed.katex_errors:
        problems.append(f"{parsed.katex_errors} formula(s) KaTeX could not typeset (.katex-error)")
    for text in parsed.raw_tex:
        problems.append(f"TeX left untypeset: {text}")
    for url in parsed.remote:
        problems.append(f"loads from the network: {url}")
    page_dir = (site / rel).parent
    for src in parsed.images:
        parts = urlsplit(src)
        if parts.scheme == "data":
            continue
        if parts.scheme in ("http", "https") or src.startswith("//"):
            problems.append(f"image from the network: {src}")
            continue
        path = Path(unquote(parts.path)) if parts.scheme == "file" else page_dir / unquote(parts.path)
        path = path.resolve()
        if site.resolve() not in path.parents or not path.is_file():
            problems.append(f"image missing from the site: {src}")
    text = solution_code.text_of_html(dom)
    for region in regions:
        for line in region.lines:
            if line in text:
                problems.append(f"shows solution code ({region.name}): {line}")
    return problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--site", type=Path, required=True, help="the built student edition")
    parser.add_argument("--budget-ms", type=int, default=5000,
                        help="virtual time the page's scripts get (default: 5000)")
    parser.add_argument("--timeout", type=int, default=60, help="seconds per page (default: 60)")
    parser.add_argument("pages", nargs="*", default=DEFAULT_PAGES,
                        help="pages, relative to the site (default: chapters 01 and 07)")
    args = parser.parse_args(argv)

    chromium = find_chromium()
    if chromium is None:
        print("render_check: SKIPPED: Chromium is not installed (Debian: sudo apt-get install "
              "chromium; or set SCANLAB_CHROMIUM)")
        return SKIP
    regions = solution_code.todo_regions()
    failed = 0
    with tempfile.TemporaryDirectory(prefix="scanlab-chromium-") as profile:
        for rel in args.pages:
            page = args.site / rel
            if not page.is_file():
                print(f"FAIL {rel}: no such page in {args.site}")
                failed += 1
                continue
            start = time.monotonic()
            dom = dump_dom(chromium, page, Path(profile), args.budget_ms, args.timeout)
            problems = check_page(args.site, rel, dom, regions)
            seconds = time.monotonic() - start
            if problems:
                failed += 1
                print(f"FAIL {rel} ({seconds:.1f} s):\n  " + "\n  ".join(problems))
            else:
                parsed = parse_dom(dom)
                print(f"ok   {rel} ({seconds:.1f} s): {parsed.katex} formulas typeset, "
                      f"{len(parsed.images)} images present, nothing from the network, "
                      "no solution code")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
