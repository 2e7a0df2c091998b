"""What the grader builds.

The grader's own build (GraderBuild): a CMake build of the checkout, configured once, that makes
the chapters' checkers and the runtime a runner links with (the emulator, the translator, the
runner's main and request decoding) or starts its compile from (the lab's headers precompiled: the
runners' prelude). Nothing of a student is in it, and a runner's build sees it read-only.

A submission's runner (build_runner): the student's files, copied into a scratch folder outside the
checkout (stage_files: only the files the chapter names, only regular files, never through a
link), compiled with the chapter's runner source in the sandbox, with a time limit. Everything of a
runner that does not depend on the student (the runner's main, the decoding of requests, the
emulator) is in the grader's build, compiled once; a student costs one compile of the runner's
source with the student's files, and a link.

Within one grading run, a runner is built once per distinct input (RunnerCache): students who hand
in byte-identical files for a chapter (copies of one file, an untouched exercise) share one build.
With --runner-cache, runners are kept from one run to the next (RunnerStore).
"""
import concurrent.futures
import contextlib
import fcntl
import hashlib
import json
import os
import re
import shutil
import stat
import subprocess
import threading
import time
from pathlib import Path
from typing import Dict, List, Optional, Tuple

from scanlab_grade.chapters import Chapter
from scanlab_grade.doctest_run import GradeError
from scanlab_grade.runner_store import RunnerStore
from scanlab_grade.sandbox import BUILD_LIMITS, Sandbox, make_writable_for_sandbox

MAX_STUDENT_FILE_BYTES = 1 << 20
COMPILE_ERROR_LINES = 20


def say(msg: str) -> None:
    import sys
    print(f"scanlab-grade: {msg}", file=sys.stderr, flush=True)


class GraderBuild:
    """The grader's CMake build tree (one per backend). A grade holds it exclusively while it
    configures and builds, then shares it with other grades (which only read it)."""

    def __init__(self, repo: Path, build_dir: Path, backend: str, jobs: int, verbose: bool):
        self.repo, self.dir, self.backend, self.jobs, self.verbose = repo, build_dir, backend, jobs, verbose
        self._lock_file = None
        # At most `jobs` compilers and checkers run at once, whichever students they are for: the
        # students' threads queue here, so one that waits (for another's identical build, for its
        # last checker) leaves the machine to the next.
        self.slots = threading.BoundedSemaphore(max(1, jobs))
        # The runners built in this grading run (set by the caller; None: no reuse).
        self.runners: Optional["RunnerCache"] = None

    def __enter__(self):
        self.dir.mkdir(parents=True, exist_ok=True)
        self._lock_file = open(self.dir.parent / f"{self.dir.name}.lock", "w")
        fcntl.flock(self._lock_file, fcntl.LOCK_SH)
        return self

    def _exclusive(self) -> None:
        """Takes the build for itself (to configure or build), waiting for the grades reading it."""
        fcntl.flock(self._lock_file, fcntl.LOCK_UN)
        try:
            fcntl.flock(self._lock_file, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            say(f"waiting for other grading runs that use {self.dir} ...")
            fcntl.flock(self._lock_file, fcntl.LOCK_EX)

    def _up_to_date(self, targets: List[str]) -> bool:
        if not (self.dir / "build.ninja").is_file():
            return False
        p = subprocess.run([self._ninja(), "-C", str(self.dir), "-n", *targets], stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        return p.returncode == 0 and b"no work to do" in p.stdout

    def __exit__(self, *exc):
        if self._lock_file:
            fcntl.flock(self._lock_file, fcntl.LOCK_UN)
            self._lock_file.close()

    def _run(self, cmd: List[str], check: bool = True) -> subprocess.CompletedProcess:
        if self.verbose:
            say("+ " + " ".join(cmd))
        p = subprocess.run(cmd, cwd=self.repo, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           stdin=subprocess.DEVNULL)
        p.text = p.stdout.decode(errors="replace")
        if check and p.returncode != 0:
            raise GradeError(f"command failed ({p.returncode}): {' '.join(cmd)}\n{p.text[-4000:]}")
        return p

    def configure(self) -> None:
        if (self.dir / "CMakeCache.txt").is_file() and (self.dir / "build.ninja").is_file():
            # Re-runs CMake when the project's CMake files changed since (a chapter was added).
            self._run([self._ninja(), "-C", str(self.dir), "build.ninja"])
            return
        say(f"configuring the grader build in {self.dir} (once; later runs reuse it)")
        if self.backend == "emu":
            backends = ["-DSCANLAB_EMU=ON", "-DSCANLAB_CUDA=OFF"]
        else:
            backends = ["-DSCANLAB_EMU=OFF", "-DSCANLAB_CUDA=ON"]
        self._run(["cmake", "-S", str(self.repo), "-B", str(self.dir), "-G", "Ninja",
                   "-DCMAKE_BUILD_TYPE=RelWithDebInfo", *backends,
                   "-DSCANLAB_GPU_TESTS=OFF", "-DSCANLAB_BOOK_TESTS=OFF"])

    def _ninja(self) -> str:
        m = re.search(r"^CMAKE_MAKE_PROGRAM:[A-Z]+=(.+)$", (self.dir / "CMakeCache.txt").read_text(), re.M)
        return m.group(1).strip() if m else "ninja"

    def compiler_version(self) -> bytes:
        """The compiler that builds runners, and what it says its version is (part of the digest
        under which RunnerCache keeps a runner)."""
        name = self._cache("CMAKE_CXX_COMPILER" if self.backend == "emu" else "CMAKE_CUDA_COMPILER")
        name = name or ("c++" if self.backend == "emu" else "nvcc")
        p = subprocess.run([name, "--version"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           stdin=subprocess.DEVNULL)
        return name.encode() + b"\0" + p.stdout

    def _cache(self, name: str) -> str:
        m = re.search(rf"^{re.escape(name)}:[A-Z]+=(.*)$", (self.dir / "CMakeCache.txt").read_text(), re.M)
        return m.group(1).strip() if m else ""

    def build(self, chapters: List[Chapter]) -> None:
        """Configures (once) and builds the checkers of these chapters and the runtime of the
        runners: the grader's code only, so a failure here is the grader's problem. Grades that
        find it built share it; one that must build waits for them and holds it alone meanwhile."""
        targets = ([c.checker_target() for c in chapters]
                   + [f"scanlab_grading_runner_{self.backend}"])
        if self.backend == "emu":
            targets += ["scanlab_emu", "scanlab_emu_translate", "scanlab_runner_prelude"]
        if self._up_to_date(targets):
            return
        self._exclusive()
        self.configure()
        t0 = time.monotonic()
        self._run(["cmake", "--build", str(self.dir), "-j", str(self.jobs), "--target", *targets])
        if time.monotonic() - t0 > 5:
            say(f"built the checkers and the {self.backend} runtime in {time.monotonic() - t0:.0f} s")
        fcntl.flock(self._lock_file, fcntl.LOCK_SH)  # from here on the build is only read

    def checker(self, chapter: Chapter) -> Path:
        return self.dir / "bin" / chapter.checker_target()

    def runner_library(self) -> Path:
        return self.dir / "common" / f"libscanlab_grading_runner_{self.backend}.a"

    def runner_prelude(self) -> Path:
        """The runners' prelude header, precompiled (a .gch beside it) by this build: the lab's
        headers every runner includes first, parsed once instead of once per student."""
        return self.dir / "common" / "emu" / "runner-pch" / "scanlab_runner_prelude.hpp"

    # ---- a submission's runner -----------------------------------------------------------------

    def runner_command(self, chapter: Chapter, src: Path, out: Path) -> List[str]:
        """The command that compiles the chapter's runner with the student's files in `src`."""
        source = self.repo / "tests" / "grade" / f"{chapter.id}_runner.cu"
        library = self.runner_library()
        chapter_dir = self.repo / "chapters" / chapter.id
        if self.backend == "emu":
            return [str(self.dir / "bin" / "scanlab-emucc"), str(source), "-o", str(out),
                    "-include", str(self.runner_prelude()),
                    "-I", str(src), "-I", str(chapter_dir), str(library),
                    "-MD", "-MF", str(out.parent / "deps.d")]
        nvcc = self._cache("CMAKE_CUDA_COMPILER") or "nvcc"
        arch = self._cache("CMAKE_CUDA_ARCHITECTURES") or "native"
        arch_flag = "-arch=native" if arch in ("native", "all", "") else f"-arch=sm_{arch.split(';')[0].split('-')[0]}"
        return [nvcc, "-std=c++17", "-O3", arch_flag, "--expt-relaxed-constexpr", "-lineinfo",
                "-I", str(src), "-I", str(chapter_dir), "-I", str(self.repo / "common" / "include"),
                str(source), str(library), "-o", str(out)]

    def read_only_paths(self, chapter: Chapter) -> List[Path]:
        """What a runner's build may read of the checkout and of this build: the common headers,
        the chapter's given code and its runner source, and the few files of the build that make a
        runner (the emulator's compiler script, translator and library; the runner's main). Never
        solutions/, never the other chapters, never the checkers' sources, and no other program of
        the build (a build tree that also holds the reference solutions' programs is safe to use).
        All of them read-only: a build cannot change what the next student's build starts from."""
        tools = [self.runner_library()]
        if self.backend == "emu":
            tools += [self.dir / "bin" / "scanlab-emucc", self.dir / "bin" / "scanlab-emu-translate",
                      self.dir / "common" / "emu" / "libscanlab_emu.a", self.runner_prelude().parent]
        return [self.repo / "common" / "include", self.repo / "common" / "emu" / "include",
                self.repo / "chapters" / chapter.id,
                self.repo / "tests" / "grade" / f"{chapter.id}_runner.cu", *tools]


def stage_files(chapter: Chapter, student_dir: Path, dest: Path) -> Tuple[List[str], Optional[str]]:
    """Copies the chapter's files from the student's folder into dest. Returns (notes, error):
    error says why the chapter cannot be built (a file missing or refused). Only regular files
    are read, opened without following links and without blocking (a FIFO is refused, not
    waited on); extra files in the folder are named in a note and ignored."""
    notes: List[str] = []
    folder = student_dir / chapter.id
    try:
        st = os.lstat(folder)
    except OSError:
        return notes, f"no folder {chapter.id}/"
    if not stat.S_ISDIR(st.st_mode):
        return notes, f"{chapter.id} is not a folder (a link or a file); it was not read"
    dest.mkdir(parents=True, exist_ok=True)
    wanted = set(chapter.files)
    try:
        extra = sorted(p.name for p in folder.iterdir() if p.name not in wanted)
    except OSError as e:
        return notes, f"cannot list {chapter.id}/: {e.strerror}"
    if extra:
        shown = ", ".join(repr(x) for x in extra[:8]) + (" ..." if len(extra) > 8 else "")
        notes.append(f"ignored files that are not part of the exercise: {shown}")
    for name in chapter.files:
        path = folder / name
        try:
            fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
        except FileNotFoundError:
            return notes, f"{chapter.id}/{name} is missing"
        except OSError as e:
            why = "a symbolic link" if e.errno == 40 else e.strerror
            return notes, f"{chapter.id}/{name} was not read: {why}"
        try:
            st = os.fstat(fd)
            if not stat.S_ISREG(st.st_mode):
                return notes, f"{chapter.id}/{name} is not a regular file; it was not read"
            if st.st_size > MAX_STUDENT_FILE_BYTES:
                return notes, f"{chapter.id}/{name} is larger than {MAX_STUDENT_FILE_BYTES >> 20} MiB"
            data = b""
            while len(data) <= MAX_STUDENT_FILE_BYTES:
                chunk = os.read(fd, 1 << 16)
                if not chunk:
                    break
                data += chunk
        finally:
            os.close(fd)
        (dest / name).write_bytes(data)
    return notes, None


def build_runner(build: GraderBuild, sandbox: Sandbox, chapter: Chapter, scratch: Path,
                 student_label: str, timeout: float) -> Tuple[Optional[Path], str, Optional[Path]]:
    """The runner of the student's files in scratch/src: (path, "", the folder of the sources it
    was built from) or (None, the compiler's first error lines with the student's paths shown,
    None). With build.runners set, files that another student of this grading run handed in
    byte for byte get that student's runner: the sources folder returned is then the other
    student's, which the caller maps to this student's in messages (file:line of a race)."""
    src = scratch / "src"

    def compile_here() -> Tuple[Optional[Path], str]:
        return compile_runner(build, sandbox, chapter, scratch, student_label, timeout)

    if build.runners is None:
        binary, message = compile_here()
        return binary, message, (src if binary else None)
    return build.runners.get(chapter, src, compile_here)


def compile_runner(build: GraderBuild, sandbox: Sandbox, chapter: Chapter, scratch: Path,
                   student_label: str, timeout: float) -> Tuple[Optional[Path], str]:
    """Compiles the runner in scratch/src into scratch/out/runner in the sandbox. Returns (path,
    "") or (None, the compiler's first error lines with the student's paths shown)."""
    src, out = scratch / "src", scratch / "out"
    out.mkdir(parents=True, exist_ok=True)
    make_writable_for_sandbox(scratch, src, out)
    binary = out / "runner"
    cmd = build.runner_command(chapter, src, binary)
    env = {"PATH": "/usr/local/cuda/bin:/usr/bin:/bin", "HOME": "/tmp", "TMPDIR": "/tmp", "LANG": "C.UTF-8"}
    wrapped = sandbox.wrap(cmd, read_only=build.read_only_paths(chapter), writable=[scratch],
                           chdir=scratch, env=env, limits=BUILD_LIMITS)
    if not sandbox.enabled:
        wrapped_env = dict(os.environ, **env)
    else:
        wrapped_env = None
    if build.verbose:
        say("+ " + " ".join(wrapped))
    try:
        with build.slots:  # one of the machine's --jobs
            p = subprocess.run(wrapped, cwd=scratch, env=wrapped_env, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, timeout=timeout,
                               start_new_session=True)
    except subprocess.TimeoutExpired:
        # run() killed the sandbox's first process; the kernel ends the rest of its namespace.
        return None, f"the build took longer than {timeout:g} s and was stopped"
    text = p.stdout.decode(errors="replace")
    # The lab's own files by their path in the checkout; then the student's files by the student's
    # folder (after, so that a class folder inside the checkout keeps its full path).
    text = text.replace(str(build.repo) + "/", "")
    text = text.replace(str(src) + "/", f"{student_label}/{chapter.id}/")
    if p.returncode != 0 or not binary.is_file():
        return None, compiler_message(text) or f"the build failed (exit status {p.returncode})"
    outside = includes_outside(out / "deps.d", build.read_only_paths(chapter) + [src, Path("/usr")])
    if outside:
        binary.unlink()
        return None, ("the build read files outside the exercise, the chapter's given code and the "
                      "system: " + ", ".join(str(p) for p in outside[:5]))
    return binary, ""


class RunnerCache:
    """The runners built in one grading run, by the digest of everything their build reads: the
    student's files (names and bytes), every file of the checkout and of the grader's build that
    the sandbox shows the build (read_only_paths: the headers, the chapter's given code, the
    runner's source, the compiler script, translator and libraries), the compile command and the
    compiler's version. Two builds with the same digest compile the same text with the same
    compiler, so the second is skipped.

    A runner is copied out of its student's scratch folder into a folder of the grader's,
    root/DIGEST/runner, as soon as its build ends and before anything runs it; every student with
    those files is run with that copy. No sandbox is shown it writable (a run sees its folder
    read-only, and nothing else of root), so no student's run can change the runner another
    student is graded with. The cache lives in the grading run's scratch folder and goes with it;
    with a store (--runner-cache, runner_store.py), runners are also kept from one grading run to
    the next, under the same digest."""

    def __init__(self, build: GraderBuild, root: Path, store: Optional[RunnerStore] = None):
        self.build, self.root, self.store = build, root, store
        root.mkdir(exist_ok=True)
        root.chmod(0o711)  # the sandbox's user may pass through to one runner's folder, not list
        self._lock = threading.Lock()
        self._builds: Dict[str, concurrent.futures.Future] = {}
        # Digests of the trusted inputs, made once per run: per file (the libraries and the
        # precompiled prelude are shared by every chapter) and per chapter.
        self._digest_lock = threading.Lock()
        self._file_digests: Dict[Path, bytes] = {}
        self._chapter_digests: Dict[str, bytes] = {}
        self._compiler: Optional[bytes] = None

    def _file_digest(self, path: Path) -> bytes:
        if path not in self._file_digests:
            h = hashlib.sha256()
            with open(path, "rb") as f:
                for chunk in iter(lambda: f.read(1 << 20), b""):
                    h.update(chunk)
            self._file_digests[path] = h.digest()
        return self._file_digests[path]

    def _trusted_inputs(self, chapter: Chapter) -> bytes:
        """The digest of what a chapter's runner build reads besides the student's files."""
        with self._digest_lock:
            if chapter.id not in self._chapter_digests:
                if self._compiler is None:
                    self._compiler = self.build.compiler_version()
                h = hashlib.sha256(self._compiler)
                command = self.build.runner_command(chapter, Path("/SRC"), Path("/OUT/runner"))
                h.update(json.dumps(command).encode())
                for root in self.build.read_only_paths(chapter):
                    for path in _files_under(root):
                        h.update(f"{path}\0".encode(errors="surrogateescape"))
                        h.update(self._file_digest(path))
                self._chapter_digests[chapter.id] = h.digest()
            return self._chapter_digests[chapter.id]

    def key(self, chapter: Chapter, src: Path) -> str:
        h = hashlib.sha256(self._trusted_inputs(chapter))
        for name in chapter.files:  # staged by stage_files: regular files of the grader's
            data = (src / name).read_bytes()
            h.update(f"{name}\0{len(data)}\0".encode())
            h.update(data)
        return h.hexdigest()

    def get(self, chapter: Chapter, src: Path, compile_here) -> Tuple[Optional[Path], str, Optional[Path]]:
        """The runner for the files in src: built now by compile_here() (which returns (binary,
        message)), or the one built from the same inputs earlier in this run (waiting for it
        while its build runs), or in an earlier run (the store's). As build_runner returns."""
        key = self.key(chapter, src)
        with self._lock:
            pending = self._builds.get(key)
            if pending is None:
                self._builds[key] = concurrent.futures.Future()
        if pending is not None:
            shared, built_from = pending.result()
            if shared is not None:
                if self.build.verbose:
                    say(f"{chapter.id}: the same files as a runner built before in this run: reusing it")
                return shared, "", built_from
            # That build failed: this student's message comes from a build of its own.
            binary, message = compile_here()
            return binary, message, (src if binary else None)
        shared, message, built_from = None, "", src
        try:
            with self.store.locked(key) if self.store else contextlib.nullcontext():
                found = self.store.find(key) if self.store else None
                if found is not None:
                    try:
                        shared, built_from = self._keep_stored(key, found[0]), found[1]
                        if self.build.verbose:
                            say(f"{chapter.id}: the same files as a runner built in an earlier run: reusing it")
                    except (OSError, ValueError) as e:  # damaged: built again below
                        say(f"{chapter.id}: the runner cache's copy is unusable ({e}); building it again")
                        remove_tree(self.root / key)
                        self.store.discard(key)
                if shared is None:
                    binary, message = compile_here()
                    if binary is not None:
                        shared = self._keep(key, binary)
                        if self.store:
                            system = includes_outside(binary.parent / "deps.d",
                                                      self.build.read_only_paths(chapter) + [src])
                            self.store.add(key, shared, src, system)
        finally:
            self._builds[key].set_result((shared, built_from if shared else None))
        return shared, message, (built_from if shared else None)

    def _keep(self, key: str, binary: Path) -> Path:
        """Copies a runner just built into root/key/runner, a file of the grader's."""
        fd = os.open(binary, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
        with os.fdopen(fd, "rb") as f:
            if not stat.S_ISREG(os.fstat(f.fileno()).st_mode):
                raise GradeError(f"{binary} is not a regular file")
            return self._write_runner(key, lambda out: shutil.copyfileobj(f, out))

    def _keep_stored(self, key: str, stored: Path) -> Path:
        """Copies a runner of the store into root/key/runner, as _keep does a runner just built."""
        return self._write_runner(key, lambda out: self.store.copy_out(stored, out))

    def _write_runner(self, key: str, write) -> Path:
        folder = self.root / key
        folder.mkdir()
        folder.chmod(0o755)
        dest = folder / "runner"
        with open(dest, "xb") as out:
            write(out)
        dest.chmod(0o755)
        return dest


def _files_under(root: Path) -> List[Path]:
    """root itself when it is a file, else every file below it, in a fixed order."""
    if root.is_file():
        return [root]
    found = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames.sort()
        found += [Path(dirpath) / f for f in sorted(filenames) if (Path(dirpath) / f).is_file()]
    return found


def includes_outside(depfile: Path, allowed: List[Path]) -> List[Path]:
    """The files a build read (its compiler's dependency file) that lie outside the allowed
    folders. The sandbox shows nothing else; this check holds without it (--no-sandbox) too. (It
    also names the system headers a runner was built with, for the store.)"""
    if not depfile.is_file():
        return []
    text = depfile.read_text(errors="replace").replace("\\\n", " ")
    _, _, deps = text.partition(":")
    roots = [str(a.resolve()) for a in allowed]
    outside = []
    for token in deps.split():
        path = Path(token)
        # Relative paths, and scanlab-emucc's own working folder (the translated copies).
        if not path.is_absolute() or re.match(r"/tmp/tmp\.[A-Za-z0-9]+/", token):
            continue
        resolved = str(path.resolve())
        if not any(resolved == r or resolved.startswith(r + "/") for r in roots):
            outside.append(path)
    return outside


def compiler_message(text: str) -> str:
    """The compiler's first error, with the context lines just before it."""
    lines = [line for line in text.splitlines() if line.strip()]
    first = next((i for i, line in enumerate(lines) if re.search(r"\berror\b", line)), None)
    if first is None:
        return "\n".join(lines[-COMPILE_ERROR_LINES:])
    start = max(0, first - 3)
    while start < first and not re.search(r"In file included|In (instantiation|function|member)|required from",
                                          lines[start]):
        start += 1
    return "\n".join(lines[start:start + COMPILE_ERROR_LINES])


def remove_tree(path: Path) -> None:
    shutil.rmtree(path, ignore_errors=True)
