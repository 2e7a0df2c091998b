"""The sandbox every build and run of a submission goes through.

A submission is a stranger's code. Its build and its runner run under bubblewrap (Debian's
`bubblewrap`): new user, PID, network, IPC and UTS namespaces (no network; when the sandbox's
first process ends, the kernel ends every process left in it, `setsid` daemons included), the
system's /usr read-only, an empty /etc but for what the compilers need, of the checkout only the
folders the build reads (read-only; never solutions/ or tests/ beyond the chapter's runner), a
private /tmp, and one writable scratch folder outside the checkout. `prlimit` bounds CPU time,
address space, processes and file size. As root, the sandbox also drops to a user of its own: the
owner of its scratch folder, a uid that no account and no other sandbox has (RLIMIT_NPROC counts
every process of a uid, so with one shared user a submission that forks up to the limit would make
another student's runner, graded beside it, fail to start). The idea is that of the judges'
sandboxes (DOMjudge's runguard, CMS's isolate): what runs inside cannot reach the grader's files,
the reports, the network or the machine beyond its limits.
"""

import dataclasses
import itertools
import os
import shutil
import stat
import subprocess
from pathlib import Path
from typing import Dict, List, Optional, Sequence

NOBODY = 65534
# Sandbox users, as root: uids from here on belong to no account. Each scratch folder gets its own
# (this grader's pid and a counter), so that concurrent sandboxes, of this grader or another, never
# share a process count.
SANDBOX_UID_BASE = 0x40000000
_sandbox_numbers = itertools.count(1)  # next() on it is atomic: graded chapters run in threads


@dataclasses.dataclass
class Limits:
    cpu_seconds: int = 600          # RLIMIT_CPU of the whole sandbox process
    address_space: Optional[int] = 8 << 30   # RLIMIT_AS per process (None: unlimited, e.g. CUDA)
    processes: int = 64             # RLIMIT_NPROC of the sandbox's user
    file_size: int = 64 << 20       # RLIMIT_FSIZE: the largest file it may write


BUILD_LIMITS = Limits(cpu_seconds=600, address_space=6 << 30, processes=128, file_size=256 << 20)
RUN_LIMITS = Limits(cpu_seconds=1800, address_space=8 << 30, processes=64, file_size=64 << 20)


def _system_binds() -> List[str]:
    """The system as the compilers and programs need it, read-only."""
    args = ["--ro-bind", "/usr", "/usr"]
    for name in ("bin", "sbin", "lib", "lib32", "lib64", "libx32"):
        p = Path("/") / name
        if p.is_symlink():
            args += ["--symlink", os.readlink(p), f"/{name}"]
        elif p.is_dir():
            args += ["--ro-bind", str(p), f"/{name}"]
    # /etc: only what dynamic linking and the toolchains read (no passwd, no hosts, no secrets).
    for name in ("ld.so.cache", "ld.so.conf", "ld.so.conf.d", "alternatives"):
        p = Path("/etc") / name
        if p.exists():
            args += ["--ro-bind", str(p), str(p)]
    return args


def _gpu_binds() -> List[str]:
    args = []
    for p in sorted(Path("/dev").glob("nvidia*")):
        args += ["--dev-bind", str(p), str(p)]
    return args


@dataclasses.dataclass
class Sandbox:
    """How to wrap a command; `enabled` False runs it as it is (the instructor's --no-sandbox)."""
    enabled: bool = True
    reason: str = ""                # why it is off, when it is
    gpu: bool = False

    def wrap(self, argv: Sequence[str], *, read_only: Sequence[Path], writable: Sequence[Path],
             chdir: Path, env: Dict[str, str], limits: Limits) -> List[str]:
        """The command that runs argv in the sandbox: `read_only` and `writable` paths appear at
        their own absolute paths, nothing else of the file system does (but the system)."""
        if not self.enabled:
            return list(argv)
        cmd = ["prlimit", f"--cpu={limits.cpu_seconds}", f"--nproc={limits.processes}",
               f"--fsize={limits.file_size}", "--core=0"]
        if limits.address_space is not None:
            cmd.append(f"--as={limits.address_space}")
        cmd.append("--")
        if os.geteuid() == 0:
            uid = sandbox_user(writable)
            cmd += ["setpriv", f"--reuid={uid}", f"--regid={uid}", "--clear-groups", "--"]
        cmd += ["bwrap", "--unshare-all", "--die-with-parent", "--new-session",
                "--uid", str(NOBODY), "--gid", str(NOBODY), "--hostname", "sandbox"]
        cmd += _system_binds()
        cmd += ["--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp", "--dir", "/var/tmp"]
        if self.gpu:
            cmd += _gpu_binds()
        for p in read_only:
            cmd += ["--ro-bind", str(p), str(p)]
        for p in writable:
            cmd += ["--bind", str(p), str(p)]
        cmd += ["--chdir", str(chdir), "--clearenv"]
        for k, v in sorted(env.items()):
            cmd += ["--setenv", k, v]
        cmd += ["--", *argv]
        return cmd


def probe(gpu: bool = False) -> Sandbox:
    """A sandbox if this machine can make one (bubblewrap installed, namespaces allowed), else a
    disabled one whose `reason` says why."""
    for tool in ("bwrap", "prlimit"):
        if shutil.which(tool) is None:
            package = "bubblewrap" if tool == "bwrap" else "util-linux"
            return Sandbox(False, f"{tool} is not installed (Debian package {package})")
    if os.geteuid() == 0 and shutil.which("setpriv") is None:
        return Sandbox(False, "setpriv is not installed (Debian package util-linux)")
    box = Sandbox(True, "", gpu)
    argv = box.wrap(["/usr/bin/true"], read_only=[], writable=[], chdir=Path("/"),
                    env={"PATH": "/usr/bin:/bin"}, limits=Limits())
    try:
        p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           stdin=subprocess.DEVNULL, timeout=30)
    except (OSError, subprocess.TimeoutExpired) as e:
        return Sandbox(False, f"bubblewrap could not start: {e}")
    if p.returncode != 0:
        why = p.stdout.decode(errors="replace").strip().splitlines()
        return Sandbox(False, "bubblewrap cannot create namespaces here"
                       + (f" ({why[-1]})" if why else ""))
    return box


def first_closed_folder(paths: Sequence[Path]) -> Optional[Path]:
    """As root, each sandbox runs as a user of its own (below), and bubblewrap binds the checkout's
    and the build's folders as that user: it must be allowed to pass through every folder on the
    way to them. The first folder on the way to one of `paths` that other users may not pass
    through (no search permission for others, e.g. a folder made by `mktemp -d`), or None. Folders
    that do not exist yet are skipped: the grader makes them, with search permission."""
    for path in paths:
        path = Path(path).resolve()
        for folder in [*reversed(path.parents), path]:
            try:
                mode = folder.stat().st_mode
            except OSError:
                break
            if stat.S_ISDIR(mode) and not mode & stat.S_IXOTH:
                return folder
    return None


def sandbox_user(writable: Sequence[Path]) -> int:
    """The uid a sandbox runs as (when the grader is root): the owner of its first writable folder,
    which make_writable_for_sandbox gave to a fresh sandbox user; `nobody` when it has none."""
    for p in writable:
        owner = p.stat().st_uid
        if owner >= SANDBOX_UID_BASE:
            return owner
    return NOBODY


def make_writable_for_sandbox(*paths: Path) -> None:
    """When the grader is root, hand one sandbox's folders to a sandbox user of its own."""
    if os.geteuid() == 0:
        uid = SANDBOX_UID_BASE + (os.getpid() % (1 << 20)) * 1024 + next(_sandbox_numbers) % 1024
        for path in paths:
            os.chown(path, uid, uid)
