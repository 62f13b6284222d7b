#!/usr/bin/python3
"""Generate the small bad (and a few good) inputs used by tests/golden/cli.

Run from the repository root with Debian's python (it has torch 1.13 and
numpy; the tests themselves never need python):

    /usr/bin/python3 tests/golden/cli/inputs/make_inputs.py [OUTPUT_DIR]

OUTPUT_DIR defaults to the directory holding this script. Everything is
deterministic: a rerun writes the same bytes.

Files:
  control_flow.pt       torch.jit.script-ed module whose forward branches on
                        tensor data (`if x.sum() > 0:`): prim::If survives
                        freezing and inlining
  shape_branch.pt       torch.jit.script-ed module branching on a shape
                        (`if x.size(0) > 2:`): no data-dependent scalar, so
                        the importer reaches the prim::If itself
  hello.txt             plain text "hello": not a model format atenaot knows
  truncated.pt          "PK\\x03\\x04" and a few bytes: looks like a zip, is not
  bad_magic.npy         starts with "NOTNUMPY" instead of "\\x93NUMPY"
  truncated_data.npy    valid header for float32 (2, 3), only 8 of 24 data bytes
  f32_2x3.npy           valid float32 (2, 3): values 0..5
  f32_3x2.npy           valid float32 (3, 2): right dtype, wrong shape for 2x3
  i64_2x3.npy           valid int64 (2, 3): right shape, wrong dtype for f32
  f32_4.npy             valid float32 (4,): input of control_flow.pt
  bad_magic.weights     a "weights file" that does not start with "ATNW"
"""

import os
import sys

import numpy as np
import torch


class ControlFlow(torch.nn.Module):
    def forward(self, x):
        if x.sum() > 0:
            return x * 2
        return x - 1


class ShapeBranch(torch.nn.Module):
    def forward(self, x):
        if x.size(0) > 2:
            return x * 2
        return x - 1


def write_bytes(out, name, data):
    with open(os.path.join(out, name), "wb") as f:
        f.write(data)


def npy_bytes(arr):
    """The .npy (version 1.0) bytes of a C-contiguous array, as np.save writes."""
    import io
    buf = io.BytesIO()
    np.save(buf, np.ascontiguousarray(arr), allow_pickle=False)
    return buf.getvalue()


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
    os.makedirs(out, exist_ok=True)

    torch.manual_seed(0)
    scripted = torch.jit.script(ControlFlow().eval())
    scripted.save(os.path.join(out, "control_flow.pt"))
    torch.jit.script(ShapeBranch().eval()).save(os.path.join(out, "shape_branch.pt"))

    write_bytes(out, "hello.txt", b"hello\n")
    write_bytes(out, "truncated.pt", b"PK\x03\x04\x14\x00\x00\x00")
    write_bytes(out, "bad_magic.weights", b"NOPE\x01\x00\x00\x00\x00\x00\x00\x00")

    f32_2x3 = np.arange(6, dtype=np.float32).reshape(2, 3)
    write_bytes(out, "f32_2x3.npy", npy_bytes(f32_2x3))
    write_bytes(out, "f32_3x2.npy", npy_bytes(f32_2x3.reshape(3, 2)))
    write_bytes(out, "i64_2x3.npy", npy_bytes(np.arange(6, dtype=np.int64).reshape(2, 3)))
    write_bytes(out, "f32_4.npy", npy_bytes(np.array([1, -2, 3, 4], dtype=np.float32)))

    good = npy_bytes(f32_2x3)
    write_bytes(out, "bad_magic.npy", b"NOTNUMPY" + good[8:])
    write_bytes(out, "truncated_data.npy", good[: len(good) - 24 + 8])


if __name__ == "__main__":
    main()
