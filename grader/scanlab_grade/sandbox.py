"""The sandbox every build and run of a submission goes through.

A submission is a stranger's code. Its build and its runner run under bubblewrap (Debian's
`bubblewrap`): new user, PID, network, IPC and UTS namespaces (no network; when the sandbox's
first process ends, the kernel ends every process left in it, `setsid` daemons included), the
system's /usr read-only, an empty /etc but for what the compilers need, of the checkout only the
folders the build reads (read-only; never solutions/ or tests/ beyond the chapter's runner), a
private /tmp, and one writable scratch folder outside the checkout. `prlimit` bounds CPU time,
address space, processes and file size. As root, the sandbox also runs as a user of its own: the
owner of its scratch folder, a uid that no account and no other sandbox has (RLIMIT_NPROC counts
every process of a uid, so with one shared user a submission that forks up to the limit would make
another student's runner, graded beside it, fail to start). The idea is that of the judges'
sandboxes (DOMjudge's runguard, CMS's isolate): what runs inside cannot reach the grader's files,
the reports, the network or the machine beyond its limits.

As root, bubblewrap makes the mounts while it is still root (no user namespace: one maps a single
uid, and the sandbox needs its own), so the checkout may lie under folders only root may enter
(/root, a `mktemp -d` folder); then `setpriv`, the sandbox's first command, becomes the sandbox's
user and drops every capability before the submission's command starts. Where root may not make
namespaces itself (a container without CAP_SYS_ADMIN), the sandbox is the one an ordinary user
gets: `setpriv` first, then bubblewrap in a user namespace, which binds the checkout as the
sandbox's user, who must then be able to pass through every folder on the way to it.

Without a sandbox, nothing is graded (require): the instructor decides, with --no-sandbox.
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
    # bubblewrap run by root makes a missing parent of a bind 0700: the folders it would make for
    # these binds are made first, passable by the sandbox's user.
    args = ["--dir", "/etc", "--dir", "/var", "--ro-bind", "/usr", "/usr"]
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
    # As root: bubblewrap mounts as root and setpriv drops to the sandbox's user inside (False: an
    # unprivileged bubblewrap in a user namespace, as an ordinary user, or as root without
    # CAP_SYS_ADMIN after setpriv dropped to the sandbox's user first).
    privileged: bool = False

    def wrap(self, argv: Sequence[str], *, read_only: Sequence[Path], writable: Sequence[Path],
             chdir: Path, env: Dict[str, str], limits: Limits) -> List[str]:
        """The command that runs argv in the sandbox: `read_only` and `writable` paths appear at
        their own absolute paths, nothing else of the file system does (but the system)."""
        if not self.enabled:
            return list(argv)
        cmd = ["prlimit", f"--cpu={limits.cpu_seconds}", f"--nproc={limits.processes}",
               f"--fsize={limits.file_size}", "--core=0"]
        # No address-space limit on the GPU: the CUDA driver reserves more virtual memory than any
        # limit that leaves it working (nvcc -arch=native starts it too, to ask which GPU).
        if limits.address_space is not None and not self.gpu:
            cmd.append(f"--as={limits.address_space}")
        cmd.append("--")
        uid = sandbox_user(writable)
        inside: List[str] = []
        if self.privileged:
            # bubblewrap run by root keeps every capability unless told: keep only those setpriv
            # needs to change user and empty the bounding set, which it then drops with the rest.
            cmd += ["bwrap", "--unshare-ipc", "--unshare-pid", "--unshare-net", "--unshare-uts",
                    "--unshare-cgroup-try", "--cap-drop", "ALL", "--cap-add", "CAP_SETUID",
                    "--cap-add", "CAP_SETGID", "--cap-add", "CAP_SETPCAP"]
            inside = [_setpriv(), f"--reuid={uid}", f"--regid={uid}", "--clear-groups", "--inh-caps=-all",
                      "--bounding-set=-all", "--no-new-privs", "--"]
        else:
            if os.geteuid() == 0:
                cmd += ["setpriv", f"--reuid={uid}", f"--regid={uid}", "--clear-groups", "--"]
            cmd += ["bwrap", "--unshare-all", "--uid", str(NOBODY), "--gid", str(NOBODY)]
        cmd += ["--die-with-parent", "--new-session", "--hostname", "sandbox"]
        cmd += _system_binds()
        # /tmp, /var/tmp and /dev/shm (Open MPI's ranks share memory there): the sandbox's user
        # writes there whichever uid it is.
        cmd += ["--proc", "/proc", "--dev", "/dev", "--perms", "1777", "--tmpfs", "/dev/shm",
                "--perms", "1777", "--tmpfs", "/tmp", "--perms", "1777", "--dir", "/var/tmp"]
        if self.gpu:
            cmd += _gpu_binds()
        # The folders on the way to the binds, made passable (bubblewrap makes missing ones 0700,
        # as root's: the sandbox's user could not pass /root on the way to the checkout).
        for folder in _folders_on_the_way([*read_only, *writable]):
            cmd += ["--dir", str(folder)]
        for p in read_only:
            cmd += ["--ro-bind", str(p), str(p)]
        for p in writable:
            cmd += ["--bind", str(p), str(p)]
        cmd += ["--chdir", str(chdir), "--clearenv"]
        for k, v in sorted(env.items()):
            cmd += ["--setenv", k, v]
        cmd += ["--", *inside, *argv]
        return cmd


def _folders_on_the_way(paths: Sequence[Path]) -> List[Path]:
    """Every folder above one of `paths` (absolute) but /, each once, parents first."""
    folders: List[Path] = []
    for path in paths:
        for folder in reversed(Path(path).parents[:-1]):
            if folder not in folders:
                folders.append(folder)
    return folders


def _setpriv() -> str:
    """setpriv's path inside the sandbox (the system's folders are bound where they are)."""
    found = shutil.which("setpriv")
    return os.path.realpath(found) if found else "/usr/bin/setpriv"


# ------------------------------------------------------------------------------------------------
# Whether this machine can make a sandbox, and what to tell the instructor when it cannot

EXIT_NO_SANDBOX = 4  # lab grade's exit status when it refuses to grade without a sandbox

USERNS_SYSCTLS = [  # (sysctl, the value that refuses, the value that allows, where it matters)
    ("kernel.unprivileged_userns_clone", "0", "1", "Debian's kernels"),
    ("user.max_user_namespaces", "0", "15000", "every kernel"),
    ("kernel.apparmor_restrict_unprivileged_userns", "1", "0",
     "Ubuntu 23.10 and later, 24.04 included; or an AppArmor profile for bwrap that allows userns"),
]


class Refused(Exception):
    """No sandbox can be made here (and --no-sandbox was not given): nothing may be graded. The
    message says why and how to get one; exit_code is lab grade's exit status."""

    def __init__(self, message: str, exit_code: int = EXIT_NO_SANDBOX):
        super().__init__(message)
        self.exit_code = exit_code


def _sysctl(name: str) -> Optional[str]:
    try:
        return (Path("/proc/sys") / name.replace(".", "/")).read_text().strip()
    except OSError:
        return None


def _try(box: Sandbox) -> Optional[str]:
    """None when a command runs in this sandbox, else what bubblewrap said."""
    argv = box.wrap(["/usr/bin/true"], read_only=[], writable=[], chdir=Path("/"),
                    env={"PATH": "/usr/bin:/bin"}, limits=Limits())
    try:
        p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           stdin=subprocess.DEVNULL, timeout=30)
    except (OSError, subprocess.TimeoutExpired) as e:
        return f"bubblewrap could not start: {e}"
    if p.returncode == 0:
        return None
    lines = p.stdout.decode(errors="replace").strip().splitlines()
    return lines[-1] if lines else f"bubblewrap exited with status {p.returncode} and said nothing"


def probe(gpu: bool = False) -> Sandbox:
    """A sandbox if this machine can make one (bubblewrap installed, namespaces allowed), else a
    disabled one whose `reason` says why (require() turns it into advice)."""
    root = os.geteuid() == 0
    for tool, package in (("bwrap", "bubblewrap"), ("prlimit", "util-linux"), ("setpriv", "util-linux")):
        if shutil.which(tool) is None and (tool != "setpriv" or root):
            return Sandbox(False, f"{tool} is not installed (Debian package {package})")
    tried = []
    # As root, the privileged sandbox first (it reaches a checkout anywhere), then the other.
    for privileged in ([True, False] if root else [False]):
        box = Sandbox(True, "", gpu, privileged)
        failure = _try(box)
        if failure is None:
            return box
        tried.append(failure)
    return Sandbox(False, "bubblewrap cannot create the sandbox's namespaces here ("
                   + "; then, in a user namespace: ".join(tried) + ")")


def _advice(box: Sandbox) -> str:
    """How to get a sandbox on this machine, for the reason `box` is off."""
    for tool, package in (("bwrap", "bubblewrap"), ("prlimit", "util-linux"), ("setpriv", "util-linux")):
        if box.reason.startswith(f"{tool} is not installed"):
            return (f"Install the package {package} (Debian, Ubuntu: `apt-get install {package}`; Fedora: "
                    f"`dnf install {package}`); ./lab installs it when it runs as root or with sudo.")
    lines = []
    if os.geteuid() == 0:
        lines += ["As root, bubblewrap makes the sandbox itself when root holds CAP_SYS_ADMIN, as on a "
                  "machine of your own; a container needs it given (docker, podman: `--cap-add SYS_ADMIN "
                  "--security-opt seccomp=unconfined`, or `--privileged` as a last resort). Without it, "
                  "the sandbox needs user namespaces, which are refused here too."]
    lines += ["bubblewrap needs unprivileged user namespaces, which this machine refuses. An "
              "administrator can allow them:"]
    for name, refusing, allowing, where in USERNS_SYSCTLS:
        value = _sysctl(name)
        here = "not on this kernel" if value is None else value + (", refusing" if value == refusing else "")
        lines.append(f"  sysctl -w {name}={allowing}".ljust(62) + f"({where}; here: {here})")
    lines += ["In a container, they are allowed by starting it with `--security-opt seccomp=unconfined` "
              "(docker, podman; on Ubuntu hosts add `--security-opt apparmor=unconfined`), or with "
              "`--privileged` as a last resort."]
    if os.geteuid() != 0:
        lines.append("Or grade as root, whose sandbox needs no user namespace.")
    return "\n".join(lines)


def require(no_sandbox: bool, gpu: bool = False, reach: Sequence[Path] = ()) -> Sandbox:
    """The sandbox every student's build and run goes through, decided once, before anything of a
    student is compiled; every way of grading (one folder, a class, a platform, a Slurm task)
    calls this. --no-sandbox (no_sandbox) is the only way to grade without one, and the reports
    then say so. Raises Refused when this machine cannot make one. `reach`: the folders the
    sandbox binds from (the checkout, the grader's build, the scratch folder's parent), which the
    unprivileged sandbox of root must be able to pass through."""
    if no_sandbox:
        return Sandbox(False, "--no-sandbox")
    box = probe(gpu)
    if not box.enabled:
        raise Refused(f"no sandbox: {box.reason}.\nStudents' code is built and run only in a "
                      "sandbox; nothing was graded.\n" + _advice(box)
                      + "\nTo grade without it anyway (the code then runs as you, with your files and "
                      "the network in reach; every report says `sandbox: off`), pass --no-sandbox.")
    if os.geteuid() == 0 and not box.privileged:
        closed = first_closed_folder(reach)
        if closed is not None:
            raise Refused(
                f"the sandbox cannot reach {closed}: root may not make namespaces itself here (no "
                "CAP_SYS_ADMIN), so each submission's user binds the checkout, and that user may not "
                f"pass through this folder (its mode is {closed.stat().st_mode & 0o777:04o}). Allow it "
                f"with `chmod o+x {closed}`, grade from folders that others may pass through, or give "
                "the container CAP_SYS_ADMIN (`--cap-add SYS_ADMIN`).")
    return box


def first_closed_folder(paths: Sequence[Path]) -> Optional[Path]:
    """For root's unprivileged sandbox (require): the first folder on the way to one of `paths`
    that other users may not pass through (no search permission for others, e.g. a folder made by
    `mktemp -d`), or None. Folders that do not exist yet are skipped: the grader makes them, with
    search permission."""
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
