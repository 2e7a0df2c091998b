"""What the platforms share: the assignment's settings (autograder.json in the lab's copy the
platform runs), the lab's files that copy holds, and grading one upload into the result model.

On a platform, run() reads the upload (scanlab_grade.submission), runs `lab grade --report json` on
what it found as a program of its own, reads the report back into the model and writes the
platform's results file. A submission that cannot be read, a grader that fails or stops, a time
limit: each still ends in a results file with a score of 0 and a sentence that says why.
"""

import dataclasses
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import traceback
from pathlib import Path
from typing import Callable, Dict, List, Optional

from scanlab_grade import report as reporting
from scanlab_grade.chapters import Chapter, chapter_list, select_chapters
from scanlab_grade.submission import collect

REPO = Path(__file__).resolve().parents[3]
SETTINGS_FILE = "autograder.json"
DEFAULT_TIME_LIMIT = 540     # seconds: under the 10 minutes both platforms allow by default
GRADER_FAULT = ("The autograder could not grade this submission: the fault is the grader's, not your "
                "work's. Your instructor can see why in the autograder's log; submit again later or ask them.")


def say(msg: str) -> None:
    print(f"scanlab autograder: {msg}", file=sys.stderr, flush=True)


@dataclasses.dataclass
class Settings:
    """An assignment: what `./lab autograder PLATFORM` was asked for, kept in the lab's copy."""
    platform: str
    chapters: List[str]                       # chapter ids, e.g. ["00_sequential"]
    orders: str = "default,reverse"
    timeout: float = 60.0                      # per test case
    time_limit: int = DEFAULT_TIME_LIMIT      # the whole grade
    sandbox: bool = True

    def to_json(self) -> str:
        return json.dumps(dataclasses.asdict(self), indent=2) + "\n"

    @staticmethod
    def read(repo: Path, platform: str) -> "Settings":
        """SCANLAB_AUTOGRADER_SETTINGS, else autograder.json in the lab's copy, else all chapters."""
        path = Path(os.environ.get("SCANLAB_AUTOGRADER_SETTINGS") or repo / SETTINGS_FILE)
        if not path.is_file():  # a checkout, not a platform's copy: every chapter
            return Settings(platform, [c.id for c in chapter_list(repo)])
        data = json.loads(path.read_text())
        return Settings(**{k: data[k] for k in data if k in {f.name for f in dataclasses.fields(Settings)}})


def lab_files(repo: Path) -> List[str]:
    """The lab's files, as a platform's copy holds them: what git tracks and what it would track
    (new files not yet added), never the build folders; every file under the checkout without git."""
    if (repo / ".git").exists() and shutil.which("git"):
        p = subprocess.run(["git", "-C", str(repo), "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                           stdout=subprocess.PIPE, check=True)
        names = sorted({n for n in p.stdout.decode(errors="surrogateescape").split("\0") if n})
        return [n for n in names if (repo / n).is_file() and not (repo / n).is_symlink()]
    found = []
    for dirpath, dirnames, filenames in os.walk(repo):
        rel = Path(dirpath).relative_to(repo)
        dirnames[:] = sorted(d for d in dirnames if not (rel == Path(".") and d in ("build", ".git", ".grade")))
        found += [str(rel / f) for f in sorted(filenames) if (Path(dirpath) / f).is_file()]
    return found


def fill(template: Path, values: Dict[str, str]) -> str:
    text = template.read_text()
    for key, value in values.items():
        text = text.replace(f"@{key}@", value)
    return text


def chapters_for(spec: Optional[str]) -> List[Chapter]:
    """--chapters as `lab grade` reads it (all chapters when not given)."""
    return select_chapters(chapter_list(REPO), spec)


# ------------------------------------------------------------------------------------------------
# On the platform


@dataclasses.dataclass
class Platform:
    name: str
    default_root: str
    upload: str                                   # the student's files, under the root
    render: Callable[[reporting.Grade, float], dict]


PLATFORMS = {
    "gradescope": Platform("gradescope", "/autograder", "submission",
                           lambda g, seconds: reporting.report_gradescope(g, seconds)),
    "prairielearn": Platform("prairielearn", "/grade", "student",
                             lambda g, seconds: reporting.report_prairielearn(g)),
}


class GraderFailed(Exception):
    pass


def _missing_words(chapter: Chapter) -> str:
    return f"{' and '.join(chapter.files)} {'was' if len(chapter.files) == 1 else 'were'} not in the submission"


def grade_upload(upload: Path, settings: Settings, build_dir: Optional[str], scratch_parent: Path) -> reporting.Grade:
    """The grade of one upload, by `lab grade` in a program of its own."""
    chapters = select_chapters(chapter_list(REPO), ",".join(settings.chapters))
    scratch = Path(tempfile.mkdtemp(prefix="scanlab-upload-", dir=scratch_parent))
    try:
        scratch.chmod(0o711)  # as root, the grader's sandbox user passes through to its own folder
        student = scratch / "submission"
        got = collect(upload, chapters, student)
        for n in got.notes:
            say(n)
        if got.problem:
            g = reporting.not_graded(REPO, chapters, "submission", got.problem, status="missing")
            g.notes += got.notes
            return g
        report = scratch / "report.json"
        cmd = [str(REPO / "lab"), "grade", "--exercises", str(student), "--chapters",
               ",".join(c.nn for c in chapters), "--report", "json", "--out", str(report),
               "--scratch", str(scratch), "--orders", settings.orders, "--timeout", f"{settings.timeout:g}"]
        if build_dir:
            cmd += ["--build-dir", build_dir]
        if not settings.sandbox:
            cmd.append("--no-sandbox")
        _run_grader(cmd, settings.time_limit)
        try:
            g = reporting.grade_from_json(json.loads(report.read_text()), chapter_list(REPO))
        except (OSError, ValueError, reporting.ReportError) as e:
            raise GraderFailed(f"the grader's report could not be read: {e}") from None
        reporting.relabel(g, lambda text: text.replace(str(student) + "/", ""))
        g.notes = got.notes + g.notes
        for c in g.chapters:  # what a student of a platform did: not hand the file in
            if c.status == "missing" and c.chapter not in got.chapters:
                c.compile_error = _missing_words(c.chapter)
                for t in c.tests:
                    t.message = "not graded: " + c.compile_error
        return g
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def _run_grader(cmd: List[str], time_limit: int) -> None:
    env = dict(os.environ, SCANLAB_NO_INSTALL="1")  # the image has every package; install nothing
    print("+ " + " ".join(cmd), flush=True)
    proc = subprocess.Popen(cmd, env=env, stdout=sys.stdout, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                            start_new_session=True)
    try:
        rc = proc.wait(timeout=time_limit)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        raise GraderFailed(f"grading took longer than the assignment's limit of {time_limit} s "
                           "and was stopped") from None
    if rc != 0:
        raise GraderFailed(f"`lab grade` ended with exit status {rc} (its messages are above)")


def prepare() -> int:
    """Once, where the platform builds its image: the lab's packages (lab's own install step) and
    the grader's build of the assignment's chapters (`lab grade --prepare`)."""
    settings = Settings.read(REPO, "")
    cmd = [str(REPO / "lab"), "grade", "--prepare", "--chapters", ",".join(c[:2] for c in settings.chapters)]
    if os.environ.get("SCANLAB_AUTOGRADER_BUILD_DIR"):
        cmd += ["--build-dir", os.environ["SCANLAB_AUTOGRADER_BUILD_DIR"]]
    print("+ " + " ".join(cmd), flush=True)
    rc = subprocess.run(cmd, stdin=subprocess.DEVNULL).returncode
    if rc == 0:
        say(f"ready to grade {', '.join(settings.chapters)}")
    return rc


def write_json(path: Path, data: dict) -> None:
    """Writes the file whole or not at all (a platform must never read half of one)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(data, indent=2) + "\n")
    os.replace(tmp, path)


def run(platform: str) -> int:
    """Grades the upload on the platform and writes its results file; 0 when that file is written."""
    p = PLATFORMS[platform]
    root = Path(os.environ.get("SCANLAB_AUTOGRADER_ROOT") or p.default_root)
    results = root / "results" / "results.json"
    t0 = time.monotonic()
    settings = Settings.read(REPO, platform)
    try:
        g = grade_upload(root / p.upload, settings, os.environ.get("SCANLAB_AUTOGRADER_BUILD_DIR"),
                         Path(tempfile.gettempdir()))
    except GraderFailed as e:
        say(f"error: {e}")
        g = reporting.not_graded(REPO, select_chapters(chapter_list(REPO), ",".join(settings.chapters)),
                                 "submission", GRADER_FAULT)
    except Exception:  # noqa: BLE001 - a fault of the grader must still give the student a result
        traceback.print_exc()
        g = reporting.not_graded(REPO, select_chapters(chapter_list(REPO), ",".join(settings.chapters)),
                                 "submission", GRADER_FAULT)
    write_json(results, p.render(g, time.monotonic() - t0))
    print(reporting.summary_text(g), flush=True)
    say(f"wrote {results}: {g.score} / {g.points}")
    return 0
