"""Runners kept from one grading run to the next (--runner-cache DIR).

Within one grading run, RunnerCache (build.py) builds a runner once per distinct input. A store
keeps those runners after the run, under the same digest, so that a later run given the same files
(a class graded again after one late submission, the lab's own tests grading the same solution
on every platform) copies the runner instead of compiling it. The digest already covers every file
of the checkout and of the grader's build that a runner's build reads, the compile command and the
compiler's version; what it does not cover, the system headers the compiler read (Boost, the C++
library), the store records by size and time (from the build's dependency file) and checks again
before it hands a runner out. An upgrade of any of them makes the runner a miss.

Only the grader writes here, never a sandbox: a runner is copied in after its build ended and out
(into the run's own folder, RunnerCache._keep_stored) before anything runs it, so a later eviction cannot
pull a runner from under a run. Grading runs that share a store (ctest runs many at once) take a
lock per digest, so one builds while the others wait for its runner. The folder must be the
grader's user's alone: a runner found there is run as a student's code is, but graded as theirs.

  DIR/<digest>/runner.z      the runner, compressed (zlib's fastest level: 4 MB of 12, in 0.2 s)
  DIR/<digest>/source        the folder it was built from (its paths in messages are mapped back)
  DIR/<digest>/system.json   [path, size, mtime_ns] of every system file its build read
  DIR/locks/<xx>             one lock per first two hex digits of a digest (never removed)
"""
import contextlib
import fcntl
import json
import os
import re
import shutil
import stat
import threading
import zlib
from pathlib import Path
from typing import BinaryIO, Iterator, List, Optional, Tuple

from scanlab_grade.doctest_run import GradeError

DEFAULT_MAX_BYTES = 4 << 30  # about 1000 runners of the emulator; the oldest used go first
_CHUNK = 1 << 20
_DIGEST = re.compile(r"[0-9a-f]{64}")


class RunnerStore:
    def __init__(self, root: Path, max_bytes: int = DEFAULT_MAX_BYTES):
        self.root, self.max_bytes = root, max_bytes
        if root.exists() and not root.is_dir():
            raise GradeError(f"--runner-cache: {root} is not a folder")
        try:
            root.mkdir(mode=0o700, parents=True, exist_ok=True)
            st = root.stat()
        except OSError as e:
            raise GradeError(f"--runner-cache: cannot use {root}: {e.strerror}") from None
        if st.st_uid != os.geteuid() or st.st_mode & 0o022:
            raise GradeError(f"--runner-cache: {root} must belong to this user alone (not writable by "
                             f"others): another user could put a runner in it")
        (root / "locks").mkdir(mode=0o700, exist_ok=True)
        (root / "new").mkdir(mode=0o700, exist_ok=True)

    @contextlib.contextmanager
    def locked(self, key: str, wait: bool = True) -> Iterator[bool]:
        """Holds the digest's lock: no other grading run builds, adds or removes it meanwhile.
        With wait=False, yields False at once when another holds it (or one of the same lock)."""
        with open(self.root / "locks" / key[:2], "a") as f:
            try:
                fcntl.flock(f, fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))
            except BlockingIOError:
                yield False
                return
            try:
                yield True
            finally:
                fcntl.flock(f, fcntl.LOCK_UN)

    def find(self, key: str) -> Optional[Tuple[Path, Path]]:
        """(the stored runner, for copy_out; the folder it was built from) when the store has it
        and the system files its build read are as they were; None otherwise. Call it holding the
        digest's lock."""
        folder = self.root / key
        try:
            system = json.loads((folder / "system.json").read_text())
            source = Path((folder / "source").read_text())
            runner = folder / "runner.z"
            if not stat.S_ISREG(os.lstat(runner).st_mode):
                raise ValueError("not a file")
        except (OSError, ValueError):
            return None
        for path, size, mtime_ns in system:
            try:
                st = os.stat(path)
            except OSError:
                st = None
            if st is None or (st.st_size, st.st_mtime_ns) != (size, mtime_ns):
                self.discard(key)  # built against files no longer there
                return None
        os.utime(folder)  # last used: eviction takes the runners unused longest
        return runner, source

    def add(self, key: str, runner: Path, source: Path, system_files: List[Path]) -> None:
        """Keeps a copy of a runner just built (call it holding the digest's lock), then evicts the
        runners used longest ago while the store is larger than its limit."""
        system = []
        for path in system_files:
            try:
                st = os.stat(path)
            except OSError:
                return  # a file the build read is gone already: nothing to vouch for
            system.append([str(path), st.st_size, st.st_mtime_ns])
        new = self.root / "new" / f"{key}.{os.getpid()}.{threading.get_ident()}"
        try:
            shutil.rmtree(new, ignore_errors=True)
            new.mkdir(mode=0o700)
            packer = zlib.compressobj(1)
            with open(runner, "rb") as f, open(new / "runner.z", "xb") as out:
                for chunk in iter(lambda: f.read(_CHUNK), b""):
                    out.write(packer.compress(chunk))
                out.write(packer.flush())
            (new / "source").write_text(str(source))
            (new / "system.json").write_text(json.dumps(system))
            os.rename(new, self.root / key)
        except OSError:  # a full disk, or already there: the grade goes on without keeping it
            shutil.rmtree(new, ignore_errors=True)
            return
        self._evict(keep=key)

    @staticmethod
    def copy_out(stored: Path, out: BinaryIO) -> None:
        """Writes the runner that find() returned, uncompressed, to `out`. Raises ValueError when
        the stored copy is damaged (the caller builds the runner again)."""
        unpacker = zlib.decompressobj()
        try:
            with open(stored, "rb") as f:
                for chunk in iter(lambda: f.read(_CHUNK), b""):
                    out.write(unpacker.decompress(chunk))
            out.write(unpacker.flush())
        except zlib.error as e:
            raise ValueError(f"{stored}: {e}") from None
        if not unpacker.eof:
            raise ValueError(f"{stored} is cut short")

    def discard(self, key: str) -> None:
        """Removes a runner (call it holding the digest's lock)."""
        shutil.rmtree(self.root / key, ignore_errors=True)

    def _entries(self) -> List[Tuple[float, int, str]]:
        """(last used, bytes, digest) of every runner in the store."""
        entries = []
        for e in os.scandir(self.root):
            if not _DIGEST.fullmatch(e.name):
                continue
            try:
                size = sum(f.stat().st_size for f in os.scandir(e.path))
                entries.append((e.stat().st_mtime, size, e.name))
            except OSError:
                continue  # removed meanwhile by another run
        return sorted(entries)

    def _evict(self, keep: str) -> None:
        entries = self._entries()
        total = sum(size for _, size, _ in entries)
        for _, size, key in entries:
            if total <= self.max_bytes:
                break
            if key == keep:
                continue
            # Not waiting: a run may be copying it out, and the caller holds `keep`'s lock, which
            # may be this one's too.
            with self.locked(key, wait=False) as mine:
                if mine:
                    self.discard(key)
                    total -= size

