"""atenaot.compile -> call, against eager PyTorch: the example models, numpy
and torch inputs, zero-copy (data pointers), in-place inputs, load(), plan()
and the error paths. The CLI is $ATENAOT (Bazel passes //:atenaot)."""
import os
import sys
import tempfile
import unittest

from pkg_env import example_model  # noqa: E402  (first: puts python/ on sys.path)
import atenaot  # noqa: E402

try:
    import numpy as np
    import torch
    HAVE_TORCH = True
except ImportError:
    HAVE_TORCH = False

needs_torch = unittest.skipUnless(HAVE_TORCH, "torch/numpy not importable by %s (install python3-torch)" % sys.executable)


def close(test, actual, expected, what):
    """allclose with tolerances relative to the output's scale."""
    scale = max(float(expected.abs().max()), 1.0)
    err = float((actual - expected).abs().max()) if expected.numel() else 0.0
    test.assertLessEqual(err, 1e-5 * scale, "%s: max abs error %g (scale %g)" % (what, err, scale))


@needs_torch
class ExampleModels(unittest.TestCase):
    """The three example models: compile with torch inputs, call with torch
    and numpy inputs, equal to eager."""

    def _check(self, idx):
        name, m, x = example_model(idx)
        shape = x.shape
        with tempfile.TemporaryDirectory() as d:
            cm = atenaot.compile(m, (x,), out_dir=d, name=name)
            with torch.no_grad():
                expected = m(x)
            y = cm(x)
            self.assertIsInstance(y, torch.Tensor)
            close(self, y, expected, name + " (torch input)")
            yn = cm(x.numpy())
            self.assertIsInstance(yn, np.ndarray)
            close(self, torch.from_numpy(yn), expected, name + " (numpy input)")
            self.assertEqual(cm.inputs[0].shape, tuple(shape))
            self.assertEqual(cm.outputs[0].shape, tuple(expected.shape))
            self.assertGreater(cm.eager_peak_bytes, 0)
            self.assertIn("arena:", cm.plan())
            self.assertEqual(cm.path, d)
            # load() reopens the directory by itself.
            again = atenaot.load(d)
            self.assertEqual(again.name, name)
            self.assertEqual(again.arena_bytes, cm.arena_bytes)
            close(self, again(x), expected, name + " (after load)")
            cm.close()
            again.close()

    def test_mlp(self):
        self._check(0)

    def test_cnn(self):
        self._check(1)

    def test_transformer(self):
        self._check(2)


@needs_torch
class Calling(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.TemporaryDirectory()
        torch.manual_seed(0)
        cls.m = torch.nn.Sequential(torch.nn.Linear(8, 4), torch.nn.Tanh()).eval()
        cls.cm = atenaot.compile(cls.m, (torch.randn(3, 8),), out_dir=os.path.join(cls.dir.name, "lin"))

        def bump(a, b):  # updates its first input in place, two outputs
            a.mul_(2)
            return a + b, b.sum(0)
        cls.bump = atenaot.compile(bump, (torch.ones(2, 3), torch.ones(2, 3)),
                                   out_dir=os.path.join(cls.dir.name, "bump"), name="bump")

    @classmethod
    def tearDownClass(cls):
        cls.cm.close()
        cls.bump.close()
        cls.dir.cleanup()

    def test_zero_copy_torch(self):
        x = torch.randn(3, 8)
        y = self.cm(x)
        self.assertEqual(self.cm.last_input_pointers, [x.data_ptr()])
        self.assertEqual(self.cm.last_input_copied, [False])
        close(self, y, self.m(x).detach(), "contiguous torch input")

    def test_zero_copy_numpy(self):
        x = np.random.rand(3, 8).astype(np.float32)
        y = self.cm(x)
        self.assertEqual(self.cm.last_input_pointers, [x.ctypes.data])
        self.assertEqual(self.cm.last_input_copied, [False])
        close(self, torch.from_numpy(y), self.m(torch.from_numpy(x)).detach(), "contiguous numpy input")

    def test_strided_input_is_copied(self):
        x = torch.randn(8, 3).t()  # transposed: other strides, must be copied
        y = self.cm(x)
        self.assertEqual(self.cm.last_input_copied, [True])
        self.assertNotEqual(self.cm.last_input_pointers, [x.data_ptr()])
        close(self, y, self.m(x).detach(), "transposed torch input")
        xs = np.random.rand(6, 8).astype(np.float32)[::2]  # every other row
        close(self, torch.from_numpy(self.cm(xs)), self.m(torch.from_numpy(xs.copy())).detach(), "sliced numpy input")
        self.assertEqual(self.cm.last_input_copied, [True])

    def test_requires_grad_input(self):
        x = torch.randn(3, 8, requires_grad=True)
        close(self, self.cm(x), self.m(x).detach(), "requires_grad input")
        self.assertEqual(self.cm.last_input_pointers, [x.data_ptr()])

    def test_in_place_input_and_tuple_outputs(self):
        self.assertEqual([i.mutated for i in self.bump.inputs], [True, False])
        a, b = torch.arange(6.).reshape(2, 3), torch.ones(2, 3)
        s, t = self.bump(a, b)
        self.assertTrue(torch.equal(a, torch.arange(6.).reshape(2, 3) * 2), "the caller's tensor is updated")
        self.assertTrue(torch.equal(s, a + 1) and torch.equal(t, torch.full((3,), 2.)))
        self.assertEqual(self.bump.last_input_copied, [False, False])
        # A strided input is copied, and the update is copied back.
        at = torch.arange(6.).reshape(3, 2).t()
        self.bump(at, b)
        self.assertEqual(self.bump.last_input_copied, [True, False])
        self.assertTrue(torch.equal(at, torch.arange(6.).reshape(3, 2).t() * 2), "copied back into the strided tensor")
        an = np.arange(6, dtype=np.float32).reshape(3, 2).T
        self.bump(an, np.ones((2, 3), np.float32))
        self.assertTrue(np.array_equal(an, np.arange(6, dtype=np.float32).reshape(3, 2).T * 2))

    def test_script_module(self):
        scripted = torch.jit.script(self.m)
        with tempfile.TemporaryDirectory() as d:
            cm = atenaot.compile(scripted, torch.randn(3, 8), out_dir=d)
            x = torch.randn(3, 8)
            close(self, cm(x), self.m(x).detach(), "scripted module")
            cm.close()

    def test_run_errors(self):
        with self.assertRaises(atenaot.AtenaotError) as e:
            self.cm(torch.randn(2, 8))
        self.assertEqual(e.exception.status_name, "AOT_ERR_BAD_SHAPE")
        self.assertIn("has size 2 in dimension 0; the model expects 3", str(e.exception))
        with self.assertRaises(atenaot.AtenaotError) as e:
            self.cm(torch.randn(3, 8, dtype=torch.float64))
        self.assertEqual(e.exception.status_name, "AOT_ERR_BAD_DTYPE")
        self.assertIn("has dtype float64; the model expects float32", e.exception.message)
        with self.assertRaises(atenaot.AtenaotError) as e:
            self.cm()
        self.assertIn("got 0 inputs; the model takes 1", e.exception.message)


@needs_torch
class CompileErrors(unittest.TestCase):
    def test_bad_name(self):
        with self.assertRaises(atenaot.CompileError) as e:
            atenaot.compile(torch.nn.ReLU(), (torch.randn(2),), name="not an identifier")
        self.assertTrue(e.exception.message.startswith("atenaot: error:"), e.exception.message)
        self.assertIn("is not a C identifier", e.exception.message)
        self.assertNotIn("\n", e.exception.message)

    def test_unsupported_model(self):
        def nonzero(x):  # data-dependent output shape
            return torch.nonzero(x)
        with self.assertRaises(atenaot.CompileError) as e:
            atenaot.compile(nonzero, (torch.tensor([0., 1.]),), name="nz")
        self.assertTrue(e.exception.message.startswith("atenaot: error:"), e.exception.message)

    def test_bad_arguments(self):
        with self.assertRaises(ValueError):
            atenaot.compile(torch.nn.ReLU(), (torch.randn(2),), target="wasm")
        with self.assertRaises(TypeError):
            atenaot.compile(torch.nn.ReLU(), ("not a tensor",))

    def test_missing_cli(self):
        old = os.environ.get("ATENAOT")
        os.environ["ATENAOT"] = "/nonexistent/atenaot"
        try:
            with self.assertRaises(atenaot.CompileError) as e:
                atenaot.compile(torch.nn.ReLU(), (torch.randn(2),))
            self.assertIn("$ATENAOT is /nonexistent/atenaot", str(e.exception))
        finally:
            if old is None:
                del os.environ["ATENAOT"]
            else:
                os.environ["ATENAOT"] = old

    def test_load_errors(self):
        with tempfile.TemporaryDirectory() as d:
            with self.assertRaises(atenaot.CompileError) as e:
                atenaot.load(d)
            self.assertIn("holds no compiled libraries", str(e.exception))
            with self.assertRaises(atenaot.AtenaotError) as e:
                atenaot.load(d, name="ghost")
            self.assertEqual(e.exception.status_name, "AOT_ERR_OPEN_FAILED")

    def test_embedded_sources_only(self):
        with tempfile.TemporaryDirectory() as d:
            cm = atenaot.compile(torch.nn.ReLU(), (torch.randn(4),), out_dir=d, name="relu", embedded=True)
            self.assertTrue(os.path.isfile(os.path.join(d, "relu.c")))
            self.assertFalse(os.path.exists(os.path.join(d, "librelu.so")))
            self.assertIsNotNone(cm.arena_bytes)
            with self.assertRaises(atenaot.CompileError) as e:
                cm(torch.randn(4))
            self.assertIn("embedded=True", str(e.exception))


if __name__ == "__main__":
    import junit_main
    junit_main.main(__name__)
