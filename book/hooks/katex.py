"""MkDocs hook: serve KaTeX from Debian's libjs-katex, so that the book's math renders offline.

The book's config names the KaTeX files each page loads, under katex/ in its `extra_css` and
`extra_javascript` (katex/katex.min.css, katex/katex.min.js, katex/contrib/auto-render.js). This
hook adds those files, and the fonts that katex.min.css asks for, to the site from the installed
package (/usr/share/javascript/katex, or the folder in SCANLAB_KATEX_DIR), so nothing of KaTeX is
kept in the repository and no page loads anything from the network. javascripts/katex.js then
renders what pymdownx.arithmatex (generic: true) leaves in the pages.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File

SITE_FOLDER = "katex/"
DEFAULT_KATEX_DIR = "/usr/share/javascript/katex"
# Browsers that run KaTeX all read woff2, the first of the formats katex.min.css offers.
_FONT_URL = re.compile(r"url\((?P<path>fonts/[^)\s]+\.woff2)\)")


def katex_dir() -> Path:
    return Path(os.environ.get("SCANLAB_KATEX_DIR") or DEFAULT_KATEX_DIR)


def site_files(config) -> list[str]:
    """The files under katex/ that the config's extra_css and extra_javascript name."""
    named = [str(entry) for entry in (config["extra_css"] or []) + (config["extra_javascript"] or [])]
    return [entry[len(SITE_FOLDER):] for entry in named if entry.startswith(SITE_FOLDER)]


def on_files(files, config):
    source = katex_dir()
    wanted = site_files(config)
    missing = [name for name in wanted if not (source / name).is_file()]
    if missing:
        raise PluginError(
            f"KaTeX: {', '.join(missing)} not found in {source}. Install Debian's KaTeX "
            "(sudo apt-get install libjs-katex) or set SCANLAB_KATEX_DIR to a folder that has "
            "katex.min.js, katex.min.css, contrib/auto-render.js and fonts/")
    for name in list(wanted):
        if name.endswith(".css"):
            css = (source / name).read_text(encoding="utf-8")
            base = Path(name).parent
            wanted += [str(base / match.group("path")) for match in _FONT_URL.finditer(css)]
    for name in dict.fromkeys(wanted):  # in order, once each
        if not (source / name).is_file():
            raise PluginError(f"KaTeX: {source / name} (named by its CSS) does not exist")
        file = File(SITE_FOLDER + name, config["docs_dir"], config["site_dir"],
                    config["use_directory_urls"])
        file.abs_src_path = str(source / name)  # copied from the package, not from docs/
        files.append(file)
    return files
