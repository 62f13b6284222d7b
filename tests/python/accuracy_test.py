"""bench/accuracy.py: its error measures (max and rms relative to the
reference's scale, over all outputs) on hand-made arrays, a run on a small
zoo model (the row and the goal line), and a compile that fails (a row
saying so, exit 1). The CLI is $ATENAOT (Bazel passes //:atenaot); the
ratios of a real run are what bench/RESULTS.md reports, not checked here."""
import os
import subprocess
import sys
import tempfile
import unittest

from pkg_env import ROOT, needs_torch

TOOL = os.path.join(ROOT, "bench", "accuracy.py")


def run(*args):
    return subprocess.run([sys.executable, TOOL] + list(args), capture_output=True, text=True, timeout=600)


@needs_torch
class Errors(unittest.TestCase):
    def test_max_and_rms_relative_to_the_reference_over_all_outputs(self):
        import numpy as np
        sys.path.insert(0, os.path.join(ROOT, "bench"))
        import accuracy
        ref = [np.array([3.0, -4.0], dtype=np.float32), np.array([[0.0, 0.0]])]
        self.assertEqual(accuracy.errors(ref, ref), (0.0, 0.0))
        y = [np.array([3.0, -4.5]), np.array([[0.0, 0.25]])]
        e_max, e_rms = accuracy.errors(y, ref)
        self.assertAlmostEqual(e_max, 0.5 / 4.0)  # the largest |diff| over the largest |ref|, across outputs
        self.assertAlmostEqual(e_rms, ((0.25 + 0.0625) / 25.0) ** 0.5)


@needs_torch
class Runs(unittest.TestCase):
    def test_small_model_row_and_goal_line(self):
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "acc.md")
            p = run("--atenaot", os.environ["ATENAOT"], "--out", out, "--no-layers", "gpt_block")
            self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
            md = open(out).read()
            row = [l for l in md.splitlines() if l.startswith("| gpt_block |")]
            self.assertEqual(len(row), 1, md)
            cells = [c.strip() for c in row[0].split("|")[2:-1]]
            self.assertEqual(len(cells), 6, row)
            self.assertLessEqual(float(cells[2]), 2.0)  # a transformer block's GEMMs: within the goal
            self.assertIn("Models, default builds: worst ratio", md)
            self.assertIn("goal <= 2: met", md)

    def test_failed_compile_is_a_row_and_exit_1(self):
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "acc.md")
            p = run("--atenaot", "/bin/false", "--out", out, "--no-layers", "gpt_block")
            self.assertEqual(p.returncode, 1, p.stdout + p.stderr)
            md = open(out).read()
            self.assertIn("| gpt_block | compile: ", md)
            self.assertIn("Models, default builds: none measured (goal <= 2: not met); not measured: gpt_block", md)


if __name__ == "__main__":
    import junit_main
    junit_main.main(__name__)
