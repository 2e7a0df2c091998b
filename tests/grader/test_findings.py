"""The grader's report keeps each emulator finding once per test, with the count of its copies
(scanlab_grade/findings.py). Run by ctest as grader_findings."""

import sys
import unittest
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "grader"))

from scanlab_grade.doctest_run import DoctestXmlReader  # noqa: E402
from scanlab_grade.findings import dedup, dedup_message  # noqa: E402

RACE = ("racecheck: read-after-write hazard in kernel `k`, block ({b},0,0): thread ({t},0,0) at a.cu:10 and "
        "thread (2,0,0) at a.cu:12 access shared `s`[{i}] (byte {byte}) with no barrier between them ({n} times)")
FOUND = "the emulator found: read-after-write race on shared memory in k: a.cu:10 and a.cu:12"


def race(b, t, i, n):
    return RACE.format(b=b, t=t, i=i, byte=4 * i, n=n)


def failure(n):
    return " | ".join([f"n = {n}; first mismatch at index 32", FOUND, "the runner's last output:",
                       race(0, 1, 3, 5), race(1, 3, 7, 1)])


class Findings(unittest.TestCase):
    def test_one_copy_per_test_with_the_count(self):
        out = dedup([failure(33), failure(65), failure(129)])
        text = " | ".join(out)
        self.assertEqual(text.count("a.cu:10 and a.cu:12"), 1)  # the runner's finding, once
        self.assertEqual(text.count("racecheck: read-after-write"), 1)  # every block's and launch's copy, once
        self.assertIn(FOUND + " [2 more like it in this test]", out[0])
        self.assertIn("[5 more like it in this test]", out[0])  # 2 blocks x 3 failures
        # Each failure's own words stay: they say which input failed.
        self.assertEqual([d.split(" | ")[0] for d in out],
                         ["n = 33; first mismatch at index 32", "n = 65; first mismatch at index 32",
                          "n = 129; first mismatch at index 32"])

    def test_different_findings_are_all_kept(self):
        other = race(0, 1, 3, 1).replace("a.cu:12", "a.cu:14")
        out = dedup([f"x | {race(0, 1, 3, 1)} | {other}"])
        self.assertEqual(out, [f"x | {race(0, 1, 3, 1)} | {other}"])

    def test_a_report_keeps_its_first_line(self):
        reason = ("crashed: killed by SIGABRT | scanlab emulator: kernel `k` launched at m.cu:9 failed: deadlock "
                  "inside a block: its threads wait for each other forever | scanlab emulator: kernel `k` launched "
                  "at m.cu:9 failed: deadlock inside a block: its threads wait for each other forever")
        first = ("scanlab emulator: kernel `k` launched at m.cu:9 failed: deadlock inside a block: its threads "
                 "wait for each other forever")
        self.assertEqual(dedup_message(reason),
                         f"crashed: killed by SIGABRT | {first} [1 more like it in this test]")

    def test_through_the_xml_reader(self):
        expr = ('      <Expression success="false" type="CHECK" filename="t.cu" line="3"><Original>ok</Original>'
                '<Info>\n{}\n</Info></Expression>')
        body = "\n".join(expr.format(failure(n).replace(" | ", "\n  ")) for n in (33, 65))
        xml = ('<?xml version="1.0" encoding="UTF-8"?>\n<doctest binary="t"><TestSuite>'
               '<TestCase name="a" filename="t.cu" line="1" description="points: 2">' + body +
               '<OverallResultsAsserts successes="0" failures="2" test_case_success="false" duration="0.1"/>'
               "</TestCase></TestSuite></doctest>")
        r = DoctestXmlReader()
        r.feed(xml.encode())
        t = r.finished[0]
        self.assertEqual(t.message.count("racecheck:"), 1)
        self.assertIn("[3 more like it in this test]", t.message)
        self.assertEqual(len(t.details), 2)


if __name__ == "__main__":
    unittest.main()
