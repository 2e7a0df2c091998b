"""PrairieLearn: the external grader's files (its external grading documentation: an image, an
entrypoint that reads /grade/student and writes /grade/results/results.json). `./lab autograder
prairielearn --out DIR` writes DIR/Dockerfile (a Debian base with the lab's packages, the grader
built into it), DIR/grade (the entrypoint), DIR/scanlab (the lab) and DIR/info.json.example (the
externalGradingOptions of a question)."""

import json
import shutil
import subprocess
from pathlib import Path
from typing import List

from scanlab_grade.platforms.common import REPO, SETTINGS_FILE, Settings, fill, lab_files

TEMPLATES = REPO / "grader" / "platforms"
GROUPS = ("core", "emu")   # of `./lab packages`: what grading on the emulator needs


def lab_packages() -> List[str]:
    """The Debian packages the grader's image needs, from the lab's one list (`./lab packages`)."""
    p = subprocess.run(["bash", str(REPO / "lab"), "packages"], stdout=subprocess.PIPE, text=True, check=True)
    return [line.split()[1] for line in p.stdout.splitlines() if line.split()[0] in GROUPS]


def make_folder(out: Path, settings: Settings, image: str) -> int:
    """Writes the external grader's folder; returns how many of the lab's files it holds."""
    if out.exists():
        shutil.rmtree(out)
    copy = out / "scanlab"
    files = lab_files(REPO)
    for name in files:
        dest = copy / name
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(REPO / name, dest)
    (copy / SETTINGS_FILE).write_text(settings.to_json())
    (out / "Dockerfile").write_text(fill(TEMPLATES / "Dockerfile.prairielearn", {
        "PACKAGES": " ".join(lab_packages()), "CHAPTERS": ",".join(c[:2] for c in settings.chapters)}))
    grade = out / "grade"
    grade.write_text(fill(TEMPLATES / "run_autograder", {"PLATFORM": "prairielearn"}))
    grade.chmod(0o755)
    options = {"externalGradingOptions": {"enabled": True, "image": image, "entrypoint": "/opt/scanlab/grade",
                                          "timeout": min(600, settings.time_limit + 45)}}
    (out / "info.json.example").write_text(json.dumps(options, indent=2) + "\n")
    return len(files)
