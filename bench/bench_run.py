"""A scanlab_bench run, read from the JSON that `scanlab_bench --json` writes (or, for runs kept
only as text, from the table it prints), for the plots (bench/plot.py). Standard library only.

load_run() checks what the plots need (the tool, the device and software, rows with an algorithm,
a type, a size, a status and a throughput) and raises RunError, with a sentence a reader can act
on, for anything else: a file that is not JSON, another tool's JSON (a tuning file), a run with no
rows or with no row that was measured.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from dataclasses import dataclass, field
from pathlib import Path

COPY_ROW = "copy"


class RunError(Exception):
    """A file that cannot be drawn as a scanlab_bench run; the message says why."""


@dataclass(frozen=True)
class Point:
    n: int
    gb_per_s: float
    median_ms: float
    ratio_to_cub: float | None


@dataclass
class Run:
    path: Path
    sha256: str
    gpu: str
    cuda: str
    cub: str
    commit: str | None  # the commit the bench was built from, when the run records it
    bytes_counted: str
    ratio_tolerance: float  # how far a recorded ratio may be from the times' (the table rounds both)
    types: list[str] = field(default_factory=list)  # in the run's order
    algorithms: list[str] = field(default_factory=list)  # in the run's order
    series: dict[tuple[str, str], list[Point]] = field(default_factory=dict)  # (algorithm, type)
    not_measured: dict[tuple[str, str], list[str]] = field(default_factory=dict)  # status per size

    def rows_of(self, type_: str) -> list[str]:
        """The algorithms with at least one measured point for this type, in the run's order."""
        return [a for a in self.algorithms if (a, type_) in self.series]

    def baseline_of(self, algorithm: str, type_: str) -> str | None:
        """The CUB row this row was compared with. The JSON does not name it, but it records each
        row's ratio to it (its time over the row's, at the same type and size): the baseline is
        the CUB row whose times give those ratios."""
        mine = {p.n: p for p in self.series.get((algorithm, type_), [])}
        ratios = {n: p.ratio_to_cub for n, p in mine.items() if p.ratio_to_cub}
        if not ratios or is_cub(algorithm):
            return None
        found = []
        for other in self.rows_of(type_):
            if not is_cub(other):
                continue
            theirs = {p.n: p.median_ms for p in self.series[(other, type_)]}
            shared = [n for n in ratios if n in theirs]
            if shared and all(math.isclose(theirs[n] / mine[n].median_ms, ratios[n], rel_tol=self.ratio_tolerance)
                                    for n in shared):
                found.append(other)
        return found[0] if len(found) == 1 else None


TABLE_TITLE = "scanlab_bench: prefix scan throughput on the GPU"
_TABLE_ROW = re.compile(r"^(?P<algorithm>\S+)\s+(?P<type>\S+)\s+(?P<n>2\^\d+|\d+)\s+(?P<median>[0-9.]+)\s+[0-9.]+\s+"
                        r"[0-9.]+\s+[0-9.]+\s+(?P<gbps>[0-9.]+)\s+(?P<copy>[0-9.]+|-)\s+(?P<cub>[0-9.]+|-)\s+(?P<check>\S+)")
_TABLE_NOT_TIMED = re.compile(r"^(?P<algorithm>\S+)\s+(?P<type>\S+)\s+(?P<n>2\^\d+|\d+)\s+(?P<status>skipped|FAILED):")


def table_document(path: Path, text: str) -> dict:
    """The JSON document of a run kept only as scanlab_bench's printed table (the runs before
    --json was used): its device and software lines and its rows, at the table's precision."""
    lines = text.splitlines()
    device = next((ln.split(":", 1)[1].strip() for ln in lines if ln.startswith("device  :")), "")
    software = next((ln.split(":", 1)[1].strip() for ln in lines if ln.startswith("software:")), "")
    cuda = re.search(r"CUDA runtime ([0-9.]+)", software)
    cub = re.search(r"CUB ([0-9.]+)", software)
    rows = []
    for ln in lines:
        m = _TABLE_ROW.match(ln) or _TABLE_NOT_TIMED.match(ln)
        if m is None or m["algorithm"] == "algorithm":
            continue
        k = m["n"]
        n = 2 ** int(k[2:]) if k.startswith("2^") else int(k)
        row = {"algorithm": m["algorithm"], "type": m["type"], "n": n}
        if "gbps" in m.groupdict():
            row.update(status="ok" if m["check"] == "ok" else "failed", median_ms=float(m["median"]),
                       gb_per_s=float(m["gbps"]), ratio_to_cub=None if m["cub"] == "-" else float(m["cub"]))
        else:
            row["status"] = "skipped" if m["status"] == "skipped" else "failed"
        rows.append(row)
    return {"tool": "scanlab_bench", "device": {"name": device.split(",")[0] or "unknown GPU"},
            "software": {"cuda_runtime": cuda[1] if cuda else "?", "cub": cub[1] if cub else "?"}, "rows": rows}


def is_cub(algorithm: str) -> bool:
    return algorithm == "cub" or algorithm.startswith("cub_")


def _number(row: dict, key: str, where: str) -> float | None:
    value = row.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise RunError(f"{where}: '{key}' is {value!r}, not a number")
    return float(value)


def load_run(path: str | Path) -> Run:
    path = Path(path)
    try:
        raw = path.read_bytes()
    except OSError as e:
        raise RunError(f"{path}: cannot read it ({e.strerror or e})") from None
    if not raw.strip():
        raise RunError(f"{path}: the file is empty (a run that stopped before writing its JSON?)")
    if raw.startswith(TABLE_TITLE.encode()):
        return run_of(path, raw, table_document(path, raw.decode("utf-8", "replace")), ratio_tolerance=0.03)
    try:
        doc = json.loads(raw)
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise RunError(f"{path}: not valid JSON ({e})") from None
    return run_of(path, raw, doc)


def run_of(path: Path, raw: bytes, doc, ratio_tolerance: float = 1e-6) -> Run:
    if not isinstance(doc, dict) or doc.get("tool") != "scanlab_bench":
        if isinstance(doc, dict) and "scanlab_tuning" in doc:
            what = "a tuning file (scanlab_tuning, written by ./lab tune), which holds no speeds per size"
        else:
            what = 'it has no "tool": "scanlab_bench"'
        raise RunError(f"{path}: not a run of scanlab_bench --json: {what}")
    device, software = doc.get("device"), doc.get("software")
    if not isinstance(device, dict) or not isinstance(software, dict):
        raise RunError(f"{path}: the run has no 'device' or 'software' section")
    rows = doc.get("rows")
    if not isinstance(rows, list):
        raise RunError(f"{path}: the run has no list of 'rows'")
    if not rows:
        raise RunError(f"{path}: the run has no rows (nothing was measured)")
    run = Run(
        path=path,
        sha256=hashlib.sha256(raw).hexdigest(),
        gpu=str(device.get("name") or "unknown GPU"),
        cuda=str(software.get("cuda_runtime") or "?"),
        cub=str(software.get("cub") or "?"),
        commit=doc.get("commit") if isinstance(doc.get("commit"), str) else None,
        bytes_counted=str((doc.get("config") or {}).get("bytes_counted") or "(n read + elements written)*sizeof(T)"),
        ratio_tolerance=ratio_tolerance,
    )
    for i, row in enumerate(rows):
        where = f"{path}: row {i}"
        if not isinstance(row, dict):
            raise RunError(f"{where} is not an object")
        algorithm, type_, n, status = row.get("algorithm"), row.get("type"), row.get("n"), row.get("status")
        if not isinstance(algorithm, str) or not algorithm or not isinstance(type_, str) or not type_:
            raise RunError(f"{where} has no 'algorithm' or 'type'")
        if isinstance(n, bool) or not isinstance(n, int) or n < 1:
            raise RunError(f"{where} ({algorithm}, {type_}): 'n' is {n!r}, not a size")
        where = f"{path}: row {i} ({algorithm}, {type_}, n={n})"
        if algorithm not in run.algorithms:
            run.algorithms.append(algorithm)
        if type_ not in run.types:
            run.types.append(type_)
        gbps, median = _number(row, "gb_per_s", where), _number(row, "median_ms", where)
        if status != "ok" or gbps is None or median is None or median <= 0:
            run.not_measured.setdefault((algorithm, type_), []).append(str(status))
            continue
        point = Point(n=n, gb_per_s=gbps, median_ms=median, ratio_to_cub=_number(row, "ratio_to_cub", where))
        run.series.setdefault((algorithm, type_), []).append(point)
    if not run.series:
        raise RunError(f"{path}: no row of the run was measured (every row failed or was skipped)")
    for points in run.series.values():
        points.sort(key=lambda p: p.n)
    return run
