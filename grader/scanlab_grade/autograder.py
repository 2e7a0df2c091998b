"""`lab autograder`: the lab as the grader of Gradescope, PrairieLearn and GitHub Classroom.

    lab autograder gradescope [--chapters LIST] [--out autograder.zip] [settings]
    lab autograder prairielearn [--chapters LIST] [--out DIR] [--image NAME] [settings]
    lab autograder classroom [--chapters LIST] [--out FILE] [--check]
    lab autograder summary FOLDER [--chapters LIST]     (GitHub Classroom: the job summary)
    lab autograder full-marks REPORT.json               (GitHub Classroom: a chapter's pass/fail)
    lab autograder prepare                              (on the platform: build the grader once)
    lab autograder run gradescope|prairielearn          (on the platform: grade the upload)
"""

import argparse
import json
import sys
from pathlib import Path
from typing import List, Optional

from scanlab_grade import report as reporting
from scanlab_grade.chapters import ManifestError, chapter_list
from scanlab_grade.platforms import classroom, common, gradescope, prairielearn


def say(msg: str) -> None:
    print(f"lab autograder: {msg}", file=sys.stderr, flush=True)


class UsageError(Exception):
    pass


def _settings(a: argparse.Namespace, platform: str) -> common.Settings:
    chapters = common.chapters_for(a.chapters)
    if not chapters:
        raise UsageError("--chapters: no chapter to grade")
    if not 1 <= a.time_limit <= 3600:
        raise UsageError(f"--time-limit: give 1 to 3600 seconds, not {a.time_limit}")
    return common.Settings(platform, [c.id for c in chapters], orders=a.orders, timeout=a.timeout,
                           time_limit=a.time_limit, sandbox=not a.no_sandbox)


def _add_settings(p: argparse.ArgumentParser) -> None:
    p.add_argument("--chapters", metavar="LIST", help="the chapters the assignment grades, e.g. 00,01 (default: all)")
    p.add_argument("--orders", default="default,reverse", help="emulator orders, as `lab grade --orders`")
    p.add_argument("--timeout", type=float, default=60.0, metavar="SECONDS", help="time limit per test case")
    p.add_argument("--time-limit", type=int, default=common.DEFAULT_TIME_LIMIT, metavar="SECONDS",
                   help=f"time limit for grading one submission (default: {common.DEFAULT_TIME_LIMIT}); set the "
                        "platform's own limit a minute above it")
    p.add_argument("--no-sandbox", action="store_true",
                   help="grade without the sandbox where the platform's container cannot make one (a "
                        "submission could then write the results file itself: use only with trusted students)")


def parse(argv: List[str]) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="lab autograder", description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="what", required=True)
    gs = sub.add_parser("gradescope", help="make the autograder zip to upload to Gradescope")
    _add_settings(gs)
    gs.add_argument("--out", default="autograder.zip", metavar="FILE")
    pl = sub.add_parser("prairielearn", help="write the external grader's image folder for PrairieLearn")
    _add_settings(pl)
    pl.add_argument("--out", default="prairielearn-grader", metavar="DIR")
    pl.add_argument("--image", default="YOURNAME/scanlab-grader", help="the image's name in info.json.example")
    cl = sub.add_parser("classroom", help="write GitHub Classroom's workflow for the student repository")
    cl.add_argument("--chapters", metavar="LIST")
    cl.add_argument("--out", metavar="FILE", help="default: print it")
    cl.add_argument("--check", action="store_true", help="fail when FILE is not what would be written")
    sm = sub.add_parser("summary", help="the Markdown job summary of a folder of JSON reports")
    sm.add_argument("folder")
    sm.add_argument("--chapters", metavar="LIST", help="the chapters that should have a report")
    fm = sub.add_parser("full-marks", help="exit 0 when a JSON report has every point, else 1")
    fm.add_argument("report")
    sub.add_parser("prepare", help="on the platform: install the packages and build the assignment's grader")
    rn = sub.add_parser("run", help="on the platform: grade the upload and write results.json")
    rn.add_argument("platform", choices=sorted(common.PLATFORMS))
    return p.parse_args(argv)


def _load(path: Path) -> reporting.Grade:
    try:
        return reporting.grade_from_json(json.loads(path.read_text()), chapter_list(common.REPO))
    except (OSError, ValueError, reporting.ReportError) as e:
        raise UsageError(f"{path}: {e}") from None


def summary(folder: Path, spec: Optional[str]) -> str:
    grades = [_load(p) for p in sorted(folder.glob("*.json"))] if folder.is_dir() else []
    graded = {c.chapter.id for g in grades for c in g.chapters}
    lost = [c for c in common.chapters_for(spec) if c.id not in graded] if spec else []
    if lost:
        grades.append(reporting.not_graded(
            common.REPO, lost, str(folder), "no report: the grading step of "
            + ", ".join(c.id for c in lost) + " stopped before writing one (its log in the workflow run says why)"))
    if not grades:
        return "## scanlab grade\n\nNo chapter was graded: the grading steps did not write a report.\n"
    return reporting.report_markdown(grades)


def main(argv: Optional[List[str]] = None) -> int:
    a = parse(sys.argv[1:] if argv is None else argv)
    try:
        if a.what == "run":
            return common.run(a.platform)
        if a.what == "prepare":
            return common.prepare()
        if a.what == "gradescope":
            out = Path(a.out)
            if out.is_dir():
                raise UsageError(f"--out: {out} is a folder; name the zip file")
            n = gradescope.make_zip(out, _settings(a, "gradescope"))
            say(f"wrote {out} (setup.sh, run_autograder and {n} files of the lab): upload it on Gradescope's "
                "Configure Autograder page, with the Ubuntu 24.04 base image")
            return 0
        if a.what == "prairielearn":
            out = Path(a.out)
            if out.exists() and not (out / "Dockerfile").is_file():
                raise UsageError(f"--out: {out} exists and is not a folder this command wrote; name a new folder")
            n = prairielearn.make_folder(out, _settings(a, "prairielearn"), a.image)
            say(f"wrote {out}/ (Dockerfile, grade, info.json.example and {n} files of the lab in scanlab/): "
                f"build and push the image (docker build -t {a.image} {out}), then use info.json.example")
            return 0
        if a.what == "classroom":
            text = classroom.workflow(common.chapters_for(a.chapters))
            if a.check:
                if not a.out or not Path(a.out).is_file() or Path(a.out).read_text() != text:
                    say(f"{a.out} is not what `./lab autograder classroom --out {a.out}` writes now "
                        "(a chapter's points or the workflow changed): write it again")
                    return 1
                return 0
            if a.out:
                Path(a.out).parent.mkdir(parents=True, exist_ok=True)
                Path(a.out).write_text(text)
                say(f"wrote {a.out}")
            else:
                sys.stdout.write(text)
            return 0
        if a.what == "summary":
            sys.stdout.write(summary(Path(a.folder), a.chapters))
            return 0
        if a.what == "full-marks":
            g = _load(Path(a.report))
            ok = classroom.full_marks(g)
            say(f"{a.report}: {g.score} / {g.points}" + ("" if ok else " (not every point: this test fails)"))
            return 0 if ok else 1
    except (UsageError, ValueError, ManifestError) as e:
        say(str(e))
        return 2
    return 2


if __name__ == "__main__":
    sys.exit(main())
