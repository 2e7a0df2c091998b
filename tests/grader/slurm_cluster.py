"""A private one-node Slurm cluster for tests: munged, slurmctld and slurmd from Debian's packages,
started in a temporary folder with their own key, socket, ports, state, spool, logs and pid files,
and stopped afterwards (always: the caller uses it as a context manager).

No cgroups are needed (proctrack/linuxproc, task/none) and no accounting (no slurmdbd): jobs'
states come from the controller only, as on a cluster without accounting.

    with SlurmCluster(Path(tmp)) as cluster:
        subprocess.run(["sbatch", ...], env=cluster.env)
"""

import os
import shutil
import signal
import socket
import subprocess
import time
from pathlib import Path
from typing import Dict, List, Optional


class ClusterUnavailable(Exception):
    """The daemons are not installed or do not start here (the test then skips, saying why)."""


PROGRAMS = ["munged", "slurmctld", "slurmd", "sbatch", "squeue", "scontrol", "scancel", "sinfo"]


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _find(name: str) -> Optional[str]:
    return shutil.which(name) or next((str(p) for p in (Path("/usr/sbin") / name, Path("/sbin") / name)
                                       if p.is_file()), None)


class SlurmCluster:
    def __init__(self, root: Path, cpus: Optional[int] = None):
        self.root = root
        self.cpus = cpus or len(os.sched_getaffinity(0))
        self.node = socket.gethostname().split(".")[0]
        self.procs: List[subprocess.Popen] = []
        self.env: Dict[str, str] = {}

    def _log(self, name: str) -> str:
        p = self.root / "log" / name
        return p.read_text(errors="replace")[-3000:] if p.is_file() else "(no log)"

    def __enter__(self) -> "SlurmCluster":
        try:
            self._start()
        except BaseException:
            self.stop()
            raise
        return self

    def __exit__(self, *exc) -> None:
        self.stop()

    def _start(self) -> None:
        missing = [p for p in PROGRAMS if _find(p) is None]
        if missing:
            raise ClusterUnavailable(f"not installed: {', '.join(missing)} (Debian packages slurmctld "
                                     "slurmd munge slurm-client)")
        if os.geteuid() != 0:
            raise ClusterUnavailable("slurmd must run as root to start jobs")
        r = self.root
        for d in ("munge", "state", "spool", "log", "run"):
            (r / d).mkdir(parents=True, exist_ok=True)
        (r / "munge").chmod(0o700)
        key = r / "munge" / "munge.key"
        key.write_bytes(os.urandom(1024))
        key.chmod(0o400)
        sock = r / "munge" / "munge.socket"
        self._spawn([_find("munged"), "--foreground", "--force", f"--socket={sock}", f"--key-file={key}",
                     f"--pid-file={r / 'run' / 'munged.pid'}", f"--log-file={r / 'log' / 'munged.log'}",
                     f"--seed-file={r / 'munge' / 'munged.seed'}"], "munged.out")
        self._wait(lambda: sock.exists(), 10, "munged did not make its socket", "munged.log", "munged.out")

        ctld_port, d_port = _free_port(), _free_port()
        conf = r / "slurm.conf"
        conf.write_text("\n".join([
            "ClusterName=scanlabtest",
            f"SlurmctldHost={self.node}(127.0.0.1)",
            f"SlurmctldPort={ctld_port}",
            f"SlurmdPort={d_port}",
            "SlurmUser=root",
            "SlurmdUser=root",
            "AuthType=auth/munge",
            "CredType=cred/munge",
            f"AuthInfo=socket={sock}",
            f"StateSaveLocation={r / 'state'}",
            f"SlurmdSpoolDir={r / 'spool'}",
            f"SlurmctldPidFile={r / 'run' / 'slurmctld.pid'}",
            f"SlurmdPidFile={r / 'run' / 'slurmd.pid'}",
            f"SlurmctldLogFile={r / 'log' / 'slurmctld.log'}",
            f"SlurmdLogFile={r / 'log' / 'slurmd.log'}",
            "ProctrackType=proctrack/linuxproc",
            "TaskPlugin=task/none",
            "SelectType=select/cons_tres",
            "SelectTypeParameters=CR_CPU",
            "JobAcctGatherType=jobacct_gather/none",
            "AccountingStorageType=accounting_storage/none",
            "MpiDefault=none",
            "ReturnToService=2",
            "SchedulerType=sched/builtin",
            # Start queued jobs within a second or two (the default pass is once a minute).
            "SchedulerParameters=sched_interval=1",
            # Finished jobs stay known to the controller for 10 minutes: the only record of their
            # states on a cluster without accounting.
            "MinJobAge=600",
            "KillWait=2",
            "MailProg=/bin/true",
            "InactiveLimit=0",
            f"NodeName={self.node} NodeAddr=127.0.0.1 CPUs={self.cpus} State=UNKNOWN",
            f"PartitionName=test Nodes={self.node} Default=YES MaxTime=INFINITE State=UP",
            ""]))
        self.env = dict(os.environ, SLURM_CONF=str(conf))
        for k in list(self.env):
            if k.startswith("SLURM_") and k != "SLURM_CONF":
                del self.env[k]  # this test's cluster, not one the test itself may run under
        self._spawn([_find("slurmctld"), "-D", "-c", "-f", str(conf)], "slurmctld.out")
        self._spawn([_find("slurmd"), "-D", "-N", self.node, "-f", str(conf)], "slurmd.out")

        def node_idle() -> bool:
            p = subprocess.run(["sinfo", "-h", "-N", "-o", "%t"], env=self.env, stdout=subprocess.PIPE,
                               stderr=subprocess.DEVNULL, text=True)
            return p.returncode == 0 and p.stdout.strip() in ("idle", "mix")
        self._wait(node_idle, 30, "the node did not come up idle", "slurmctld.log", "slurmd.log")

    def _spawn(self, cmd: List[str], out: str) -> None:
        with open(self.root / "log" / out, "wb") as f:
            self.procs.append(subprocess.Popen(cmd, stdout=f, stderr=subprocess.STDOUT,
                                               stdin=subprocess.DEVNULL, start_new_session=True,
                                               env=dict(self.env or os.environ)))

    def _wait(self, ready, seconds: float, what: str, *logs: str) -> None:
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            if ready():
                return
            dead = [p for p in self.procs if p.poll() is not None]
            if dead:
                break
            time.sleep(0.2)
        shown = "\n".join(f"--- {name}:\n{self._log(name)}" for name in logs)
        raise ClusterUnavailable(f"{what}\n{shown}")

    def stop(self) -> None:
        """Cancels every job (their processes end with them), then stops the daemons, newest first."""
        if self.env and len(self.procs) == 3 and all(p.poll() is None for p in self.procs):
            subprocess.run(["scancel", "--full", "--user", str(os.getuid())], env=self.env,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            end = time.monotonic() + 15
            while time.monotonic() < end and subprocess.run(
                    ["squeue", "-h", "-t", "RUNNING,COMPLETING", "-o", "%i"], env=self.env, text=True,
                    stdout=subprocess.PIPE, stderr=subprocess.DEVNULL).stdout.strip():
                time.sleep(0.3)
        for p in reversed(self.procs):
            if p.poll() is None:
                p.send_signal(signal.SIGTERM)
                try:
                    p.wait(10)
                except subprocess.TimeoutExpired:
                    os.killpg(p.pid, signal.SIGKILL)
                    p.wait()
        self.procs = []
