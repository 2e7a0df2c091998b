"""GitHub Classroom: the workflow in a student's repository (.github/workflows/classroom.yml).

On each push it installs the lab and builds the grader (`./lab grade --prepare`), grades each
chapter as one autograding test of the command grader action, worth the chapter's points, sums them
with the reporter action (both GitHub Classroom's, pinned by version), and writes the score table
and the hints to the job summary (`./lab autograder summary`). Every step calls the lab; none grades
by itself. The command grader passes a test when its command exits 0: `./lab autograder full-marks`
exits 0 only for a chapter graded with every point (the summary shows partial scores).

The committed copy, grader/platforms/classroom.yml, is what `./lab autograder classroom` writes for
every graded chapter; the tests check that it is up to date.
"""

import json
from typing import List

from scanlab_grade.chapters import Chapter, declared_tests
from scanlab_grade.platforms.common import REPO
from scanlab_grade.report import Grade

COMMAND_GRADER = "classroom-resources/autograding-command-grader@v1"
REPORTER = "classroom-resources/autograding-grading-reporter@v1"
REPORTS = ".grade/classroom"   # the grade's JSON reports in the student's checkout (.grade/ is ignored)
TEST_MINUTES = 15              # the command grader's time limit for one chapter, in minutes


def chapter_points(ch: Chapter) -> int:
    return sum(t.points for t in declared_tests(REPO / "tests" / "grade" / f"{ch.id}.cu"))


def step_id(ch: Chapter) -> str:
    return f"chapter{ch.nn}"


def grade_command(ch: Chapter) -> str:
    """The command of a chapter's autograding test (the tests run exactly this)."""
    report = f"{REPORTS}/{ch.id}.json"
    return (f"mkdir -p {REPORTS} && ./lab grade --chapters {ch.nn} --report json --out {report}"
            f" && ./lab autograder full-marks {report}")


def workflow(chapters: List[Chapter]) -> str:
    ids = ",".join(c.nn for c in chapters)
    lines = [
        "# GitHub Classroom's autograding for scanlab, written by `./lab autograder classroom`: on each",
        "# push, each chapter is one autograding test worth its points (the points of its grading tests,",
        "# tests/grade/NN_slug.cu). A test passes when the chapter gets every point; the job summary",
        "# shows each chapter's score and the hints for every test case that failed.",
        "name: scanlab autograding",
        "",
        "on:",
        "  push:",
        "  workflow_dispatch:",
        "  repository_dispatch:",
        "",
        "permissions:",
        "  checks: write",
        "  actions: read",
        "  contents: read",
        "",
        "jobs:",
        "  run-autograding-tests:",
        "    runs-on: ubuntu-24.04",
        "    if: github.actor != 'github-classroom[bot]'",
        "    timeout-minutes: 90",
        "    steps:",
        "      - name: Check out the repository",
        "        uses: actions/checkout@v4",
        "",
        "      # Ubuntu 24.04 lets only programs that AppArmor names create user namespaces; the grader's",
        "      # sandbox (bubblewrap) needs them.",
        "      - name: Allow the grader's sandbox",
        "        run: |",
        "          if [ -e /proc/sys/kernel/apparmor_restrict_unprivileged_userns ]; then",
        "            sudo sysctl -w kernel.apparmor_restrict_unprivileged_userns=0",
        "          fi",
        "",
        "      - name: Install the lab and build the grader",
        f"        run: ./lab grade --prepare --chapters {ids}",
        "",
    ]
    for ch in chapters:
        lines += [
            f"      - name: {json.dumps(f'Chapter {ch.nn}: {ch.title or ch.slug}', ensure_ascii=False)}",
            f"        id: {step_id(ch)}",
            f"        uses: {COMMAND_GRADER}",
            "        with:",
            f"          test-name: {ch.id}",
            f"          command: {json.dumps(grade_command(ch), ensure_ascii=False)}",
            f"          timeout: {TEST_MINUTES}",
            f"          max-score: {chapter_points(ch)}",
            "",
        ]
    lines += [
        "      - name: Autograding Reporter",
        f"        uses: {REPORTER}",
        "        env:",
        *[f"          {step_id(ch).upper()}_RESULTS: \"${{{{ steps.{step_id(ch)}.outputs.result }}}}\""
          for ch in chapters],
        "        with:",
        f"          runners: {','.join(step_id(ch) for ch in chapters)}",
        "",
        "      - name: Score table and hints",
        "        if: always()",
        f"        run: ./lab autograder summary {REPORTS} --chapters {ids} >> \"$GITHUB_STEP_SUMMARY\"",
    ]
    return "\n".join(lines) + "\n"


def full_marks(g: Grade) -> bool:
    return g.points > 0 and g.score == g.points and all(c.status == "graded" for c in g.chapters)
