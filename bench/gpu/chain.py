"""The 20-op elementwise chain of the GPU benchmark, in one place.

As a script (standard library only, runs where atenaot is built):
    python3 chain.py IR_OUT NPY_OUT [NUMEL]
writes the chain as atenaot IR text (functional ops on one f32 input, what
eager PyTorch runs as 20 kernels) and a zero-filled sample input for
`atenaot compile` (NUMEL elements, default 64M = 256 MiB).

Imported (run_gpu.py, where PyTorch is), `eager(x)` runs the same chain with
PyTorch ops, one kernel per op.
"""
import struct
import sys

NUMEL = 64 * 1024 * 1024

# (atenaot op with its literal arguments after the tensor, PyTorch of it)
OPS = [
    ("aten::mul.Scalar(%s, 0.5)", lambda t: t * 0.5),
    ("aten::add.Scalar(%s, 0.25, 1)", lambda t: t + 0.25),
    ("aten::sigmoid(%s)", lambda t: t.sigmoid()),
    ("aten::mul.Scalar(%s, 2.0)", lambda t: t * 2.0),
    ("aten::sub.Scalar(%s, 0.5, 1)", lambda t: t - 0.5),
    ("aten::tanh(%s)", lambda t: t.tanh()),
    ("aten::add.Scalar(%s, 1.0, 1)", lambda t: t + 1.0),
    ("aten::relu(%s)", lambda t: t.relu()),
    ("aten::mul.Scalar(%s, 0.75)", lambda t: t * 0.75),
    ("aten::add.Scalar(%s, 0.1, 1)", lambda t: t + 0.1),
    ("aten::sqrt(%s)", lambda t: t.sqrt()),
    ("aten::mul.Scalar(%s, 1.5)", lambda t: t * 1.5),
    ("aten::sub.Scalar(%s, 0.2, 1)", lambda t: t - 0.2),
    ("aten::abs(%s)", lambda t: t.abs()),
    ("aten::add.Scalar(%s, 0.001, 1)", lambda t: t + 0.001),
    ("aten::log(%s)", lambda t: t.log()),
    ("aten::neg(%s)", lambda t: t.neg()),
    ("aten::relu(%s)", lambda t: t.relu()),
    ("aten::mul.Scalar(%s, 3.0)", lambda t: t * 3.0),
    ("aten::add.Scalar(%s, 0.5, 1)", lambda t: t + 0.5),
]
assert len(OPS) == 20


def eager(x):
    for _, f in OPS:
        x = f(x)
    return x


def ir_text(numel=NUMEL):
    t = "f32[%d]" % numel
    lines = ["// The GPU benchmark's 20-op elementwise chain (bench/gpu/chain.py).",
             "graph @chain(%%x: %s@s0) {" % t]
    prev = "%x"
    for k, (op, _) in enumerate(OPS):
        name = "%%v%d" % k
        lines.append("  %s = %s : %s@s%d" % (name, op % prev, t, k + 1))
        prev = name
    lines.append("  return %s" % prev)
    lines.append("}")
    return "\n".join(lines) + "\n"


def write_zeros_npy(path, numel):
    header = "{'descr': '<f4', 'fortran_order': False, 'shape': (%d,), }" % numel
    header += " " * (63 - (len(header) + 10) % 64) + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode())
        chunk = b"\0" * (1 << 24)
        left = numel * 4
        while left:
            n = min(left, len(chunk))
            f.write(chunk[:n])
            left -= n


if __name__ == "__main__":
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    n = int(sys.argv[3]) if len(sys.argv) > 3 else NUMEL
    with open(sys.argv[1], "w") as f:
        f.write(ir_text(n))
    write_zeros_npy(sys.argv[2], n)
