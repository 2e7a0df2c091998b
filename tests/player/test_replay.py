#!/usr/bin/env python3
"""The player's Python side without a browser: the replay (visualizer/player/replay.py) on the
committed reference traces agrees with what the algorithms and the book say, and make_player.py
finds the source lines and writes a page that a trace cannot break out of. In a student's
repository (./lab release) what needs a chapter not handed out, or solutions/, is skipped
(handed_out.py)."""
from __future__ import annotations

import json
import re
import sys
import tempfile
import unittest
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "visualizer" / "player"))
import make_player  # noqa: E402
import replay  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
import handed_out  # noqa: E402

TRACES = ROOT / "book" / "docs" / "figures" / "traces"


def trace(test, name):
    """The committed trace NAME; `test` is skipped where its chapter is not handed out."""
    handed_out.require(test, name)
    return (TRACES / f"{name}.jsonl").read_text(encoding="utf-8")


def inclusive(values):
    out, total = [], 0
    for v in values:
        total += v
        out.append(total)
    return out


class ReplayTest(unittest.TestCase):
    def test_ch01_last_row_is_the_inclusive_scan(self):
        text = trace(self, "ch01_steps")
        steps = replay.steps(text)
        self.assertEqual(len(steps), 4)  # the input and offsets 1, 2, 4
        values, marks = replay.expected(text, 3)
        self.assertEqual([int(values[f"row/3/{i}"]) for i in range(8)], inclusive([3, 1, 7, 0, 4, 1, 6, 3]))
        self.assertEqual(sorted(k for k in marks), [f"row/3/{i}" for i in range(4, 8)])  # offset 4 writes 4..7

    def test_ch02_down_sweep_ends_in_the_exclusive_scan(self):
        text = trace(self, "ch02_blelloch")
        steps = replay.steps(text)
        self.assertEqual([s["label"] for s in steps], ["input", "up", "up", "up", "clear", "down", "down", "down",
                                                       "result"])
        values, marks = replay.expected(text, len(steps) - 2)
        self.assertEqual([int(values[f"row/7/{i}"]) for i in range(8)], [0, 3, 4, 11, 11, 15, 16, 22])
        self.assertEqual(set(marks.values()), {"current"})
        _, marks = replay.expected(text, len(steps) - 1)
        self.assertNotIn("wrong", marks.values())

    def test_ch03_up5_conflicts_unpadded_only(self):
        text = trace(self, "ch03_banks")
        k = [s["level"] for s in replay.steps(text)].index("up 5")
        values, marks = replay.expected(text, k)
        unpadded = [values[f"bank/unpadded/left/{lane}"] for lane in range(32)]
        self.assertEqual(set(unpadded), {"15"})  # the page: all 32 lanes in bank 15
        self.assertEqual(sum(1 for key in marks if key.startswith("bank/unpadded/left/")), 32)
        self.assertFalse([key for key in marks if key.startswith("bank/padded/")])

    def test_ch05_tiles_end_as_the_result(self):
        text = trace(self, "ch05_scan_then_propagate")
        steps = replay.steps(text)
        values, marks = replay.expected(text, len(steps) - 1)
        result = steps[-1]
        self.assertEqual(result["label"], "result")
        tiles = [values[f"tile/{i // 32}/{i % 32}"] for i in range(len(result["values"]))]
        self.assertEqual(tiles, [str(v) for v in result["values"]])
        self.assertNotIn("wrong", marks.values())

    def test_ch07_fig6(self):
        text = trace(self, "ch07_fig6")
        meta, _, _ = replay.parse(text)
        k = [e["seq"] for e in replay.steps(text)].index(meta["fig6_seq"])
        self.assertEqual(replay.lookback_text(text, k), "P A A P A P X A | 2 4 - 8 - 12 - -")
        values, marks = replay.expected(text, k)
        self.assertEqual(values["read/7/0"], "6:X")
        self.assertEqual(marks, {})  # every tile publishes P by the end; no prefix is wrong
        end = len(replay.steps(text)) - 1
        self.assertEqual(replay.lookback_text(text, end), "P P P P P P P P | 2 4 6 8 10 12 14 16")

    def test_ch07_a_tile_that_never_publishes_p_is_stuck(self):
        lines = [json.loads(line) for line in trace(self, "ch07_fig6").splitlines()]
        kept = [e for e in lines if not (e.get("step") == 2 and e.get("label") in ("value", "flag")
                                         and e["fields"][0] == 2)]
        text = "\n".join(json.dumps(e) for e in kept) + "\n"
        _, marks = replay.expected(text, len(replay.steps(text)) - 1)
        self.assertEqual(marks, {"flag/2": "stuck"})

    def test_ch08_offsets_are_the_exclusive_prefix_of_the_counts(self):
        text = trace(self, "ch08_compaction")
        meta, _, other = replay.parse(text)
        counts = next(o for o in other if o["type"] == "tile_counts")["counts"]
        tiles = meta["tiles"]
        self.assertEqual(len(replay.steps(text)), tiles)  # one scatter event a tile
        values, marks = replay.expected(text, tiles - 1)
        self.assertEqual([int(values[f"count/{t}"]) for t in range(tiles)], counts)
        offsets = [0] + inclusive(counts)[:-1]
        self.assertEqual([int(values[f"offset/{t}"]) for t in range(tiles)], offsets)
        self.assertEqual(values[f"out/{tiles - 1}"], f"{offsets[-1]}-{sum(counts)}")
        self.assertEqual(set(marks.values()), {"current"})  # the last tile's cells; nothing wrong
        values, _ = replay.expected(text, 0)
        self.assertEqual(values[f"offset/{tiles - 1}"], "-")  # not scattered yet

    def test_ch08_a_count_too_large_shifts_every_later_tile(self):
        out = []
        for line in trace(self, "ch08_compaction").splitlines():
            e = json.loads(line)
            if e.get("label") == "scatter" and e["step"] >= 2:  # phase 1 counted one too many in tile 2
                e["fields"][0 if e["step"] > 2 else 1] += 1
            out.append(json.dumps(e))
        text = "\n".join(out) + "\n"
        tiles = len(replay.steps(text))
        _, marks = replay.expected(text, tiles - 1)
        wrong = {k for k, m in marks.items() if m == "wrong"}
        self.assertEqual(wrong, {"count/2"} | {f"{row}/{t}" for t in range(3, tiles) for row in ("offset", "out")})


class MakePlayerTest(unittest.TestCase):
    def test_source_lines(self):
        handed_out.require(self, "ch02_", "ch07_", solutions=True)
        index = make_player.source_index(["solutions/02_blelloch", "chapters/02_blelloch"])
        up = index["up"]
        self.assertEqual(len(up), 1)
        line = (ROOT / up[0]["file"]).read_text().splitlines()[up[0]["line"] - 1]
        self.assertIn('SCANLAB_TRACE_BLOCK_ARRAY(log, "up"', line)
        # chapter 07: the probe's callers, not the probe; tile 0's calls told apart, and the kind
        index = make_player.source_index(["solutions/07_decoupled_lookback", "chapters/07_decoupled_lookback"])
        self.assertFalse([e for e in index["read"] if "lookback_probe" in e["file"]])
        self.assertEqual({e.get("variant") for e in index["read"]}, {"fenced", "fused"})
        self.assertTrue([e for e in index["flag"] if e.get("tile0")])
        self.assertTrue([e for e in index["flag"] if e.get("tile0") is False])
        self.assertIn("ticket", index)

    def test_student_view_shows_no_solution_line(self):
        handed_out.require(self, "ch02_", solutions=True)
        index = make_player.source_index(["solutions/02_blelloch", "chapters/02_blelloch"])
        shown = make_player.student_view(index)
        for entries in shown.values():
            for e in entries:
                self.assertFalse(e["file"].startswith("solutions/"))
        self.assertEqual(shown["up"][0]["file"], "exercises/02_blelloch/blelloch.cuh")
        self.assertIsNone(shown["up"][0]["text"])  # inside the student's TODO: not shown

    def test_page_is_self_contained_and_a_trace_cannot_end_its_script(self):
        hostile = '{"type":"meta","format":"scanlab-trace","version":1,"chapter":"</script><b>x"}\n'
        page = make_player.standalone(hostile, {}, "t")
        self.assertEqual(page.count("</script>"), 4)  # the trace, the sources, the player, the focus
        self.assertNotIn("<script src", page)
        self.assertNotIn("<link", page)
        # nothing that loads: no src/href to a URL, no url() in the style, no fetch or XHR in the script
        loads = r"""(src|href)=["']?(https?:)?//|url\((?!#)|fetch\(|XMLHttpRequest|import\("""
        self.assertFalse(re.search(loads, page))

    def test_cli_writes_the_page_and_prints_its_path(self):
        handed_out.require(self, "ch02_blelloch")
        with tempfile.TemporaryDirectory() as tmp:
            out = Path(tmp) / "p.html"
            self.assertEqual(make_player.main([str(TRACES / "ch02_blelloch.jsonl"), "--out", str(out),
                                               "--source", "solutions/02_blelloch"]), 0)
            self.assertIn("scanlab-player", out.read_text())
            self.assertEqual(make_player.main([str(Path(tmp) / "missing.jsonl"), "--out", str(out)]), 1)


if __name__ == "__main__":
    unittest.main()
