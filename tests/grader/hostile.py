#!/usr/bin/python3
# Hostile submissions, graded as a class per chapter (see hostile/README.md): every attack scores
# zero or is contained, each class's CSV is complete, and nothing outside the grader's scratch
# folder changes: not the checkout, and not the parts of the grader's build that every student's
# runner is built from (the runner library, the precompiled prelude, the emulator).
#
#   hostile.py --work DIR [--build-dir DIR] [--only NAME,...] [--gpu]
#
# With --gpu (tests/gpu/check.sh's sandbox section), the classes are built with nvcc and run on the
# GPU, in the GPU's sandbox, and each class also has the plain reference solution, at full marks.
"""Grades tests/grader/hostile/*.attack as a class and checks that each is contained."""

import argparse
import hashlib
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Dict, List

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
GRADER = REPO / "grader"
DEFAULT_CHAPTER = "00_sequential"
PASSWD_LINE = "root:x:0:0"
# Time limit per test case: chapter 00's class has an endless loop (a short limit keeps it cheap);
# the other chapters' reference solutions need their usual time.
TIMEOUT = {"00_sequential": "3"}
# On the emulator, the classes of chapters 07 and 08 are graded on a few test cases (--test), for
# each of the student's files: an attack acts when its runner is built or started (a macro, an
# include, a static initialiser), whichever test case the runner is started for, and the whole
# suites of these chapters are grade_NN_slug_solution_emu's. They were half of this test's time,
# for the three attacks on the reference solution that must still score full marks. With --gpu
# every test case runs.
TESTS = {
    "07_decoupled_lookback": ["int32 exclusive sum with the warp look-back and fused descriptors equals the oracle",
                              "int32 inclusive sum and running max equal the oracle"],
    "08_stream_compaction": ["the article's example: {1,0,0,0,4,3,2,0,6,8,9,0} with x > 0 gives {1,4,3,2,6,8,9}",
                             "select_if keeps input order: the same elements in another order are wrong",
                             "partition_if_single_pass: kept ones in order, then the rejected ones reversed",
                             "select_if_single_pass_in_place compacts over its own input"],
}

failures: List[str] = []


def expect(ok: bool, what: str) -> None:
    print(("ok    " if ok else "FAIL  ") + what, flush=True)
    if not ok:
        failures.append(what)


def tree_digest(root: Path, skip=("build",)) -> str:
    """A digest of every file's path and content under root (links as their target). Python's
    byte-code caches (__pycache__) are left out: the grader processes of the tests that run beside
    this one write them into the checkout's grader/ whenever they like. (The sandbox shows the
    checkout to a submission read-only; the rest of the tree shows that it stayed so.)"""
    h = hashlib.sha256()
    for dirpath, dirnames, filenames in os.walk(root):
        rel = Path(dirpath).relative_to(root)
        dirnames[:] = sorted(d for d in dirnames
                             if not (rel == Path(".") and d in skip) and d not in (".git", "__pycache__"))
        for name in sorted(filenames):
            p = Path(dirpath) / name
            h.update(str(p.relative_to(root)).encode(errors="surrogateescape"))
            if p.is_symlink():
                h.update(os.readlink(p).encode())
            elif p.is_file():
                h.update(p.read_bytes())
    return h.hexdigest()


def chapter_files() -> Dict[str, List[str]]:
    """The files a student hands in, per chapter (chapters/chapters.json)."""
    data = json.loads((REPO / "chapters" / "chapters.json").read_text())
    listed = data["chapters"] if isinstance(data, dict) else data
    return {f"{c['nn']}_{c['slug']}": list(c["files"]) for c in listed}


FILES = chapter_files()


def parse_attack(path: Path) -> Dict[str, str]:
    text = path.read_text()
    meta = dict(re.findall(r"^// (base|expect|setup|chapter|file|extra|twin): *(\S+)", text, re.M))
    meta.setdefault("chapter", DEFAULT_CHAPTER)
    meta.setdefault("file", FILES[meta["chapter"]][0])
    meta["code"] = text
    return meta


class Listener:
    """A TCP listener on 127.0.0.1 that counts the connections it accepts."""

    def __init__(self):
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.sock.settimeout(0.5)
        self.port = self.sock.getsockname()[1]
        self.accepted = 0
        self.stop = False
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    def run(self):
        while not self.stop:
            try:
                conn, _ = self.sock.accept()
                self.accepted += 1
                conn.close()
            except OSError:
                pass

    def close(self):
        self.stop = True
        self.thread.join()
        self.sock.close()


def make_student(folder: Path, name: str, meta: Dict[str, str], port: int, csv: Path, build: Path) -> None:
    """One student folder with the attack's chapter: the attack's code appended to its file (the
    chapter's first by default), the chapter's other files as the base has them."""
    name_of_chapter = meta.get("chapter", DEFAULT_CHAPTER)
    chapter = folder / name_of_chapter
    setup = meta.get("setup", "")
    base_dir = REPO / ("solutions" if meta["base"] == "solution" else "exercises") / name_of_chapter
    target = meta.get("file", FILES[name_of_chapter][0])
    if setup == "symlink-folder":
        folder.mkdir(parents=True)
        chapter.symlink_to(REPO / "solutions" / name_of_chapter)
        return
    chapter.mkdir(parents=True)
    for other in FILES[name_of_chapter]:
        if other != target:
            shutil.copyfile(base_dir / other, chapter / other)
    if setup == "fifo-file":
        os.mkfifo(chapter / target)
        return
    if setup == "symlink-file":  # the attacked file only; the others are regular copies
        (chapter / target).symlink_to(REPO / "solutions" / name_of_chapter / target)
        return
    code = (meta["code"].replace("@REPO@", str(REPO)).replace("@PORT@", str(port)).replace("@CSV@", str(csv))
            .replace("@BUILD@", str(build)))
    if setup == "replace":  # the attack's text is the whole file
        (chapter / target).write_text(code)
    else:
        (chapter / target).write_text((base_dir / target).read_text() + "\n" + code)
    if "extra" in meta:  # an extra file in the chapter folder; the build fails if it is ever read
        (chapter / meta["extra"]).write_text("#error an extra file of the student's folder was read\n")
    if setup == "fake-doctest":
        (chapter / "doctest").mkdir()
        (chapter / "doctest" / "doctest.h").write_text(
            "#include </usr/include/doctest/doctest.h>\n#undef CHECK\n#define CHECK(...) ((void)0)\n")


def shared_build_digest(build: Path) -> str:
    """A digest of the files of the grader's build that every runner is built from or run with:
    one student must not be able to change what another is graded with."""
    h = hashlib.sha256()
    for path in sorted([*build.glob("common/*.a"), *build.glob("common/emu/*.a"), *build.glob("bin/*"),
                        *build.glob("common/emu/runner-pch/*")]):
        if path.is_file():
            h.update(str(path).encode() + b"\0" + path.read_bytes())
    return h.hexdigest()


def sandbox_processes(scratch: Path) -> List[str]:
    """Processes that name this grade's scratch folder (other grader tests may run beside this one
    and have their own)."""
    p = subprocess.run(["ps", "-eo", "args"], stdout=subprocess.PIPE, text=True)
    return [line for line in p.stdout.splitlines() if str(scratch) in line and "ps -eo" not in line]


def main(argv: List[str]) -> int:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--work", type=Path, required=True)
    p.add_argument("--build-dir", type=Path, help="the grader's build folder (default: WORK/build)")
    p.add_argument("--only", help="comma-separated attack names")
    p.add_argument("--gpu", action="store_true", help="grade on the GPU (lab grade --gpu)")
    a = p.parse_args(argv)
    work = a.work.resolve()
    attacks = sorted((HERE / "hostile").glob("*.attack"))
    if a.only:
        wanted = set(a.only.split(","))
        attacks = [x for x in attacks if x.stem in wanted]
    out = work / "hostile-out"
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir()
    scratch = work / "hostile-scratch"
    shutil.rmtree(scratch, ignore_errors=True)
    scratch.mkdir()
    listener = Listener()
    build = (a.build_dir or work / "build").resolve()
    # One class per chapter attacked: chapter -> {student: expectation}.
    classes: Dict[str, Dict[str, str]] = {}
    for path in attacks:
        meta = parse_attack(path)
        chapter = meta["chapter"]
        class_dir = work / f"hostile-class-{chapter}"
        if chapter not in classes:
            shutil.rmtree(class_dir, ignore_errors=True)
            class_dir.mkdir(parents=True)
            classes[chapter] = {}
        make_student(class_dir / path.stem, path.stem, meta, listener.port, out / chapter / "class.csv", build)
        classes[chapter][path.stem] = meta["expect"]
        if meta.get("twin") == "yes":  # a second student with the same files: graded with one runner
            make_student(class_dir / f"{path.stem}-twin", path.stem, meta, listener.port,
                         out / chapter / "class.csv", build)
            classes[chapter][f"{path.stem}-twin"] = meta["expect"]
    if a.gpu:  # the reference, graded in the GPU's sandbox beside the attacks
        for chapter in classes:
            make_student(work / f"hostile-class-{chapter}" / "reference", "reference",
                         {"base": "solution", "code": "", "chapter": chapter}, listener.port,
                         out / chapter / "class.csv", build)
            classes[chapter]["reference"] = "full"
    if DEFAULT_CHAPTER in classes:
        # A student folder whose name is a spreadsheet formula, with spaces and unicode: the plain
        # solution, graded like any other.
        odd = "=1+1 élève"
        make_student(work / f"hostile-class-{DEFAULT_CHAPTER}" / odd, odd, {"base": "solution", "code": ""},
                     listener.port, out / DEFAULT_CHAPTER / "class.csv", build)
        classes[DEFAULT_CHAPTER][odd] = "full"

    repo_before = tree_digest(REPO)
    build_before = shared_build_digest(build)
    class_before = {c: tree_digest(work / f"hostile-class-{c}") for c in classes}
    csv_texts: Dict[str, str] = {}
    for chapter, expected in classes.items():
        class_dir = work / f"hostile-class-{chapter}"
        csv = out / chapter / "class.csv"
        csv.parent.mkdir()
        cmd = [sys.executable, "-m", "scanlab_grade", "--build-dir", str(build),
               "--chapters", chapter[:2], "--class", str(class_dir), "--csv", str(csv), "--report", "text",
               "--orders", "default", "--timeout", TIMEOUT.get(chapter, "60"), "--build-timeout", "120",
               "--scratch", str(scratch)] + (["--gpu"] if a.gpu else [])
        in_part = [] if a.gpu else TESTS.get(chapter, [])
        for name in in_part:
            cmd += ["--test", name]
        print("+ " + " ".join(cmd), flush=True)
        t0 = time.monotonic()
        proc = subprocess.run(cmd, env=dict(os.environ, PYTHONPATH=str(GRADER)), stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True)
        took = time.monotonic() - t0
        print(proc.stdout, flush=True)
        expect(proc.returncode == 0,
               f"chapter {chapter}: the class was graded (exit status {proc.returncode}) in {took:.0f} s")
        expect(PASSWD_LINE not in proc.stdout,
               f"chapter {chapter}: the grader's output shows no file a submission included")
        csv_texts[chapter] = csv.read_text() if csv.is_file() else ""
        rows = {}
        import csv as csvmod
        if csv.is_file():
            with open(csv, newline="") as f:
                for row in csvmod.DictReader(f):
                    rows[row["student"]] = row
        expect(len(rows) == len(expected),
               f"chapter {chapter}: the CSV has a row per student ({len(rows)} of {len(expected)})")
        for name, want in expected.items():
            shown = "'" + name if name.startswith("=") else name
            row = rows.get(shown)
            if row is None:
                expect(False, f"{name}: a row in the CSV")
                continue
            total, points = int(row["total"]), int(row["points"])
            if want == "zero":
                expect(total == 0, f"{name}: scores 0 (got {total} of {points}) {row['notes']}")
            else:
                expect(total == points > 0, f"{name}: the correct work still scores full marks ({total} of {points})")
            expect(row["sandbox"] == "on", f"{name}: graded in the sandbox")
            if in_part:
                expect(f"{chapter}: graded in part: {len(in_part)} of its" in row["notes"],
                       f"{name}: the CSV says the chapter was graded in part ({row['notes']})")
    time.sleep(3)  # a daemon that survived would write now
    listener.close()

    for chapter in classes:
        csv = out / chapter / "class.csv"
        expect((csv.read_text() if csv.is_file() else "") == csv_texts[chapter],
               f"chapter {chapter}: nothing wrote the CSV after the grade ended")
        expect(tree_digest(work / f"hostile-class-{chapter}") == class_before[chapter],
               f"chapter {chapter}: the class folder is unchanged")
    expect(tree_digest(REPO) == repo_before, "the checkout is unchanged")
    expect(shared_build_digest(build) == build_before,
           "the grader build's shared parts (runner library, precompiled prelude, emulator, tools) are unchanged")
    targets = ["grader/scanlab_grade/cli.py"]
    for chapter in classes:
        targets += [f"tests/grade/{chapter}.cu"] + [f"exercises/{chapter}/{f}" for f in FILES[chapter]]
    for target in targets:
        expect("// tampered" not in (REPO / target).read_text(), f"{target} was not tampered with")
    expect(listener.accepted == 0, f"no connection reached 127.0.0.1 ({listener.accepted} accepted)")
    left = sandbox_processes(scratch)
    expect(not left, "no process of the grade outlived it" + (f": {left}" if left else ""))
    reports = "".join(r.read_text(errors="replace") for r in out.glob("*/class_reports/*"))
    expect(PASSWD_LINE not in reports, "no report shows the contents of a file a submission tried to include")
    expect(not list(REPO.glob("**/report.xml")), "no forged report file appeared in the checkout")
    if failures:
        print(f"\n{len(failures)} check(s) failed:\n  " + "\n  ".join(failures))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
