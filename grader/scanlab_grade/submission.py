"""A platform's upload read into an exercises folder the grader can grade.

Students hand in on Gradescope and PrairieLearn however they like: the chapter's files loose, a zip
of the exercises folder (or of one chapter's folder), or their whole repository. `collect` finds each
file a chapter asks for (chapters/chapters.json names them; no two chapters share a name) wherever it
is, and writes it to DEST/NN_slug/NAME, where the grader looks. It reads the upload as untrusted
data: links are not followed, zips are read entry by entry (never extracted, so no entry can land
outside DEST), only entries with a wanted name are read, every size is bounded, and a file that is
too large or not text is refused with a message that says so. Anything that cannot be used becomes
a sentence for the student, never an exception.
"""

import dataclasses
import os
import stat
import zipfile
from pathlib import Path, PurePosixPath
from typing import Dict, List, Optional, Tuple

from scanlab_grade.build import MAX_STUDENT_FILE_BYTES
from scanlab_grade.chapters import Chapter

MAX_ENTRIES = 20000            # files and zip entries looked at, in all
MAX_ZIP_BYTES = 512 << 20      # a zip larger than this is not opened
SKIPPED_FOLDERS = {".git", "__MACOSX", "node_modules", "build"}


@dataclasses.dataclass
class Candidate:
    where: str                 # as the student would name it: "hw.zip:exercises/00_sequential/x.cuh"
    parts: Tuple[str, ...]     # its path's parts inside the upload (or the zip)
    size: int
    read: object               # () -> bytes (at most MAX_STUDENT_FILE_BYTES + 1 of them)
    is_folder: bool = False


@dataclasses.dataclass
class Collected:
    chapters: List[Chapter] = dataclasses.field(default_factory=list)   # those written to DEST
    notes: List[str] = dataclasses.field(default_factory=list)          # for the student
    problem: Optional[str] = None   # set when nothing can be graded: why, for the student


def _size_words(n: int) -> str:
    return f"{n / (1 << 20):.1f} MiB" if n >= 1 << 20 else f"{n} bytes"


def _rank(c: Candidate, chapter: Chapter) -> int:
    """How surely a file is the chapter's: in NN_slug/ beats elsewhere, and exercises/NN_slug/
    (a repository, a zip of the exercises folder) beats other copies; solutions/ is never it."""
    folder = c.parts[-2] if len(c.parts) > 1 else ""
    rank = 0
    if folder == chapter.id:
        rank += 2
        if len(c.parts) > 2 and c.parts[-3] == "exercises":
            rank += 1
    if "solutions" in c.parts[:-1]:
        rank -= 10
    return rank


class _Scan:
    def __init__(self, wanted: set):
        self.wanted = wanted
        self.found: Dict[str, List[Candidate]] = {}
        self.seen: List[str] = []        # other files, to say what was there instead
        self.notes: List[str] = []
        self.entries = 0
        self.zips = 0
        self.empty_zips: List[str] = []

    def _add(self, c: Candidate) -> None:
        name = c.parts[-1]
        if name in self.wanted:
            self.found.setdefault(name, []).append(c)
        elif len(self.seen) < 12:
            self.seen.append(c.where)

    def walk(self, root: Path) -> None:
        for dirpath, dirnames, filenames in os.walk(root):
            rel = Path(dirpath).relative_to(root)
            dirnames[:] = sorted(d for d in dirnames if d not in SKIPPED_FOLDERS)
            for d in dirnames:  # a folder by a file's name: say so rather than "missing"
                if d in self.wanted:
                    parts = (rel / d).parts
                    self._add(Candidate(str(rel / d), parts, 0, lambda: b"", is_folder=True))
            for name in sorted(filenames):
                self.entries += 1
                if self.entries > MAX_ENTRIES:
                    self.notes.append(f"the submission has more than {MAX_ENTRIES} files; the rest were not read")
                    return
                path = Path(dirpath) / name
                where = str(rel / name)
                try:
                    st = os.lstat(path)
                except OSError:
                    continue
                if stat.S_ISLNK(st.st_mode):
                    self.notes.append(f"{where} is a symbolic link; it was not followed")
                    continue
                if not stat.S_ISREG(st.st_mode):
                    continue
                if name.lower().endswith(".zip"):
                    self.zip(path, where, st.st_size)
                    continue
                self._add(Candidate(where, (rel / name).parts, st.st_size, lambda p=path: _read_file(p)))

    def zip(self, path: Path, where: str, size: int) -> None:
        self.zips += 1
        if size > MAX_ZIP_BYTES:
            self.notes.append(f"{where} is {_size_words(size)}, too large to open")
            return
        try:
            z = zipfile.ZipFile(path)
            infos = z.infolist()
        except (zipfile.BadZipFile, OSError, ValueError) as e:
            self.notes.append(f"{where} is not a zip file that can be read ({e})")
            return
        files = [i for i in infos if not i.is_dir()]
        if not files:
            self.empty_zips.append(where)
            return
        for info in files:
            self.entries += 1
            if self.entries > MAX_ENTRIES:
                self.notes.append(f"{where} has more than {MAX_ENTRIES} entries; the rest were not read")
                return
            parts = PurePosixPath(info.filename.replace("\\", "/")).parts
            if not parts or any(p in SKIPPED_FOLDERS for p in parts[:-1]) or parts[-1].startswith("._"):
                continue
            if (info.external_attr >> 16) & 0o170000 == 0o120000:
                self.notes.append(f"{where}:{info.filename} is a symbolic link; it was not read")
                continue
            if parts[-1].lower().endswith(".zip"):
                self.notes.append(f"{where}:{info.filename} is a zip inside the zip; it was not opened")
                continue
            self._add(Candidate(f"{where}:{info.filename}", parts, info.file_size,
                                lambda z=z, i=info: _read_entry(z, i)))
        # A folder by a file's name (an entry of its own, or only the folder of other entries).
        folders = {PurePosixPath(i.filename).parts for i in infos if i.is_dir()}
        folders |= {PurePosixPath(i.filename).parts[:k] for i in files
                    for k in range(1, len(PurePosixPath(i.filename).parts))}
        for parts in sorted(f for f in folders if f and f[-1] in self.wanted):
            self._add(Candidate(f"{where}:{'/'.join(parts)}/", parts, 0, lambda: b"", is_folder=True))


def _read_file(path: Path) -> bytes:
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    with os.fdopen(fd, "rb") as f:
        return f.read(MAX_STUDENT_FILE_BYTES + 1)


def _read_entry(z: zipfile.ZipFile, info: zipfile.ZipInfo) -> bytes:
    with z.open(info) as f:  # reads at most this much, whatever the entry claims its size is
        return f.read(MAX_STUDENT_FILE_BYTES + 1)


def _text_problem(data: bytes) -> Optional[str]:
    if len(data) > MAX_STUDENT_FILE_BYTES:
        return f"is larger than {MAX_STUDENT_FILE_BYTES >> 20} MiB"
    if b"\0" in data:
        return "is not a text file (it holds NUL bytes)"
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return "is not a text file (it is not UTF-8)"
    return None


def collect(upload: Path, chapters: List[Chapter], dest: Path) -> Collected:
    """Finds the chapters' files in the upload and writes each to dest/NN_slug/NAME. Chapters with
    none of their files are left out (the grader says "missing"); one whose files cannot all be
    used is left out with a note saying why; when no chapter can be graded, `problem` says why."""
    out = Collected()
    if not upload.is_dir():
        out.problem = "no submission was found (the platform gave the grader no files)"
        return out
    wanted = {name for ch in chapters for name in ch.files}
    scan = _Scan(wanted)
    scan.walk(upload)
    out.notes += scan.notes
    problems: List[str] = []
    for ch in chapters:
        picked: Dict[str, Tuple[Candidate, bytes]] = {}
        trouble = []
        for name in ch.files:
            cands = sorted(scan.found.get(name, []), key=lambda c: -_rank(c, ch))
            cands = [c for c in cands if _rank(c, ch) >= 0] or cands
            if not cands:
                continue
            best = [c for c in cands if _rank(c, ch) == _rank(cands[0], ch)]
            c = best[0]
            if c.is_folder:
                trouble.append(f"{c.where} is a folder; {name} must be a file")
                continue
            if c.size > MAX_STUDENT_FILE_BYTES:
                trouble.append(f"{c.where} is {_size_words(c.size)}; an exercise file may be at most "
                               f"{MAX_STUDENT_FILE_BYTES >> 20} MiB")
                continue
            try:
                data = c.read()
            except (OSError, zipfile.BadZipFile, RuntimeError, ValueError, EOFError) as e:
                trouble.append(f"{c.where} could not be read ({e})")
                continue
            why = _text_problem(data)
            if why:
                trouble.append(f"{c.where} {why}")
                continue
            if len(best) > 1:
                others = [o for o in best[1:] if not o.is_folder and o.size == len(data)]
                if any(o.read() != data for o in others) or len(others) != len(best) - 1:
                    trouble.append(f"{name} is there {len(best)} times, with different contents ("
                                   + ", ".join(o.where for o in best[:4]) + "): hand in one")
                    continue
            picked[name] = (c, data)
        if trouble:
            problems += [f"chapter {ch.nn}: {t}" for t in trouble]
            continue
        if not picked:
            continue
        missing = [n for n in ch.files if n not in picked]
        if missing:
            problems.append(f"chapter {ch.nn}: {', '.join(missing)} is missing (the chapter needs "
                            f"{' and '.join(ch.files)})")
            continue
        folder = dest / ch.id
        folder.mkdir(parents=True, exist_ok=True)
        for name, (_, data) in picked.items():
            (folder / name).write_bytes(data)
        out.chapters.append(ch)
        out.notes.append(f"chapter {ch.nn}: graded " + ", ".join(c.where for c, _ in picked.values()))
    out.notes += problems
    if not out.chapters:
        expected = ", ".join(f"{name} (chapter {ch.nn})" for ch in chapters for name in ch.files)
        if problems:
            out.problem = "nothing could be graded: " + "; ".join(problems)
        elif scan.empty_zips and not scan.found and not scan.seen:
            out.problem = f"{', '.join(scan.empty_zips)}: the zip file is empty. Hand in {expected}"
        else:
            there = (f" The submission holds: {', '.join(scan.seen)}" + (" ..." if len(scan.seen) >= 12 else "")
                     if scan.seen else " The submission is empty.")
            out.problem = (f"none of the files this assignment grades was found: {expected}, loose or in a "
                           f"zip of your exercises folder.{there}")
        out.notes = [n for n in out.notes if n not in problems]
    return out
