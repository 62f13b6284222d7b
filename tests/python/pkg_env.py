"""Imported first by the package tests: python/ (the `atenaot` package of this
checkout) on sys.path, and no __pycache__ in the source tree."""
import os
import sys
import unittest

sys.dont_write_bytecode = True
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "python"))

try:
    import numpy  # noqa: F401
    import torch  # noqa: F401
    HAVE_TORCH = True
except ImportError:
    HAVE_TORCH = False

# Cases that need torch and numpy: skipped visibly (SKIPPED in test.xml) without them.
needs_torch = unittest.skipUnless(HAVE_TORCH, "torch/numpy not importable by %s (install python3-torch)" % sys.executable)


def example_model(idx):
    """(name, module in eval mode, sample input) for examples/make_examples.py's
    EXAMPLES[idx], with seeded weights and non-trivial norms (needs torch)."""
    import torch
    sys.path.insert(0, os.path.join(ROOT, "examples"))
    import make_examples
    name, cls, shape, _ = make_examples.EXAMPLES[idx]
    torch.manual_seed(idx)
    m = cls().eval()
    make_examples.randomize_norms(m, torch.Generator().manual_seed(idx))
    return name, m, torch.randn(*shape)
