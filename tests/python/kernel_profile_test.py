"""bench/kernel_profile.py: its report adds up (the kernel table covers every
kernel of the generated C, shares sum to 100%), --baseline adds one A/B row
per thread count, int64 inputs are passed as int64, and an input the model
refuses, or a CLI path that is not there, is one line and exit 1. The
CLI is $ATENAOT (Bazel passes //:atenaot); timings are not checked."""
import os
import re
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TOOL = os.path.join(ROOT, "bench", "kernel_profile.py")
MLP = os.path.join(ROOT, "examples", "mlp")
sys.dont_write_bytecode = True

try:
    import numpy as np
    import torch
    HAVE_TORCH = True
except ImportError:
    HAVE_TORCH = False

needs_torch = unittest.skipUnless(HAVE_TORCH, "torch/numpy not importable by %s (install python3-torch)" % sys.executable)


def profile(model, inputs, *extra):
    return subprocess.run([sys.executable, TOOL, model] + inputs + ["--atenaot", os.environ["ATENAOT"], "--reps", "2"] +
                          list(extra), capture_output=True, text=True)


def tables(out):
    """{threads: (whole us, [(us, share %, kernels)])} of the grouped tables."""
    result = {}
    for m in re.finditer(r"(\d+) thread\(s\): whole run ([\d.]+) us.*?\n\| us \|.*?\n\|---.*?\n((?:\|.*\n?)*)", out):
        rows = [tuple(float(x.strip().rstrip("%")) for x in row.split("|")[1:4])
                for row in m.group(3).strip().split("\n")]
        result[int(m.group(1))] = (float(m.group(2)), rows)
    return result


@needs_torch
class KernelProfile(unittest.TestCase):

    def test_report_covers_every_kernel(self):
        with tempfile.TemporaryDirectory() as work:
            r = profile(os.path.join(MLP, "model.pt"), [os.path.join(MLP, "input_0.npy")], "--threads", "1,2",
                        "--work", work, "--top", "100")
            self.assertEqual(r.returncode, 0, r.stderr)
            calls = re.findall(r"  aot_k\d+\(in, out, arena, wts\);", open(os.path.join(work, "m.c")).read())
        t = tables(r.stdout)
        self.assertEqual(sorted(t), [1, 2], r.stdout)
        for threads, (whole, rows) in t.items():
            self.assertGreater(whole, 0)
            self.assertEqual(sum(int(k) for _, _, k in rows), len(calls), "threads %d:\n%s" % (threads, r.stdout))
            self.assertAlmostEqual(sum(s for _, s, _ in rows), 100.0, delta=0.1 * len(rows) + 0.1)

    def test_baseline_comparison(self):
        # The same CLI as its own baseline: one A/B row per thread count, positive times and ratio.
        with tempfile.TemporaryDirectory() as work:
            r = profile(os.path.join(MLP, "model.pt"), [os.path.join(MLP, "input_0.npy")], "--threads", "1,2",
                        "--work", work, "--baseline", os.environ["ATENAOT"], "--rounds", "2")
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertTrue(os.path.exists(os.path.join(work, "baseline", "prof")))
        rows = re.findall(r"^\| (\d+) \| ([\d.]+) \| ([\d.]+) \| ([\d.]+) \| ([\d.]+) \| ([\d.]+)x \|$", r.stdout, re.M)
        self.assertEqual([int(row[0]) for row in rows], [1, 2], r.stdout)
        for row in rows:
            self.assertTrue(all(float(v) > 0 for v in row[1:]), r.stdout)

    def test_missing_cli_is_one_line(self):
        # A --baseline (or --atenaot) path that is not there: one line, exit 1, no traceback.
        with tempfile.TemporaryDirectory() as work:
            missing = os.path.join(work, "no-such-atenaot")
            r = profile(os.path.join(MLP, "model.pt"), [os.path.join(MLP, "input_0.npy")], "--work", work,
                        "--baseline", missing)
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        self.assertEqual(r.stderr.strip().split("\n"), ["kernel_profile: cannot run %s: No such file or directory" %
                                                         missing], r.stderr)

    def test_int64_input(self):
        class Embed(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.e = torch.nn.Embedding(50, 8)

            def forward(self, ids):
                return self.e(ids).sum(1)

        torch.manual_seed(0)
        ids = torch.randint(0, 50, (3, 5))
        with tempfile.TemporaryDirectory() as d:
            m = torch.jit.trace(Embed().eval(), (ids,))
            m.save(os.path.join(d, "model.pt"))
            np.save(os.path.join(d, "ids.npy"), ids.numpy())
            r = profile(os.path.join(d, "model.pt"), [os.path.join(d, "ids.npy")])
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertIn("1 thread(s): whole run", r.stdout)
            # The same ids as float32: atenaot refuses them, and the tool says so in one line.
            np.save(os.path.join(d, "ids_f.npy"), ids.numpy().astype(np.float32))
            r = profile(os.path.join(d, "model.pt"), [os.path.join(d, "ids_f.npy")])
            self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
            self.assertEqual(len(r.stderr.strip().split("\n")), 1, r.stderr)
            self.assertTrue(r.stderr.startswith("kernel_profile: atenaot compile failed: "), r.stderr)


if __name__ == "__main__":
    import junit_main
    junit_main.main(__name__)
