#!/usr/bin/python3
"""Generate the example models for atenaot (examples/{mlp,cnn,transformer}).

For every example NAME this writes examples/NAME/ containing

  model.pt               torch.jit.trace of the module in eval mode, random
                         weights from a fixed seed
  input_0.npy            the sample input
  expected/output_K.npy  the eager PyTorch outputs (flattened depth-first)
  README.md              what it is, its shapes and how to run it

Everything is seeded, so reruns produce the same files. Regenerate from the
repository root with Debian's python (it has torch 1.13):

    /usr/bin/python3 examples/make_examples.py [OUTPUT_DIR]

OUTPUT_DIR defaults to the directory holding this script. Like
tests/fixtures/make_fixtures.py, it runs through tools/pinned_run.py (fixed
file name, fresh thread), so the Python call stacks the tracer records in
model.pt do not contain the checkout path.
"""

import math
import os
import shutil
import sys
# (no line above _thread_main may move: tools/pinned_run.py)

import numpy as np
import torch
from torch import nn

SEED = 20240715


# --------------------------------------------------------------------------
# Models
# --------------------------------------------------------------------------

class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(64, 128)
        self.act1 = nn.ReLU()
        self.fc2 = nn.Linear(128, 128)
        self.act2 = nn.GELU()
        self.fc3 = nn.Linear(128, 10)

    def forward(self, x):
        return self.fc3(self.act2(self.fc2(self.act1(self.fc1(x)))))


class CNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 8, 3, padding=1)
        self.bn1 = nn.BatchNorm2d(8)
        self.relu1 = nn.ReLU()
        self.pool1 = nn.MaxPool2d(2)
        self.conv2 = nn.Conv2d(8, 16, 3, stride=1, padding=1, groups=1)
        self.bn2 = nn.BatchNorm2d(16)
        self.relu2 = nn.ReLU()
        self.pool2 = nn.AdaptiveAvgPool2d(1)
        self.flatten = nn.Flatten()
        self.fc = nn.Linear(16, 10)

    def forward(self, x):
        x = self.pool1(self.relu1(self.bn1(self.conv1(x))))
        x = self.pool2(self.relu2(self.bn2(self.conv2(x))))
        return self.fc(self.flatten(x))


class EncoderBlock(nn.Module):
    """One pre-norm transformer encoder block written out by hand (not
    nn.TransformerEncoderLayer, whose inference fast path is a fused op)."""

    def __init__(self, dim=32, heads=2, hidden=64):
        super().__init__()
        self.dim = dim
        self.heads = heads
        self.head_dim = dim // heads
        self.ln1 = nn.LayerNorm(dim)
        self.qkv = nn.Linear(dim, 3 * dim)
        self.proj = nn.Linear(dim, dim)
        self.ln2 = nn.LayerNorm(dim)
        self.fc1 = nn.Linear(dim, hidden)
        self.act = nn.GELU()
        self.fc2 = nn.Linear(hidden, dim)

    def forward(self, x):
        b, t, c = x.shape
        h = self.ln1(x)
        q, k, v = self.qkv(h).split(self.dim, dim=-1)
        # [b, t, c] -> [b, heads, t, head_dim]
        q = q.reshape(b, t, self.heads, self.head_dim).transpose(1, 2)
        k = k.reshape(b, t, self.heads, self.head_dim).transpose(1, 2)
        v = v.reshape(b, t, self.heads, self.head_dim).transpose(1, 2)
        att = torch.matmul(q, k.transpose(-2, -1)) / math.sqrt(self.head_dim)
        att = torch.softmax(att, dim=-1)
        y = torch.matmul(att, v)                      # [b, heads, t, head_dim]
        y = y.transpose(1, 2).reshape(b, t, c)
        x = x + self.proj(y)
        x = x + self.fc2(self.act(self.fc1(self.ln2(x))))
        return x


def randomize_norms(m, g):
    """Non-trivial BatchNorm running statistics and affine parameters (so
    eval-mode BatchNorm is not the identity) and LayerNorm affine parameters
    (so the two LayerNorms differ: at their default ones/zeros, freezing
    the module on import pools them into one pair of constants)."""
    for mod in m.modules():
        if isinstance(mod, nn.LayerNorm):
            n = mod.normalized_shape
            with torch.no_grad():
                mod.weight.copy_(torch.rand(*n, generator=g) + 0.5)
                mod.bias.copy_(torch.randn(*n, generator=g) * 0.2)
        if isinstance(mod, nn.BatchNorm2d):
            n = mod.num_features
            with torch.no_grad():
                mod.running_mean.copy_(torch.randn(n, generator=g) * 0.5)
                mod.running_var.copy_(torch.rand(n, generator=g) * 1.5 + 0.25)
                mod.weight.copy_(torch.rand(n, generator=g) + 0.5)
                mod.bias.copy_(torch.randn(n, generator=g) * 0.2)


# name, module class, input shape, readme paragraph (without the command)
EXAMPLES = [
    ("mlp", MLP, (8, 64),
     "A multilayer perceptron: Linear(64,128) -> ReLU -> Linear(128,128) -> "
     "GELU -> Linear(128,10), random weights. Input `input_0.npy` is "
     "float32 [8,64] (batch 8); output `expected/output_0.npy` is float32 "
     "[8,10]."),
    ("cnn", CNN, (2, 3, 16, 16),
     "A small convolutional network: Conv2d(3,8,3,padding=1) -> BatchNorm2d "
     "-> ReLU -> MaxPool2d(2) -> Conv2d(8,16,3,padding=1) -> BatchNorm2d -> "
     "ReLU -> AdaptiveAvgPool2d(1) -> Flatten -> Linear(16,10), random "
     "weights and random BatchNorm running statistics (so eval-mode BatchNorm "
     "is not a no-op). Input `input_0.npy` is float32 [2,3,16,16] (NCHW, "
     "batch 2); output `expected/output_0.npy` is float32 [2,10]."),
    ("transformer", EncoderBlock, (1, 16, 32),
     "One pre-norm transformer encoder block written out by hand (not "
     "nn.TransformerEncoderLayer): LayerNorm -> Linear(32,96) split into "
     "q, k, v -> 2 heads of 16 -> softmax(q k^T / sqrt(16)) v -> "
     "Linear(32,32) -> residual add -> LayerNorm -> Linear(32,64) -> GELU -> "
     "Linear(64,32) -> residual add, random weights (LayerNorm scales and "
     "shifts included). Input `input_0.npy` is "
     "float32 [1,16,32] (batch 1, 16 tokens, width 32); output "
     "`expected/output_0.npy` is float32 [1,16,32]."),
]


# --------------------------------------------------------------------------
# Writing
# --------------------------------------------------------------------------

def flatten(out):
    if isinstance(out, (tuple, list)):
        res = []
        for o in out:
            res.extend(flatten(o))
        return res
    assert isinstance(out, torch.Tensor), type(out)
    return [out]


README_TEMPLATE = """# {name}

{text} Made by `/usr/bin/python3 examples/make_examples.py` (seeded;
`model.pt` is a `torch.jit.trace` of the module in eval mode). Run it with
atenaot and compare with eager PyTorch, from the repository root:

```sh
bazel build //:atenaot
bazel-bin/atenaot run examples/{name}/model.pt --inputs examples/{name}/input_0.npy --out-dir /tmp/{name}_out --stage reinplaced
bazel-bin/atenaot compare examples/{name}/expected /tmp/{name}_out
bazel-bin/atenaot plan examples/{name}/model.pt --inputs examples/{name}/input_0.npy
```
"""


def write_example(out_dir, name, cls, shape, text, g):
    d = os.path.join(out_dir, name)
    if os.path.isdir(d):
        shutil.rmtree(d)
    os.makedirs(os.path.join(d, "expected"))

    torch.manual_seed(SEED)  # nn.Linear/Conv2d init use the global generator
    m = cls()
    randomize_norms(m, g)
    m = m.eval()
    x = torch.randn(*shape, generator=g)
    np.save(os.path.join(d, "input_0.npy"), x.numpy())

    with torch.no_grad():
        outs = flatten(m(x.clone()))
        for k, o in enumerate(outs):
            np.save(os.path.join(d, "expected", "output_%d.npy" % k),
                    o.detach().contiguous().numpy())
        traced = torch.jit.trace(m, (x.clone(),))
    traced.save(os.path.join(d, "model.pt"))

    with open(os.path.join(d, "README.md"), "w") as f:
        f.write(README_TEMPLATE.format(name=name, text=text))


def main(argv):
    out_dir = argv[1] if len(argv) > 1 else os.path.dirname(
        os.path.abspath(__file__))
    os.makedirs(out_dir, exist_ok=True)
    torch.set_num_threads(1)
    g = torch.Generator().manual_seed(SEED)
    for name, cls, shape, text in EXAMPLES:
        write_example(out_dir, name, cls, shape, text, g)
        print("wrote", os.path.join(out_dir, name))


def _thread_main(argv, errors):
    try:
        main(argv)
    except BaseException as e:  # noqa: BLE001
        errors.append(e)


if __name__ == "__main__":
    # tools/pinned_run.py: fixed file name, fresh thread (see there).
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                    "..", "tools"))
    from pinned_run import run_pinned
    run_pinned(__file__, sys.argv)
