"""Gradescope: the autograder zip an instructor uploads (its autograder specification: setup.sh and
run_autograder at the zip's root; Gradescope unpacks the zip into /autograder/source, runs setup.sh
once as root to build the image and run_autograder once per submission)."""

import stat
import zipfile
from pathlib import Path

from scanlab_grade.platforms.common import REPO, SETTINGS_FILE, Settings, fill, lab_files

TEMPLATES = REPO / "grader" / "platforms"
COPY = "scanlab"   # the lab's folder in the zip, so /autograder/source/scanlab on Gradescope


def _add(z: zipfile.ZipFile, name: str, data: bytes, executable: bool) -> None:
    info = zipfile.ZipInfo(name, date_time=(2020, 1, 1, 0, 0, 0))  # the same zip for the same files
    info.external_attr = ((0o755 if executable else 0o644) | stat.S_IFREG) << 16
    info.compress_type = zipfile.ZIP_DEFLATED
    z.writestr(info, data)


def make_zip(out: Path, settings: Settings) -> int:
    """Writes autograder.zip; returns how many of the lab's files it holds."""
    files = lab_files(REPO)
    tmp = out.with_name(out.name + ".tmp")
    with zipfile.ZipFile(tmp, "w") as z:
        _add(z, "setup.sh", (TEMPLATES / "setup.sh").read_bytes(), True)
        _add(z, "run_autograder", fill(TEMPLATES / "run_autograder", {"PLATFORM": "gradescope"}).encode(), True)
        for name in files:
            path = REPO / name
            _add(z, f"{COPY}/{name}", path.read_bytes(), bool(path.stat().st_mode & 0o111))
        _add(z, f"{COPY}/{SETTINGS_FILE}", settings.to_json().encode(), False)
    tmp.replace(out)
    return len(files)

