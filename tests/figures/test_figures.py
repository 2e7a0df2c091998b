#!/usr/bin/env python3
"""book/figures.py's comparison, on small made-up figures: it passes the same figure rendered with
other coordinates (another Graphviz) and fails a stale DOT source, an SVG that shows other texts or
colours than its DOT, a missing source and a figure that no row of FIGURES makes."""
import importlib.util
import shutil
import tempfile
import unittest
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
spec = importlib.util.spec_from_file_location("figures", REPO / "book" / "figures.py")
figures = importlib.util.module_from_spec(spec)
spec.loader.exec_module(figures)

DOT = 'digraph g {\n  a [label="3", pos="0,0!"];\n  b [label="4", pos="1,0!"];\n  a -> b [color="red"];\n}\n'


def svg(x="27", text_b="4", colour="red", background="transparent"):
    return f"""<?xml version="1.0" encoding="UTF-8" standalone="no"?>
<svg xmlns="http://www.w3.org/2000/svg"><g id="graph0" class="graph"><title>g</title>
<polygon fill="white" stroke="{background}" points="0,0 1,1"/>
<g id="node1" class="node"><title>a</title><text x="{x}" y="-18">3</text></g>
<g id="node2" class="node"><title>b</title><text x="99" y="-18">{text_b}</text></g>
<g id="edge1" class="edge"><title>a&#45;&gt;b</title><path fill="none" stroke="{colour}" d="M{x},-18C50,-18"/></g>
</g></svg>
"""


class Check(unittest.TestCase):
    def setUp(self):
        self.tmp = Path(tempfile.mkdtemp())
        self.committed = self.tmp / "figures"
        (self.committed / "src").mkdir(parents=True)
        (self.committed / "f.svg").write_text(svg())
        (self.committed / "src" / "f.dot").write_text(DOT)
        new = self.tmp / "new"
        new.mkdir()
        (new / "f.dot").write_text(DOT)
        (new / "f.svg").write_text(svg())
        self.made = {"f": (new / "f.dot", new / "f.svg")}

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def problems(self):
        return figures.check(self.committed, self.made)

    def test_current_figures_pass(self):
        self.assertEqual(self.problems(), [])

    def test_other_coordinates_and_graphviz_spelling_pass(self):
        (self.committed / "f.svg").write_text(svg(x="28.5", background="none"))
        self.assertEqual(self.problems(), [])

    def test_stale_dot_fails(self):
        (self.committed / "src" / "f.dot").write_text(DOT.replace('"4"', '"5"'))
        [p] = self.problems()
        self.assertIn("src/f.dot: stale", p)

    def test_svg_with_other_texts_fails(self):
        (self.committed / "f.svg").write_text(svg(text_b="5"))
        [p] = self.problems()
        self.assertIn("f.svg: its nodes, edges or texts are not those of its DOT source", p)

    def test_svg_with_other_colours_fails(self):
        (self.committed / "f.svg").write_text(svg(colour="blue"))
        [p] = self.problems()
        self.assertIn("f.svg: its colours are not those of its DOT source", p)

    def test_missing_source_and_svg_fail(self):
        (self.committed / "src" / "f.dot").unlink()
        (self.committed / "f.svg").unlink()
        self.assertEqual(self.problems(), ["src/f.dot: missing (the DOT source of f.svg)", "f.svg: missing"])

    def test_figure_no_row_makes_fails(self):
        (self.committed / "old.svg").write_text(svg())
        (self.committed / "src" / "old.dot").write_text(DOT)
        self.assertEqual(len(self.problems()), 2)

    def test_every_row_names_distinct_figures(self):
        names = [name for _, files in figures.FIGURES for name in files.values()]
        self.assertEqual(len(names), len(set(names)))


if __name__ == "__main__":
    unittest.main()
