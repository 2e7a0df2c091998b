"""MkDocs hook: the step-through player of recorded runs (visualizer/player/) on the chapter pages.

A page places a player with one line of HTML naming a committed trace (book/docs/figures/traces/,
recorded by `./lab figures`, book/figures.py's TRACES):

    <div class="scanlab-player" data-trace="ch07_fig6" data-start="34"></div>

This hook fills it with the trace and the source lines that recorded its events (the fragment
visualizer/player/make_player.py makes), so that the page needs no request to play it: it works
from file:// and offline. It also adds player.js and player.css to the site (under player/, as the
config's extra_javascript and extra_css name them) from visualizer/player/, their one copy.

In the student edition the source lines are the exercise's: a line of a solution that the exercise
does not have is shown as its file only.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File

ROOT = Path(__file__).resolve().parents[2]
PLAYER_DIR = ROOT / "visualizer" / "player"
TRACES = "figures/traces"  # under docs_dir
SITE_FOLDER = "player/"
sys.path.insert(0, str(PLAYER_DIR))
import make_player  # noqa: E402

_PLACE = re.compile(r'<div class="scanlab-player" data-trace="(?P<name>[\w-]+)"'
                    r'(?: data-start="(?P<start>\d+)")?>\s*</div>')
_CHAPTER = re.compile(r'"chapter":\s*"(\d\d_\w+)"')


def on_files(files, config):
    named = [str(e) for e in (config["extra_css"] or []) + (config["extra_javascript"] or [])]
    for entry in named:
        if not entry.startswith(SITE_FOLDER):
            continue
        source = PLAYER_DIR / entry[len(SITE_FOLDER):]
        if not source.is_file():
            raise PluginError(f"player: {source} (named by the config as {entry}) does not exist")
        file = File(entry, config["docs_dir"], config["site_dir"], config["use_directory_urls"])
        file.abs_src_path = str(source)
        files.append(file)
    return files


def fill(html, docs_dir, edition):
    """The page's HTML with every player placeholder filled in."""
    def one(match):
        path = Path(docs_dir) / TRACES / f"{match['name']}.jsonl"
        if not path.is_file():
            raise PluginError(f"player: the page names the trace {match['name']}, but {path} does not "
                              "exist (book/figures.py's TRACES lists them; ./lab figures records them)")
        text = path.read_text(encoding="utf-8")
        chapter = _CHAPTER.search(text.split("\n", 1)[0])
        code = "solutions" if (ROOT / "solutions").is_dir() else "exercises"  # a student's repository: no solutions
        folders = [f"{code}/{chapter[1]}", f"chapters/{chapter[1]}"] if chapter else []
        sources = make_player.source_index(folders, ROOT)
        if edition != "instructor":
            sources = make_player.student_view(sources, ROOT)
        return make_player.fragment(text, sources, int(match["start"] or 0))
    return _PLACE.sub(one, html)


def on_page_content(html, page, config, files):
    if "scanlab-player" not in html:
        return html
    return fill(html, config["docs_dir"], (config.get("extra") or {}).get("edition", "student"))
