"""MkDocs hook: include marked regions of the lab's sources in book pages.

The idea and the syntax follow pymdown-extensions' "snippets" (named sections arrived in its 9.7;
Debian 12 ships 9.5), reimplemented here so that the book builds with the distribution's packages
and so that every mistake fails the build instead of silently dropping a listing.

In a page, a line (optionally indented, usually inside a fenced code block)

    --8<-- "chapters/01_hillis_steele/main.cu:launch"

is replaced by the lines between `// --8<-- [start:launch]` and `// --8<-- [end:launch]` in that
file (paths are relative to the repository root). Marker lines are dropped, the region's common
indentation is removed and the directive's own indentation is applied. Without `:NAME` the whole
file is included, minus marker lines. A line starting with `;--8<--` is printed without the `;`
(how a page shows the syntax itself).

A missing file, a missing, duplicated or unterminated section, a malformed directive and a
malformed marker all raise SnippetError, which stops `mkdocs build`.
"""

from __future__ import annotations

import re
import textwrap
from pathlib import Path

try:
    from mkdocs.exceptions import PluginError as _BaseError
except ImportError:  # the unit tests can run without mkdocs
    _BaseError = Exception


class SnippetError(_BaseError):
    """A snippet directive or marker that cannot be honoured."""


_DIRECTIVE = re.compile(r'^(?P<indent>[ \t]*)--8<--[ \t]+"(?P<spec>[^"]+)"[ \t]*$')
_ESCAPED = re.compile(r"^(?P<indent>[ \t]*);(?P<rest>--8<--.*)$")
_LOOKS_LIKE_DIRECTIVE = re.compile(r"^[ \t]*--8<--")
_MARKER = re.compile(r"--8<--[ \t]*\[(?P<kind>start|end):(?P<name>[A-Za-z0-9_.-]+)\]")
_ANY_MARKER = re.compile(r"--8<--")
_SECTION_NAME = re.compile(r"^[A-Za-z0-9_.-]+$")


def _split_spec(spec: str) -> tuple[str, str | None]:
    """'path:NAME' -> (path, NAME); 'path' -> (path, None)."""
    path, sep, name = spec.rpartition(":")
    if sep and _SECTION_NAME.match(name) and path:
        return path, name
    return spec, None


def _read_source(root: Path, rel_path: str, where: str) -> list[str]:
    path = (root / rel_path).resolve()
    if root.resolve() not in path.parents:
        raise SnippetError(f"{where}: snippet path '{rel_path}' is outside the repository")
    if not path.is_file():
        raise SnippetError(f"{where}: snippet file '{rel_path}' does not exist")
    return path.read_text(encoding="utf-8").splitlines()


def _scan_markers(lines: list[str], rel_path: str) -> dict[str, tuple[int, int]]:
    """Maps each section name to (first line, end-marker line); checks every marker line."""
    starts: dict[str, int] = {}
    sections: dict[str, tuple[int, int]] = {}
    for number, line in enumerate(lines):
        if not _ANY_MARKER.search(line):
            continue
        match = _MARKER.search(line)
        if not match:
            raise SnippetError(f"{rel_path}:{number + 1}: malformed snippet marker: {line.strip()}")
        kind, name = match.group("kind"), match.group("name")
        if kind == "start":
            if name in starts or name in sections:
                raise SnippetError(f"{rel_path}:{number + 1}: section '{name}' starts twice")
            starts[name] = number
        else:
            if name not in starts:
                raise SnippetError(f"{rel_path}:{number + 1}: section '{name}' ends but never starts")
            sections[name] = (starts.pop(name) + 1, number)
    if starts:
        name, number = next(iter(starts.items()))
        raise SnippetError(f"{rel_path}:{number + 1}: section '{name}' is never ended")
    return sections


def extract(root: Path, spec: str, where: str = "page") -> list[str]:
    """The lines a directive with this spec stands for, dedented, marker lines removed."""
    rel_path, name = _split_spec(spec)
    lines = _read_source(root, rel_path, where)
    sections = _scan_markers(lines, rel_path)
    if name is None:
        body = lines
    elif name not in sections:
        known = ", ".join(sorted(sections)) or "none"
        raise SnippetError(f"{where}: no section '{name}' in '{rel_path}' (sections: {known})")
    else:
        first, end = sections[name]
        body = lines[first:end]
    body = [line for line in body if not _ANY_MARKER.search(line)]
    return textwrap.dedent("\n".join(body)).split("\n") if body else []


def expand(markdown: str, root: Path, where: str = "page") -> str:
    """Replaces every snippet directive line of a page."""
    out: list[str] = []
    for number, line in enumerate(markdown.split("\n")):
        escaped = _ESCAPED.match(line)
        if escaped:
            out.append(escaped.group("indent") + escaped.group("rest"))
            continue
        directive = _DIRECTIVE.match(line)
        if directive:
            indent = directive.group("indent")
            included = extract(root, directive.group("spec"), f"{where}:{number + 1}")
            out.extend(indent + text if text.strip() else "" for text in included)
        elif _LOOKS_LIKE_DIRECTIVE.match(line):
            raise SnippetError(f"{where}:{number + 1}: malformed snippet directive: {line.strip()}")
        else:
            out.append(line)
    return "\n".join(out)


def repo_root(config) -> Path:
    """The repository root: the folder above the one holding mkdocs.yml (book/)."""
    return Path(config["config_file_path"]).resolve().parent.parent


def on_page_markdown(markdown, page, config, files):
    return expand(markdown, repo_root(config), page.file.src_path)


def on_serve(server, config, builder):
    # Rebuild the served book when a listed source changes, not only when a page does.
    root = repo_root(config)
    for folder in ("chapters", "common", "exercises", "solutions", "tests", "bench", "visualizer"):
        if (root / folder).is_dir():
            server.watch(str(root / folder))
    return server
