"""The chapters to grade: chapters/chapters.json (the one chapter list of the lab), and the test
cases each chapter's checker declares (tests/grade/NN_slug.cu)."""

import dataclasses
import json
import re
from pathlib import Path
from typing import List, Optional


class ManifestError(Exception):
    pass


@dataclasses.dataclass(frozen=True)
class Chapter:
    nn: str
    slug: str
    title: str = ""
    files: tuple = ()          # the student's files in exercises/NN_slug/: all a submission gives

    @property
    def id(self) -> str:
        return f"{self.nn}_{self.slug}"

    def checker_target(self) -> str:
        return f"grade_{self.id}_checker"


def chapter_list(repo: Path) -> List[Chapter]:
    """The chapters of chapters/chapters.json, in order, that have grading tests (a checker,
    tests/grade/NN_slug.cu, and its runner, tests/grade/NN_slug_runner.cu)."""
    path = repo / "chapters" / "chapters.json"
    try:
        data = json.loads(path.read_text())
        entries = data["chapters"]
        chapters = [Chapter(str(e["nn"]), str(e["slug"]), str(e.get("title", "")),
                            tuple(str(f) for f in e.get("files", []))) for e in entries]
    except (OSError, ValueError, KeyError, TypeError) as e:
        raise ManifestError(f"{path}: {e}") from e
    for c in chapters:
        if not re.fullmatch(r"[0-9]{2}", c.nn) or not re.fullmatch(r"[a-z0-9_]+", c.slug):
            raise ManifestError(f"{path}: bad chapter entry {c.nn!r} {c.slug!r}")
        for f in c.files:
            if not re.fullmatch(r"[A-Za-z0-9_][A-Za-z0-9_.-]*", f):
                raise ManifestError(f"{path}: chapter {c.id}: bad file name {f!r}")
    grade = repo / "tests" / "grade"
    return [c for c in chapters if (grade / f"{c.id}.cu").is_file() and (grade / f"{c.id}_runner.cu").is_file()]


def select_chapters(all_chapters: List[Chapter], spec: Optional[str]) -> List[Chapter]:
    if not spec:
        return list(all_chapters)
    chosen = []
    for item in (s.strip() for s in spec.split(",")):
        if not item:
            continue
        match = [c for c in all_chapters
                 if (item.isdigit() and int(item) == int(c.nn)) or item in (c.slug, c.id)]
        if not match:
            known = ", ".join(c.id for c in all_chapters)
            raise ValueError(f"--chapters: no graded chapter '{item}' (graded chapters: {known})")
        if match[0] not in chosen:
            chosen.append(match[0])
    return chosen


def points_of(description: Optional[str]) -> int:
    m = re.search(r"points:\s*([0-9]+)", description or "")
    return int(m.group(1)) if m else 1


@dataclasses.dataclass
class DeclaredTest:
    name: str
    points: int


def _strip_comments(src: str) -> str:
    """Blanks out // and /* */ comments, keeping string and character literals intact."""
    out = []
    i, n = 0, len(src)
    while i < n:
        c = src[i]
        if src.startswith("//", i):
            j = src.find("\n", i)
            i = n if j < 0 else j
        elif src.startswith("/*", i):
            j = src.find("*/", i + 2)
            i = n if j < 0 else j + 2
            out.append(" ")
        elif c == '"' or (c == "'" and not (i and src[i - 1].isalnum())):  # not 1'000'000
            j = i + 1
            while j < n and src[j] != c:
                j += 2 if src[j] == "\\" else 1
            out.append(src[i:j + 1])
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def _skip_literal(src: str, i: int) -> int:
    """The index just past the string or character literal that starts at src[i]."""
    q, j = src[i], i + 1
    while j < len(src) and src[j] != q:
        j += 2 if src[j] == "\\" else 1
    return j + 1


def _c_string_literals(text: str) -> List[str]:
    """The decoded contents of the leading run of adjacent string literals in text."""
    parts = []
    end = 0  # where the previous literal ended
    for m in re.finditer(r'\s*"((?:[^"\\]|\\.)*)"', text):
        if parts and m.start() != end:
            break
        if not parts and text[:m.start()].strip():
            break
        parts.append(re.sub(r"\\(.)", r"\1", m.group(1)))
        end = m.end()
    return parts


def declared_tests(source: Path) -> List[DeclaredTest]:
    """TEST_CASE("name" * doctest::description("points: N")) declarations of a grading source, in
    source order (doctest's default file order). Used for the points a chapter is worth when its
    program cannot be built or run; the running program's own descriptions win when it runs."""
    src = _strip_comments(source.read_text())
    tests = []
    head = re.compile(r"(?<![A-Za-z0-9_])TEST_CASE\s*\(")
    i = 0
    while i < len(src):
        if src[i] == '"' or (src[i] == "'" and not (i and src[i - 1].isalnum())):
            i = _skip_literal(src, i)
            continue
        m = head.match(src, i)
        if not m:
            i += 1
            continue
        depth, j = 1, m.end()
        while j < len(src) and depth:
            if src[j] == '"' or (src[j] == "'" and not src[j - 1].isalnum()):
                j = _skip_literal(src, j)
                continue
            if src[j] == "(":
                depth += 1
            elif src[j] == ")":
                depth -= 1
            j += 1
        i = j
        args = src[m.end():j - 1]
        name = "".join(_c_string_literals(args))
        desc = re.search(r"description\s*\(((?:\s*\"(?:[^\"\\]|\\.)*\")+)\s*\)", args)
        tests.append(DeclaredTest(name, points_of("".join(_c_string_literals(desc.group(1)))
                                                  if desc else None)))
    return tests


