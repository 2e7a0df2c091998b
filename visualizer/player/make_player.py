#!/usr/bin/env python3
"""Makes the trace player (player.js, player.css) into HTML: one self-contained page for
`./lab viz NN --html`, or the fragment a book page embeds (book/hooks/player.py).

  make_player.py TRACE --out FILE.html [--source DIR]... [--title TEXT]

writes FILE.html with the trace, the script and the style inside (nothing is fetched: it works
from a file, offline) and prints its path. --source names the folders (relative to the checkout)
whose code recorded the run: each event then shows the line that recorded it.

Standard library only.
"""
from __future__ import annotations

import argparse
import html
import json
import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]

# What records a trace line, and the label it records:
#   SCANLAB_TRACE_BLOCK_ARRAY(log, "up", ...), SCANLAB_TRACE_ARRAY(...), SCANLAB_TRACE_EVENT(...)
#   probe.on_flag(...) etc.: chapter 07's descriptors report through its probe (lookback_probe.cuh),
#     whose own SCANLAB_TRACE_EVENT lines are then not the place to show;
#   {"type", "bank_map"}: lines a driver writes itself (chapter 03's bank report).
_MACRO = re.compile(r'SCANLAB_TRACE_(?:BLOCK_)?(?:ARRAY|EVENT)\(\s*[\w.]+\s*,\s*"(\w+)"')
_PROBE = re.compile(r"\bprobe\.on_(ticket|word|value|flag|read)\((\s*0\s*,)?")
_DRIVER_LINE = re.compile(r'\{"type",\s*"(\w+)"\}')
_VARIANT = re.compile(r"Descriptors::(fenced|fused)>")
_SUFFIXES = {".cu", ".cuh", ".hpp", ".h", ".cpp"}


def source_index(folders, root=ROOT):
    """{label: [{file, line, text[, tile0][, variant]}]}: the lines of the folders' sources (relative
    to root, or absolute) that record each label (comments left out). tile0 (chapter 07) says
    whether the call is tile 0's (a literal 0 as its tile); variant, the descriptors' kind of the
    struct it is in."""
    found = {}
    probed = set()
    for folder in folders:
        base = (Path(root) / folder)
        files = sorted(p for p in base.rglob("*") if p.suffix in _SUFFIXES) if base.is_dir() else []
        for path in files:
            variant = None
            for number, line in enumerate(path.read_text(encoding="utf-8", errors="replace").splitlines(), 1):
                code = line.split("//", 1)[0]
                v = _VARIANT.search(code)
                if v:
                    variant = v.group(1)
                shown = path.relative_to(root) if path.is_relative_to(root) else path
                entry = {"file": str(shown), "line": number, "text": line.strip()}
                m = _PROBE.search(code)
                if m:
                    entry["tile0"] = bool(m.group(2)) if m.group(1) != "ticket" else None
                    if entry["tile0"] is None:
                        del entry["tile0"]
                    if variant and m.group(1) in ("word", "value", "flag", "read"):
                        entry["variant"] = variant
                    found.setdefault(m.group(1), []).append(entry)
                    probed.add(m.group(1))
                    continue
                m = _MACRO.search(code) or _DRIVER_LINE.search(code)
                if m:
                    entry["macro"] = True
                    found.setdefault(m.group(1), []).append(entry)
    for label, entries in found.items():
        if label in probed:
            entries[:] = [e for e in entries if not e.get("macro")]
        for e in entries:
            e.pop("macro", None)
    return found


def student_view(index, root=ROOT):
    """The index as the student edition of the book shows it: a line of solutions/ becomes the same
    line of the exercise when the exercise has it, else only the exercise's file (the line is part
    of what the student writes, and the student book shows no solution code)."""
    out = {}
    for label, entries in index.items():
        shown = []
        for e in entries:
            if not e["file"].startswith("solutions/"):
                shown.append(e)
                continue
            exercise = "exercises/" + e["file"][len("solutions/"):]
            lines = (Path(root) / exercise).read_text(encoding="utf-8").splitlines() \
                if (Path(root) / exercise).is_file() else []
            same = [i for i, line in enumerate(lines, 1) if line.strip() == e["text"]]
            entry = dict(e, file=exercise)
            if same:
                entry["line"] = same[0]
            else:
                entry.update(line=None, text=None, note="in the code you write")
            shown.append(entry)
        out[label] = shown
    return out


def _script_text(text):
    """Text safe inside a <script> element: "</" cannot end it early ("<\\/" is the same JSON)."""
    return text.replace("</", "<\\/")


def fragment(trace_text, sources=None, start=0):
    """The player's element, with the trace and the source index inside."""
    return (f'<div class="scanlab-player" data-start="{int(start)}">\n'
            f'<script type="application/x-scanlab-trace">\n{_script_text(trace_text)}</script>\n'
            f'<script type="application/json" class="scanlab-player-sources">'
            f'{_script_text(json.dumps(sources or {}, separators=(",", ":")))}</script>\n'
            f'</div>')


def standalone(trace_text, sources=None, title="scanlab trace"):
    """One HTML page: the template with the style, the player and the script inside."""
    page = (HERE / "template.html").read_text(encoding="utf-8")
    parts = {
        "TITLE": html.escape(title),
        "STYLE": (HERE / "player.css").read_text(encoding="utf-8"),
        "PLAYER": fragment(trace_text, sources),
        "SCRIPT": _script_text((HERE / "player.js").read_text(encoding="utf-8")),
    }
    return re.sub(r"@@(\w+)@@", lambda m: parts[m.group(1)], page)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("trace", type=Path, help="a scanlab trace (JSON lines)")
    ap.add_argument("--out", type=Path, required=True, help="the HTML file to write")
    ap.add_argument("--source", action="append", default=[],
                    help="a folder (relative to the checkout) whose code recorded the run; repeatable")
    ap.add_argument("--title", default=None, help="the page's title")
    a = ap.parse_args(argv)
    try:
        trace_text = a.trace.read_text(encoding="utf-8")
    except OSError as e:
        print(f"make_player: cannot read the trace: {e}", file=sys.stderr)
        return 1
    # A trace the player cannot read still makes a page: the page says what is wrong with it.
    title = a.title or f"scanlab trace: {a.trace.name}"
    try:
        a.out.parent.mkdir(parents=True, exist_ok=True)
        a.out.write_text(standalone(trace_text, source_index(a.source), title), encoding="utf-8")
    except OSError as e:
        print(f"make_player: cannot write {a.out}: {e}", file=sys.stderr)
        return 1
    print(a.out.resolve())
    return 0


if __name__ == "__main__":
    sys.exit(main())
