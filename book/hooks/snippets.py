"""MkDocs hook: include marked regions of the lab's sources in book pages.

The idea and the syntax follow pymdown-extensions' "snippets" (named sections arrived in its 9.7;
Debian 12 ships 9.5), reimplemented here so that the book builds with the distribution's packages
and so that every mistake fails the build instead of silently dropping a listing.

In a page, a line (optionally indented, usually inside a fenced code block)

    --8<-- "chapters/01_hillis_steele/main.cu:launch"

is replaced by the lines between `// --8<-- [start:launch]` and `// --8<-- [end:launch]` in that
file (paths are relative to the repository root). Marker lines are dropped, the region's common
indentation is removed and the directive's own indentation is applied. Without `:NAME` the whole
file is included, minus marker lines. `// clang-format off` and `// clang-format on` lines (the
formatter's, around a region kept as written) are dropped as well: they are not for the reader.
A line starting with `;--8<--` is printed without the `;` (how a page shows the syntax itself).

A missing file, a missing, duplicated or unterminated section, a malformed directive and a
malformed marker all raise SnippetError, which stops `mkdocs build`.

Two editions come from the same pages (`extra: edition:` in the config; mkdocs.yml builds the
student edition, mkdocs-instructor.yml the instructor edition):

- A directive naming a student's file, `--8<-- "exercises/NN_slug/file.cuh:NAME"`, shows the
  exercise's region (the skeleton with its TODO) in the student edition and the same region of
  `solutions/NN_slug/file.cuh` in the instructor edition. The region must exist in both files.
- In the student edition, a directive naming a region of a `solutions/` file that overlaps a
  `// BEGIN TODO` ... `// END TODO` region would give the answer away: every such directive of
  every page is collected and the build fails with the list.
- Pages listed under `extra: instructor_only:` (the instructors' guide) are left out of the student
  edition: out of its files and out of its nav.

A student's repository (made by `./lab release`) has no solutions/ and no instructor edition. Its
mkdocs.yml says two more things under `extra:`:

- `stubs: FOLDER` (relative to the repository): a copy of exercises/ as handed out. The listings of
  the student's files come from there, not from exercises/, which holds the student's own work by
  then; a page with such a listing says so in a note under its title.
- `left_out: [PAGE, ...]`: the pages of the chapters not handed out. A link to one of them becomes
  its plain text (a book that leaves chapters out builds with --strict all the same), and so does
  an image of one of their figures or plots (figures/.../chNN_*, which the release leaves out).
"""

from __future__ import annotations

import posixpath
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
_TODO_BEGIN = re.compile(r"^[ \t]*//[ \t]*BEGIN TODO\b")
_TODO_END = re.compile(r"^[ \t]*//[ \t]*END TODO\b")
_FORMAT_SWITCH = re.compile(r"^[ \t]*//[ \t]*clang-format (?:off|on)[ \t]*$")

EDITIONS = ("student", "instructor")
EXERCISES = "exercises/"
SOLUTIONS = "solutions/"
STUBS_NOTE = ('!!! note "The listings of your files"\n'
              '    The listings of `exercises/` on this page show the files as handed out (their copy in\n'
              '    `{stubs}/`), not your work.\n')
_LINK = re.compile(r"(?<!!)\[(?P<text>[^\]]*)\]\((?P<target>[^)\s#]+\.md)(?P<anchor>#[^)\s]*)?\)")


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


def todo_regions(lines: list[str], rel_path: str) -> list[tuple[int, int]]:
    """(BEGIN TODO line, END TODO line) of each TODO region, 0-based, both marker lines included."""
    regions: list[tuple[int, int]] = []
    begin: int | None = None
    for number, line in enumerate(lines):
        if _TODO_BEGIN.match(line):
            if begin is not None:
                raise SnippetError(f"{rel_path}:{number + 1}: BEGIN TODO inside the TODO region "
                                   f"that starts at line {begin + 1}")
            begin = number
        elif _TODO_END.match(line):
            if begin is None:
                raise SnippetError(f"{rel_path}:{number + 1}: END TODO without a BEGIN TODO")
            regions.append((begin, number))
            begin = None
    if begin is not None:
        raise SnippetError(f"{rel_path}:{begin + 1}: BEGIN TODO is never ended")
    return regions


def section_span(lines: list[str], rel_path: str, name: str | None, where: str) -> tuple[int, int]:
    """[first, end) of the lines a section (or, without a name, the whole file) covers."""
    sections = _scan_markers(lines, rel_path)
    if name is None:
        return 0, len(lines)
    if name not in sections:
        known = ", ".join(sorted(sections)) or "none"
        raise SnippetError(f"{where}: no section '{name}' in '{rel_path}' (sections: {known})")
    return sections[name]


def edition_path(rel_path: str, edition: str, stubs: str | None = None) -> str:
    """The file a directive shows in an edition: the instructor edition swaps exercises/ for
    solutions/ (same chapter folder, same file name); with `stubs` (a student's repository) the
    student edition reads exercises/ from that copy of the stubs as handed out."""
    if rel_path.startswith(EXERCISES):
        if edition == "instructor":
            return SOLUTIONS + rel_path[len(EXERCISES):]
        if stubs:
            return stubs.rstrip("/") + "/" + rel_path[len(EXERCISES):]
    return rel_path


def _solution_leaks(lines: list[str], rel_path: str, span: tuple[int, int]) -> list[str]:
    """Why a span of a solutions/ file must not appear in the student edition (empty: it may)."""
    first, end = span
    return [f"lines {max(first, begin) + 1}-{min(end, stop + 1)} are inside the TODO region at "
            f"lines {begin + 1}-{stop + 1}"
            for begin, stop in todo_regions(lines, rel_path) if begin < end and stop >= first]


def extract(root: Path, spec: str, where: str = "page", edition: str = "student",
            leaks: list[str] | None = None, stubs: str | None = None) -> list[str]:
    """The lines a directive with this spec stands for in an edition, dedented, marker lines
    and clang-format off/on lines removed. A student-edition directive that would show solution
    code is reported: appended to `leaks` when a list is given (so that a build can report every
    one), else raised. `stubs`: see edition_path."""
    if edition not in EDITIONS:
        raise SnippetError(f"{where}: unknown book edition '{edition}' (editions: {', '.join(EDITIONS)})")
    rel_path, name = _split_spec(spec)
    if rel_path.startswith(EXERCISES) and (root / SOLUTIONS).is_dir():
        # Both editions need the region: check the other file too, so that neither edition breaks.
        # (A student's repository has no solutions/, and only the student edition.)
        for other in (rel_path, SOLUTIONS + rel_path[len(EXERCISES):]):
            section_span(_read_source(root, other, where), other, name, where)
    shown = edition_path(rel_path, edition, stubs)
    lines = _read_source(root, shown, where)
    first, end = section_span(lines, shown, name, where)
    if edition == "student" and shown.startswith(SOLUTIONS):
        reasons = _solution_leaks(lines, shown, (first, end))
        if reasons:
            region = f"region '{name}' of {shown}" if name else f"the whole of {shown}"
            message = (f"{where}: {region} shows solution code ("
                       + "; ".join(reasons) + f"): include \"{EXERCISES}"
                       + shown[len(SOLUTIONS):] + (f":{name}" if name else "") + "\" instead")
            if leaks is None:
                raise SnippetError(message)
            leaks.append(message)
    body = [line for line in lines[first:end] if not _ANY_MARKER.search(line) and not _FORMAT_SWITCH.match(line)]
    return textwrap.dedent("\n".join(body)).split("\n") if body else []


def expand(markdown: str, root: Path, where: str = "page", edition: str = "student",
           leaks: list[str] | None = None, stubs: str | None = None) -> str:
    """Replaces every snippet directive line of a page; with `stubs`, a page that lists a student's
    file says, under its title, where the listing comes from."""
    out: list[str] = []
    from_stubs = False
    for number, line in enumerate(markdown.split("\n")):
        escaped = _ESCAPED.match(line)
        if escaped:
            out.append(escaped.group("indent") + escaped.group("rest"))
            continue
        directive = _DIRECTIVE.match(line)
        if directive:
            indent = directive.group("indent")
            spec = directive.group("spec")
            included = extract(root, spec, f"{where}:{number + 1}", edition, leaks, stubs)
            out.extend(indent + text if text.strip() else "" for text in included)
            from_stubs = from_stubs or (edition == "student" and bool(stubs) and spec.startswith(EXERCISES))
        elif _LOOKS_LIKE_DIRECTIVE.match(line):
            raise SnippetError(f"{where}:{number + 1}: malformed snippet directive: {line.strip()}")
        else:
            out.append(line)
    if from_stubs:
        title = next((i for i, line in enumerate(out) if line.startswith("# ")), -1)
        out[title + 1:title + 1] = ["", *STUBS_NOTE.format(stubs=stubs.rstrip("/")).rstrip("\n").split("\n")]
    return "\n".join(out)


def unlink_pages(markdown: str, page: str, pages: set[str]) -> str:
    """The page's markdown with each link to one of `pages` (docs-relative paths) replaced by the
    link's text; `page` is the page's own docs-relative path (links are relative to it)."""
    if not pages:
        return markdown
    folder = posixpath.dirname(page)

    def plain(match: re.Match) -> str:
        target = posixpath.normpath(posixpath.join(folder, match.group("target")))
        return match.group("text") if target in pages else match.group(0)
    return _LINK.sub(plain, markdown)


# An image of a figure, trace picture or plot of chapter NN (book/figures.py: chapter_of), and a
# chapter's page (chapters/NN-slug.md).
_FIGURE_IMAGE = re.compile(r"!\[(?P<text>[^\]]*)\]\((?P<target>(?:[^)\s]*/)?figures/(?:[^)\s/]+/)*"
                           r"ch(?P<nn>[0-9]{2})_[^)\s/]*)\)")
_CHAPTER_PAGE = re.compile(r"chapters/(?P<nn>[0-9]{2})-[^/]*\.md")


def unlink_figures(markdown: str, pages: set[str]) -> str:
    """The page's markdown with each image of a figure of a chapter whose page is one of `pages`
    replaced by the image's text (a student's repository has no figures of the chapters left out)."""
    gone = {m["nn"] for m in map(_CHAPTER_PAGE.fullmatch, pages) if m}
    if not gone:
        return markdown
    return _FIGURE_IMAGE.sub(lambda m: m["text"] if m["nn"] in gone else m[0], markdown)


def repo_root(config) -> Path:
    """The repository root: the folder above the one holding mkdocs.yml (book/)."""
    return Path(config["config_file_path"]).resolve().parent.parent


def edition(config) -> str:
    """The edition a config builds: `extra: edition:` (student unless it says instructor)."""
    name = (config.get("extra") or {}).get("edition", "student")
    if name not in EDITIONS:
        raise SnippetError(f"extra.edition is '{name}'; it must be one of: {', '.join(EDITIONS)}")
    return name


def instructor_only(config) -> set[str]:
    """Pages (paths in docs/) that only the instructor edition has."""
    return set((config.get("extra") or {}).get("instructor_only") or [])


def left_out(config) -> set[str]:
    """Pages (paths in docs/) of the chapters a student's repository does not have."""
    return set((config.get("extra") or {}).get("left_out") or [])


def stubs(config) -> str | None:
    """The folder (relative to the repository) holding the stubs as handed out, if any."""
    return (config.get("extra") or {}).get("stubs") or None


def without_pages(nav, pages: set[str]):
    """A nav (the `nav:` list of mkdocs.yml) without the entries for these pages; a section left
    empty goes too."""
    kept = []
    for item in nav:
        if isinstance(item, dict):
            title, target = next(iter(item.items()))
            if isinstance(target, list):
                target = without_pages(target, pages)
                if target:
                    kept.append({title: target})
            elif target not in pages:
                kept.append(item)
        elif item not in pages:
            kept.append(item)
    return kept


# The student edition's listings that would show solution code, collected over all pages of a
# build and reported together (on_env), so that one build lists every page to fix.
_leaks: list[str] = []


def on_config(config):
    _leaks.clear()
    if edition(config) == "student" and config.get("nav"):
        config["nav"] = without_pages(config["nav"], instructor_only(config))
    return config


def on_files(files, config):
    if edition(config) == "student":
        for file in [f for f in files if f.src_path in instructor_only(config)]:
            files.remove(file)
    return files


def on_page_markdown(markdown, page, config, files):
    gone = left_out(config) | (instructor_only(config) if edition(config) == "student" else set())
    markdown = unlink_figures(unlink_pages(markdown, page.file.src_path, gone), left_out(config))
    return expand(markdown, repo_root(config), page.file.src_path, edition(config), _leaks, stubs(config))


def on_env(env, config, files):
    if _leaks:
        listing = "\n  ".join(_leaks)
        raise SnippetError(f"the student edition would show solution code in {len(_leaks)} "
                           f"listing(s) (a region of a solutions/ file that overlaps a TODO "
                           f"region):\n  {listing}")
    return env


def on_serve(server, config, builder):
    # Rebuild the served book when a listed source changes, not only when a page does.
    root = repo_root(config)
    for folder in ("chapters", "common", "exercises", "solutions", "tests", "bench", "visualizer"):
        if (root / folder).is_dir():
            server.watch(str(root / folder))
    return server
