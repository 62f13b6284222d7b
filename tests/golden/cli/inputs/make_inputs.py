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
                        (`if x.size(0) > 2:`): the condition is static for
                        given input shapes, so the importer takes one branch
  loop.pt               torch.jit.script-ed module with a for loop over
                        range(x.size(0)): a prim::Loop
  assert_rows.pt        torch.jit.script-ed module with
                        `assert x.size(0) == 3, "want 3 rows"`: a static
                        prim::If around prim::RaiseException
  optional_arg.pt       torch.jit.script-ed module whose forward takes
                        `y: Optional[torch.Tensor] = None` and returns x * 2
                        when y is None, x - y otherwise (`--inputs X none`)
                        (The .pt files are saved without their *.debug_pkl
                        entries, which hold this script's absolute path.)
  hello.txt             plain text "hello": not a model format atenaot knows
  truncated.pt          "PK\\x03\\x04" and a few bytes: looks like a zip, is not
  bad_magic.npy         starts with "NOTNUMPY" instead of "\\x93NUMPY"
  truncated_data.npy    valid header for float32 (2, 3), only 8 of 24 data bytes
  f32_2x3.npy           valid float32 (2, 3): values 0..5
  f32_3x2.npy           valid float32 (3, 2): right dtype, wrong shape for 2x3
  i64_2x3.npy           valid int64 (2, 3): right shape, wrong dtype for f32
  f32_4.npy             valid float32 (4,): input of control_flow.pt
  bad_magic.weights     a "weights file" that does not start with "ATNW"
  three.weights         a valid atenaot weights file (format of
                        ir/weights_file.cc) with three entries:
                          "idx"               i64[2]  = [1, 0]
                          "quote\"back\\slash"  f64[]   = 0.25
                          "self.lin.weight"   f32[2,3] = [1, 2, 3, 4, 5, 6]
  truncated.weights     three.weights cut in the middle of an entry
  flipped.weights       three.weights with one bit of "self.lin.weight"'s data
                        flipped (same size: caught by its CRC-32)
  v1.weights            a version-1 weights file (no checksums)
  short_record.pt       a traced module (y = x + w, w = arange(1000) float32)
                        whose data record holds 16 of w's 4000 bytes: LibTorch
                        1.13 loads it and would read the heap past the record
  bitflip.pt            the same module with its data intact but one bit of
                        the code record flipped (CRC-32 mismatch in the ZIP)
  version99.pt          the same module with archive/version set to 99
  f32_1000.npy          float32 zeros (1000,): input of the three above
  inf_f32.npy           float32 [1, inf, -inf]
  i64_big_a.npy         int64 [2**53, 2**53 + 1]
  i64_big_b.npy         int64 [2**53 + 1, 2**53] (differs from a, but not
                        once converted to double)
"""

import os
import sys

from typing import Optional

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


class Loop(torch.nn.Module):
    def forward(self, x):
        for _ in range(x.size(0)):
            x = x * 2
        return x


class AssertRows(torch.nn.Module):
    def forward(self, x):
        assert x.size(0) == 3, "want 3 rows"
        return x.relu()


class OptionalArg(torch.nn.Module):
    def forward(self, x, y: Optional[torch.Tensor] = None):
        if y is None:
            return x * 2
        return x - y


def save_scripted(module, path):
    """torch.jit.script + save, without the *.debug_pkl entries (they hold the
    absolute path of this script, so the bytes would depend on the checkout's
    location); torch.jit.load does not need them."""
    import io
    import zipfile
    buf = io.BytesIO()
    torch.jit.save(torch.jit.script(module.eval()), buf)
    zin = zipfile.ZipFile(io.BytesIO(buf.getvalue()))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_STORED) as zout:
        for info in zin.infolist():
            if info.filename.endswith(".debug_pkl"):
                continue
            zout.writestr(zipfile.ZipInfo(info.filename, date_time=(1980, 1, 1, 0, 0, 0)),
                          zin.read(info.filename))
    with open(path, "wb") as f:
        f.write(out.getvalue())


class AddW(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.w = torch.nn.Parameter(torch.arange(1000, dtype=torch.float32))

    def forward(self, x):
        return x + self.w


def save_damaged_archives(out):
    """short_record.pt, bitflip.pt and version99.pt: one traced module, its
    ZIP rewritten (stored, fixed dates, no debug_pkl) with one change each."""
    import io
    import zipfile
    import zlib
    buf = io.BytesIO()
    torch.jit.save(torch.jit.trace(AddW(), torch.zeros(1000)), buf)
    zin = zipfile.ZipFile(io.BytesIO(buf.getvalue()))

    def rewrite(name, change, keep_crc=False):
        zout_bytes = io.BytesIO()
        with zipfile.ZipFile(zout_bytes, "w", zipfile.ZIP_STORED) as zout:
            for info in zin.infolist():
                if info.filename.endswith(".debug_pkl"):
                    continue
                data = zin.read(info.filename)
                new = change(info.filename, data)
                zi = zipfile.ZipInfo(info.filename, date_time=(1980, 1, 1, 0, 0, 0))
                zout.writestr(zi, new)
                if keep_crc and new != data:
                    zi.CRC = zlib.crc32(data)  # the directory keeps the old CRC: a flipped bit
        raw = zout_bytes.getvalue()
        write_bytes(out, name, raw)

    rewrite("short_record.pt", lambda n, d: d[:16] if n.endswith("/data/0") else d)
    rewrite("version99.pt", lambda n, d: b"99\n" if n.endswith("/version") else d)
    rewrite("bitflip.pt", lambda n, d: bytes([d[0] ^ 0x20]) + d[1:] if n.endswith("code/__torch__.py") else d,
            keep_crc=True)
    write_bytes(out, "f32_1000.npy", npy_bytes(np.zeros(1000, dtype=np.float32)))


def weights_bytes(entries):
    """An atenaot weights file: b"ATNW", u32 version 2, u32 count, then per
    entry (sorted by key) u32 key length, key, u8 ATen ScalarType code, u32
    ndim, i64 sizes, u64 byte count, the bytes, and the CRC-32 (zlib's) of the
    entry from its key length through its bytes (all little-endian)."""
    import struct
    import zlib
    codes = {np.dtype(np.int64): 4, np.dtype(np.float32): 6, np.dtype(np.float64): 7}
    out = b"ATNW" + struct.pack("<II", 2, len(entries))
    for key in sorted(entries):
        arr = np.array(entries[key], order="C")  # ascontiguousarray makes 0-d 1-d
        k = key.encode()
        entry = struct.pack("<I", len(k)) + k + struct.pack("<BI", codes[arr.dtype], arr.ndim)
        entry += b"".join(struct.pack("<q", d) for d in arr.shape)
        data = arr.astype(arr.dtype.newbyteorder("<")).tobytes()
        entry += struct.pack("<Q", len(data)) + data
        out += entry + struct.pack("<I", zlib.crc32(entry))
    return out


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
    save_scripted(ControlFlow(), os.path.join(out, "control_flow.pt"))
    save_scripted(ShapeBranch(), os.path.join(out, "shape_branch.pt"))
    save_scripted(Loop(), os.path.join(out, "loop.pt"))
    save_scripted(AssertRows(), os.path.join(out, "assert_rows.pt"))
    save_scripted(OptionalArg(), os.path.join(out, "optional_arg.pt"))

    write_bytes(out, "hello.txt", b"hello\n")
    write_bytes(out, "truncated.pt", b"PK\x03\x04\x14\x00\x00\x00")
    write_bytes(out, "bad_magic.weights", b"NOPE\x01\x00\x00\x00\x00\x00\x00\x00")

    three = weights_bytes({
        "idx": np.array([1, 0], dtype=np.int64),
        'quote"back\\slash': np.array(0.25, dtype=np.float64),
        "self.lin.weight": np.arange(1, 7, dtype=np.float32).reshape(2, 3),
    })
    write_bytes(out, "three.weights", three)
    write_bytes(out, "truncated.weights", three[:40])
    flipped = bytearray(three)
    flipped[len(three) - 4 - 8] ^= 0x01  # inside the last entry's data, before its CRC
    write_bytes(out, "flipped.weights", bytes(flipped))
    write_bytes(out, "v1.weights", b"ATNW" + (1).to_bytes(4, "little") + (0).to_bytes(4, "little"))
    save_damaged_archives(out)

    f32_2x3 = np.arange(6, dtype=np.float32).reshape(2, 3)
    write_bytes(out, "f32_2x3.npy", npy_bytes(f32_2x3))
    write_bytes(out, "f32_3x2.npy", npy_bytes(f32_2x3.reshape(3, 2)))
    write_bytes(out, "i64_2x3.npy", npy_bytes(np.arange(6, dtype=np.int64).reshape(2, 3)))
    write_bytes(out, "f32_4.npy", npy_bytes(np.array([1, -2, 3, 4], dtype=np.float32)))

    write_bytes(out, "inf_f32.npy", npy_bytes(np.array([1, np.inf, -np.inf], dtype=np.float32)))
    write_bytes(out, "i64_big_a.npy", npy_bytes(np.array([2**53, 2**53 + 1], dtype=np.int64)))
    write_bytes(out, "i64_big_b.npy", npy_bytes(np.array([2**53 + 1, 2**53], dtype=np.int64)))

    # compare's scale-aware tolerance: logits near 100 off by 1e-4 (equal),
    # values near 1e-9 off by half their size (different).
    big = np.array([112, 3, -50], dtype=np.float32)
    write_bytes(out, "f32_big_a.npy", npy_bytes(big))
    write_bytes(out, "f32_big_b.npy", npy_bytes(big + np.float32(1e-4)))
    tiny = np.array([1e-9, -2e-9, 3e-9], dtype=np.float32)
    write_bytes(out, "f32_tiny_a.npy", npy_bytes(tiny))
    write_bytes(out, "f32_tiny_b.npy", npy_bytes(tiny * np.float32(1.5)))

    good = npy_bytes(f32_2x3)
    write_bytes(out, "bad_magic.npy", b"NOTNUMPY" + good[8:])
    write_bytes(out, "truncated_data.npy", good[: len(good) - 24 + 8])


if __name__ == "__main__":
    main()
