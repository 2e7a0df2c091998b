#!/usr/bin/env python3
"""The trace player (visualizer/player/) in headless Chromium, driven by Selenium.

For each committed reference trace (book/docs/figures/traces/) the test makes the self-contained
page (make_player.py, as `./lab viz NN --html` does), steps it, and compares what the page draws
(every element with data-key, its data-value and data-mark) with an independent replay of the
trace (visualizer/player/replay.py). It checks the controls (buttons, slider, keys, play), that a
wrong result is marked, that a broken trace gives a message, that no page logs a console error or
asks the network for anything, and with --site the book's chapter pages that embed the player. It
keeps screenshots of a few steps in --screenshots for a person to look at.

  test_player.py [--site BUILT_STUDENT_BOOK] [--screenshots DIR] [--trace EXTRA.jsonl ...]

In a student's repository (./lab release) it checks the chapters handed out and skips, saying why,
what needs another chapter or solutions/ (handed_out.py).

Exits 77 (ctest: skipped) without Selenium or Chromium's driver (Debian: python3-selenium,
chromium, chromium-driver).
"""
from __future__ import annotations

import argparse
import functools
import http.server
import json
import shutil
import sys
import subprocess
import tempfile
import threading
import time
import unittest
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "visualizer" / "player"))
import make_player  # noqa: E402
import replay  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
import handed_out  # noqa: E402

TRACES = ROOT / "book" / "docs" / "figures" / "traces"
PAGES = {  # the book's pages that embed a player, and the trace each plays (of the chapters here)
    "chapters/01-hillis-steele/index.html": "ch01_steps",
    "chapters/02-blelloch/index.html": "ch02_blelloch",
    "chapters/03-bank-conflicts/index.html": "ch03_banks",
    "chapters/05-multi-block/index.html": "ch05_scan_then_propagate",
    "chapters/07-decoupled-lookback/index.html": "ch07_fig6",
    "chapters/08-stream-compaction/index.html": "ch08_compaction",
}
PAGES = {page: name for page, name in PAGES.items() if handed_out.here(name)}
# What chapter 07's page says of the paper's Fig. 6 run (flags, then inclusive prefixes).
FIG6_TEXT = "P A A P A P X A | 2 4 - 8 - 12 - -"
SKIP = 77
ARGS = None
DRIVER = None  # the run's one headless Chromium: main() starts it (a start is two seconds), every class shares it

try:
    from selenium import webdriver
    from selenium.common.exceptions import WebDriverException
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
except ImportError:  # reported by main()
    webdriver = None


def chrome():
    options = Options()
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                 "--window-size=1280,1000", "--no-first-run", "--disable-extensions",
                 "--disable-background-networking",
                 "--proxy-server=127.0.0.1:9"):  # nothing listens there: a request off this machine fails
        # (loopback is not proxied: the book's pages come from a server on it, see test_book_pages)
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL", "performance": "ALL"})
    return webdriver.Chrome(options=options)


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):  # the test's output is the tests', not the server's
        pass


class PlayerCase(unittest.TestCase):
    """The run's headless Chromium, and what the tests share."""
    driver = None

    @classmethod
    def setUpClass(cls):
        cls.tmp = Path(tempfile.mkdtemp(prefix="scanlab-player-"))
        cls.driver = DRIVER
        cls.shots = Path(ARGS.screenshots) if ARGS.screenshots else cls.tmp / "screenshots"
        cls.shots.mkdir(parents=True, exist_ok=True)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    # ---- helpers --------------------------------------------------------------------------

    def page(self, name, trace_text, sources=None):
        path = self.tmp / f"{name}.html"
        path.write_text(make_player.standalone(trace_text, sources, name), encoding="utf-8")
        return path

    def load(self, path):
        self.driver.get_log("browser")  # forget what earlier pages logged
        self.driver.get_log("performance")
        self.driver.get(path.resolve().as_uri())

    def quiet(self, where, server=None):
        """No console error, and no request but for file: and data: URLs (and the server's own)."""
        errors = [e["message"] for e in self.driver.get_log("browser") if e["level"] == "SEVERE"]
        self.assertEqual(errors, [], f"{where}: console errors")
        asked = []
        for entry in self.driver.get_log("performance"):
            message = json.loads(entry["message"])["message"]
            if message.get("method") == "Network.requestWillBeSent":
                url = message["params"]["request"]["url"]
                if not url.startswith(("file:", "data:", "about:", "blob:") + ((server,) if server else ())):
                    asked.append(url)
        self.assertEqual(asked, [], f"{where}: network requests")

    def player(self, root=".scanlab-player"):
        return self.driver.find_element(By.CSS_SELECTOR, root)

    def position(self):
        return int(self.player().get_attribute("data-position"))

    # What the page shows, read in one round trip to the browser (the round trips are most of this
    # test's time): the event's position, its words and every drawn [data-key, data-value, data-mark].
    _SHOWN = ("const root = document.querySelector('.scanlab-player');"
              "const words = document.querySelector('.sp-text');"
              "return [root.dataset.position, words ? words.textContent : '',"
              " Array.from(document.querySelectorAll('.sp-view [data-key]'))"
              "  .map(e => [e.dataset.key, e.dataset.value, e.dataset.mark || null])];")

    def go(self, k):
        """Moves the slider to k, as a reader dragging it does (an input event); returns the
        words shown for the event, and keeps what is drawn for assert_replayed(..., shown=True)."""
        position, words, self._items = self.driver.execute_script(
            "const s = document.querySelector('.sp-slider'); s.value = arguments[0];"
            "s.dispatchEvent(new Event('input'));" + self._SHOWN, k)
        self.assertEqual(int(position), k)
        return words

    def drawn(self, items=None):
        """({data-key: data-value}, {data-key: data-mark}) of the player's picture."""
        if items is None:
            items = self.driver.execute_script(self._SHOWN)[2]
        return {k: v for k, v, _ in items}, {k: m for k, _, m in items if m}

    def assert_replayed(self, text, k, where, shown=False):
        """The picture is what the replay says after event k (shown: as the last go() read it)."""
        want_values, want_marks = replay.expected(text, k)
        values, marks = self.drawn(self._items if shown else None)
        self.assertEqual(values, want_values, f"{where}, event {k}: the values drawn")
        self.assertEqual(marks, want_marks, f"{where}, event {k}: the marks drawn")

    def shot(self, name):
        self.driver.save_screenshot(str(self.shots / f"{name}.png"))

    def trace(self, name):
        handed_out.require(self, name)
        return (TRACES / f"{name}.jsonl").read_text(encoding="utf-8")



class PlayerTest(PlayerCase):

    def test_every_trace_replays_as_python_says(self):
        names = [p.stem for p in sorted(TRACES.glob("*.jsonl"))]
        self.assertEqual(sorted(names), sorted(PAGES.values()), "the committed traces")
        paths = [TRACES / f"{name}.jsonl" for name in names] + [Path(t) for t in ARGS.trace]
        for path in paths:
            name = path.stem
            text = path.read_text(encoding="utf-8")
            with self.subTest(trace=name):
                self.load(self.page(name, text))
                n = len(replay.steps(text))
                self.assertEqual(self.player().get_attribute("data-state"), "ready")
                self.assertEqual(int(self.player().get_attribute("data-steps")), n)
                for k in sorted({0, 1, n // 3, n // 2, (2 * n) // 3, n - 1}):
                    words = self.go(k)
                    self.assert_replayed(text, k, name, shown=True)
                    self.assertTrue(words.strip(), f"{name}, event {k}: no words for the event")
                self.quiet(name)
                self.go(n // 2)
                self.shot(f"{name}_event{n // 2}")

    def test_fig6_step_34_is_the_papers_figure(self):
        text = self.trace("ch07_fig6")
        meta, _, _ = replay.parse(text)
        seqs = [e["seq"] for e in replay.steps(text)]
        k = seqs.index(meta["fig6_seq"])
        self.assertEqual(meta["fig6_seq"], 34, "chapter 07's page speaks of step 34")
        self.assertEqual(replay.lookback_text(text, k), FIG6_TEXT)
        sources = make_player.source_index(["solutions/07_decoupled_lookback", "chapters/07_decoupled_lookback"]
                                           ) if handed_out.SOLUTIONS else None
        self.load(self.page("ch07_fig6", text, sources))
        self.go(k)
        self.assert_replayed(text, k, "ch07 fig6")
        values, _ = self.drawn()
        flags = " ".join(values[f"flag/{t}"] for t in range(8))
        prefixes = " ".join(values[f"inclusive/{t}"] for t in range(8))
        self.assertEqual(f"{flags} | {prefixes}", FIG6_TEXT)
        words = self.driver.find_element(By.CSS_SELECTOR, ".sp-text").text
        self.assertIn("Tile 7 reads tile 6: X", words)
        if not handed_out.SOLUTIONS:
            self.quiet("ch07 fig6")
            self.skipTest("the source pane (the solution's lines) needs solutions/, which a student's "
                          "repository has not")
        source = self.driver.find_element(By.CSS_SELECTOR, ".sp-source").text
        self.assertIn("decoupled_lookback.cuh", source)
        self.assertIn("probe.on_read", source)
        self.shot("ch07_fig6_step34")
        self.quiet("ch07 fig6")

    def test_ch08_counts_at_tile_3(self):
        """Chapter 08's counts: after the fourth tile's scatter, the tiles 0 to 3 show their counts,
        their offsets (the exclusive prefix of the counts) and the positions they wrote, as the
        replay says; the event is told in words, beside the line that recorded it. A count too
        large in phase 1 is marked, and so is every offset after it."""
        text = self.trace("ch08_compaction")
        k = 3
        sources = make_player.source_index(["solutions/08_stream_compaction", "chapters/08_stream_compaction"]
                                           ) if handed_out.SOLUTIONS else None
        self.load(self.page("ch08_compaction", text, sources))
        words = self.go(k)
        self.assert_replayed(text, k, "ch08 counts", shown=True)
        values, marks = self.drawn()
        offsets = [int(values[f"offset/{t}"]) for t in range(4)]
        counts = [int(values[f"count/{t}"]) for t in range(4)]
        self.assertEqual(offsets, [sum(counts[:t]) for t in range(4)])
        self.assertEqual(values["offset/4"], "-")
        self.assertEqual({key for key, m in marks.items() if m == "current"},
                         {"count/3", "offset/3", "kept/3", "out/3"})
        self.assertIn(f"Tile 3 scatters: phase 1 counted {counts[3]} kept elements", words)
        self.assertIn(f"position {offsets[3]} (the counts of tiles 0 to 2 added up)", words)
        if handed_out.SOLUTIONS:
            source = self.driver.find_element(By.CSS_SELECTOR, ".sp-source").text
            self.assertIn("stream_compaction_dispatch.cuh", source)
            self.assertIn('SCANLAB_TRACE_EVENT(log, "scatter"', source)
        self.shot("ch08_counts_tile3")
        self.quiet("ch08 counts")
        out = []
        for line in text.splitlines():
            e = json.loads(line)
            if e.get("label") == "scatter" and e["step"] >= 1:  # phase 1 counted one too many in tile 1
                e["fields"][0 if e["step"] > 1 else 1] += 1
            out.append(json.dumps(e))
        wrong = "\n".join(out) + "\n"
        self.load(self.page("ch08_wrong", wrong))
        words = self.go(k)
        self.assert_replayed(wrong, k, "ch08 a count too large", shown=True)
        _, marks = self.drawn(self._items)
        self.assertEqual({key for key, m in marks.items() if m == "wrong"},
                         {"count/1", "offset/2", "out/2", "offset/3", "out/3"})
        self.assertIn("but the tiles before it keep", words)
        self.shot("ch08_wrong_count")
        self.quiet("ch08 a count too large")
        if not handed_out.SOLUTIONS:
            self.skipTest("the source pane (the solution's lines) was not checked: it needs solutions/, "
                          "which a student's repository has not")

    def test_controls(self):
        text = self.trace("ch07_fig6")
        events = replay.steps(text)
        last = len(events) - 1
        self.load(self.page("ch07_controls", text))
        click = lambda cls: self.driver.find_element(By.CSS_SELECTOR, cls).click()  # noqa: E731
        self.assertEqual(self.position(), 0)
        click(".sp-forward")
        click(".sp-forward")
        self.assertEqual(self.position(), 2)
        click(".sp-back")
        self.assertEqual(self.position(), 1)
        click(".sp-last")
        self.assertEqual(self.position(), last)
        click(".sp-first")
        self.assertEqual(self.position(), 0)
        keys = lambda *k: self.player().send_keys(*k)  # noqa: E731
        keys(Keys.ARROW_RIGHT, Keys.ARROW_RIGHT, Keys.ARROW_RIGHT)
        self.assertEqual(self.position(), 3)
        keys(Keys.ARROW_LEFT)
        self.assertEqual(self.position(), 2)
        keys(Keys.END)
        self.assertEqual(self.position(), last)
        keys(Keys.HOME)
        self.assertEqual(self.position(), 0)
        # the next "flag" event, with the button and with the key n
        flags = [i for i, e in enumerate(events) if e["label"] == "flag"]
        self.driver.execute_script("document.querySelector('.sp-label-select').value = 'flag';")
        click(".sp-next-label")
        self.assertEqual(self.position(), flags[0])
        keys("n")
        self.assertEqual(self.position(), flags[1])
        # the next event of tile 5, with the button and with the key t
        tile5 = [i for i, e in enumerate(events) if e["step"] == 5]
        self.driver.execute_script("document.querySelector('.sp-tile-input').value = '5';")
        click(".sp-first")
        click(".sp-next-tile")
        self.assertEqual(self.position(), tile5[0])
        keys("t")
        self.assertEqual(self.position(), tile5[1])
        # the slider, from the keyboard: End takes it to the last event
        self.driver.find_element(By.CSS_SELECTOR, ".sp-slider").send_keys(Keys.END)
        self.assertEqual(self.position(), last)
        # play from the start, then pause: it moves on by itself, and stops
        click(".sp-first")
        self.driver.execute_script("document.querySelector('.scanlab-player').dataset.interval = '40';")
        click(".sp-play")
        deadline = time.monotonic() + 5
        while self.position() < 5 and time.monotonic() < deadline:
            time.sleep(0.05)
        keys(" ")
        stopped = self.position()
        self.assertGreaterEqual(stopped, 5, "play did not move on")
        time.sleep(0.3)
        self.assertEqual(self.position(), stopped, "pause did not stop it")
        self.assert_replayed(text, stopped, "ch07 after play")
        self.quiet("controls")

    def test_a_wrong_result_is_marked(self):
        # chapter 02: one value of the stored result changed
        lines = self.trace("ch02_blelloch").splitlines()
        i = next(i for i, line in enumerate(lines) if '"type":"result"' in line)
        result = json.loads(lines[i])
        result["values"][5] += 1
        lines[i] = json.dumps(result)
        text = "\n".join(lines) + "\n"
        self.load(self.page("ch02_wrong", text))
        last = len(replay.steps(text)) - 1
        self.go(last)
        self.assert_replayed(text, last, "ch02 wrong result")
        _, marks = self.drawn()
        self.assertEqual([k for k, m in marks.items() if m == "wrong"], [f"row/{last}/5"])
        self.shot("ch02_wrong_result")
        # chapter 07: tile 3 publishes an inclusive prefix one too large
        out = []
        for line in self.trace("ch07_fig6").splitlines():
            e = json.loads(line)
            if e.get("label") == "value" and e["step"] == 3 and e["fields"][0] == 2:
                e["fields"][1] += 1
                e["value"] += 1
            out.append(json.dumps(e))
        text = "\n".join(out) + "\n"
        self.load(self.page("ch07_wrong", text))
        last = len(replay.steps(text)) - 1
        self.go(last)
        self.assert_replayed(text, last, "ch07 wrong prefix")
        _, marks = self.drawn()
        self.assertEqual(marks.get("inclusive/3"), "wrong")
        self.quiet("wrong results")

    def test_a_broken_trace_says_so(self):
        good = self.trace("ch07_fig6")
        cases = {
            "empty": ("", "empty"),
            "version": (good.replace('"version":1', '"version":7', 1), "version 7"),
            "not_a_trace": ('{"hello": 1}\n', "not a scanlab-trace"),
            "cut_mid_line": (good[: len(good) // 2], "cut short"),
            "no_end_line": ("\n".join(good.splitlines()[:-1]) + "\n", "cut short"),
            "no_events": (good.splitlines()[0] + "\n" + good.splitlines()[-1] + "\n", "no events"),
            "wrong_result": (good.replace('"verified":true', '"verified":false', 1).replace(
                '"message":"ok (512 elements)"', '"message":"first mismatch at index 64"', 1), "index 64"),
            "tickets_only": ("\n".join(x for x in good.splitlines() if '"label":' not in x or '"ticket"' in x),
                             "No tile published or read"),
            "chapter_04": (good.replace('"chapter":"07_decoupled_lookback"', '"chapter":"04_warp"', 1),
                           "no view for chapter"),
        }
        for name, (text, says) in cases.items():
            with self.subTest(case=name):
                self.load(self.page(f"broken_{name}", text))
                messages = " ".join(e.text for e in self.driver.find_elements(By.CSS_SELECTOR, ".sp-message"))
                self.assertIn(says, messages)
                if name.startswith(("cut", "no_end", "wrong", "tickets")):  # what was read still plays
                    self.assertEqual(self.player().get_attribute("data-state"), "ready")
                else:
                    self.assertEqual(self.player().get_attribute("data-state"), "error")
                self.quiet(name)
        self.load(self.page("broken_cut_mid_line", cases["cut_mid_line"][0]))
        self.shot("broken_trace_cut_short")

    def test_book_pages(self):
        """The chapter pages that embed a player (PAGES), from a server on this machine as a reader's browser gets them
        (from file://, the theme's search cannot load its index, which is not the player's doing)."""
        if not ARGS.site:
            self.skipTest("no --site (the built student edition of the book)")
        handler = functools.partial(QuietHandler, directory=str(ARGS.site))
        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        base = f"http://127.0.0.1:{server.server_address[1]}/"
        try:
            self.book_pages(base)
        finally:
            server.shutdown()
            server.server_close()

    def book_pages(self, base):
        for rel, name in PAGES.items():
            with self.subTest(page=rel):
                page = Path(ARGS.site) / rel
                self.assertTrue(page.is_file(), f"{page} was not built")
                self.driver.get_log("browser")
                self.driver.get_log("performance")
                self.driver.get(base + rel)
                root = self.player()
                self.assertEqual(root.get_attribute("data-state"), "ready", rel)
                text = self.trace(name)
                k = int(root.get_attribute("data-position"))
                self.assert_replayed(text, k, rel)
                self.player().send_keys(Keys.ARROW_RIGHT)
                self.assert_replayed(text, min(k + 1, len(replay.steps(text)) - 1), rel)
                source = self.driver.find_element(By.CSS_SELECTOR, ".sp-source").text
                self.assertNotIn("solutions/", source, "the student edition names no solution file")
                self.quiet(rel, base)
                self.driver.execute_script("arguments[0].scrollIntoView();", root)
                self.shot("book_" + rel.split("/")[1])


class NeverPublishesPTest(PlayerCase):
    """`./lab viz 07 --html` on a look-back that never publishes P: a copy of the reference
    solution without its P publish, compiled as the emulator's chapter program is (scanlab-emucc
    with SCANLAB_TRACE), recorded by scanlab-viz as `lab viz 07` records (--program points it at the
    copy) and made into a page as --html makes it. The scripted Fig. 6 order cannot finish with
    such code, so scanlab-viz records it again unscripted; the page must show every tile after 0
    left at A, and every look-back walking past them all to tile 0."""

    def test_tiles_left_at_a_and_look_backs_walking_past(self):
        if not (ARGS.emucc and ARGS.viz and ARGS.driver_lib):
            self.skipTest("needs --emucc, --driver-lib and --viz (the built scanlab-emucc, libscanlab_driver.a "
                          "and scanlab-viz)")
        chapter = ROOT / "chapters" / "07_decoupled_lookback"
        code = self.tmp / "code"
        code.mkdir()
        solution = (ROOT / "solutions" / "07_decoupled_lookback" / "decoupled_lookback.cuh").read_text()
        kept = [line for line in solution.splitlines(keepends=True) if "desc.publish(tile, kPrefix" not in line]
        self.assertEqual(len(solution.splitlines()) - len(kept), 1, "the solution's one P publish")
        (code / "decoupled_lookback.cuh").write_text("".join(kept))
        program = self.tmp / "ch07_never_p"
        subprocess.run([ARGS.emucc, str(chapter / "main.cu"), "-o", str(program), "-I", str(code), "-I", str(chapter),
                        "-DSCANLAB_TRACE=1", ARGS.driver_lib], check=True, timeout=600)
        out = self.tmp / "viz"
        run = subprocess.run([ARGS.viz, "07", "--program", str(program), "--out", str(out)],
                             capture_output=True, text=True, timeout=300)
        self.assertEqual(run.returncode, 0, run.stdout + run.stderr)
        self.assertIn("could not finish", run.stderr)
        page = out / "player.html"
        self.assertEqual(make_player.main([str(out / "trace.jsonl"), "--out", str(page),
                                           "--source", str(code),
                                           "--source", "chapters/07_decoupled_lookback"]), 0)
        text = (out / "trace.jsonl").read_text()
        events = replay.steps(text)
        meta, _, _ = replay.parse(text)
        tiles = meta["tiles"]
        self.load(page)
        self.assertEqual(self.player().get_attribute("data-state"), "ready")
        for k in sorted({0, len(events) // 2, len(events) - 1}):
            self.go(k)
            self.assert_replayed(text, k, "never P")
        values, marks = self.drawn()
        self.assertEqual(marks, {f"flag/{t}": "stuck" for t in range(1, tiles)})
        for t in range(2, tiles):  # every later look-back walks past the tiles left at A, to tile 0
            walk = [values[f"read/{t}/{i}"] for i in range(t)]
            self.assertEqual(walk, [f"{p}:A" for p in range(t - 1, 0, -1)] + ["0:P"], f"tile {t}'s look-back")
        self.assertIn("never publish", self.driver.find_element(By.CSS_SELECTOR, ".sp-view").text)
        self.assertIn("decoupled_lookback.cuh", self.driver.find_element(By.CSS_SELECTOR, ".sp-source").text)
        self.shot("ch07_never_p_end")
        # the first read that walks past a tile at A, in words
        k = next(i for i, e in enumerate(events) if e["label"] == "read" and e["fields"][1] == 1)
        self.go(k)
        self.assertRegex(self.driver.find_element(By.CSS_SELECTOR, ".sp-text").text,
                         r"Tile \d+ reads tile \d+: A, adds -?\d+, goes on to tile \d+\.")
        self.shot(f"ch07_never_p_event{k}")
        self.quiet("never P")


def main():
    global ARGS
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--site", help="the built student edition of the book (its chapter pages are checked)")
    ap.add_argument("--screenshots", help="where to keep the screenshots (default: a temporary folder)")
    ap.add_argument("--trace", action="append", default=[], help="one more trace to replay and compare")
    ap.add_argument("--emucc", help="scanlab-emucc, to build the look-back that never publishes P")
    ap.add_argument("--viz", help="scanlab-viz, to record that look-back's run")
    ap.add_argument("--driver-lib", help="libscanlab_driver.a, the chapter programs' command line and JSON")
    ARGS, rest = ap.parse_known_args()
    if webdriver is None:
        print("test_player: SKIPPED: Selenium is not installed (Debian: python3-selenium)")
        return SKIP
    global DRIVER
    try:
        DRIVER = chrome()
    except WebDriverException as e:
        print(f"test_player: SKIPPED: no headless Chromium to drive (Debian: chromium, chromium-driver): "
              f"{str(e).splitlines()[0]}")
        return SKIP
    try:
        result = unittest.main(argv=[sys.argv[0], "-v"] + rest, exit=False).result
    finally:
        DRIVER.quit()
    if ARGS.screenshots:
        print(f"test_player: screenshots in {ARGS.screenshots}")
    return 0 if result.wasSuccessful() else 1


if __name__ == "__main__":
    sys.exit(main())
