#!/usr/bin/env python3
"""Runs the CUDA libraries of bench/gpu/bundle on the GPU (see README.md).

python3 run_gpu.py BUNDLE RESULTS_DIR

For every model in BUNDLE/manifest.txt (examples and fixtures):
  1. host tensors through aot_model_run (the model stages them), compared
     with the CPU eager reference outputs (and inputs after the run);
  2. CUDA tensors (PyTorch's) through aot_model_run_on_stream on PyTorch's
     current stream, compared the same way;
  3. the same with the "cuda_graph" option: capture on the first run, replay
     on the second (inputs restored in between), both compared;
once: a host pointer marked AOT_DEVICE_CUDA must fail with AOT_ERR_BAD_DEVICE.
index_range (gathers with indices from a tensor): good indices equal numpy;
a bad one returns AOT_ERR_INDEX_OUT_OF_RANGE naming it, and the next good
run succeeds again, with and without the CUDA graph.
Tolerances: floating point |got - want| <= 1e-4 + 1e-4 * |want| (GPU
reductions, cuBLAS and CUDA's libm differ from the CPU in the last bits);
integers and bools exactly.
Then times (CUDA events, mean over many runs after warm-up, tensors already
on the GPU) fused CUDA (direct launches and CUDA graph) against PyTorch CUDA
eager on the examples, and the 20-op elementwise chain on 64M float32
elements against PyTorch eager (20 kernels) and a plain device copy (the
bandwidth ceiling), printing GB/s. Writes RESULTS_DIR/gpu_results.json and
RESULTS_DIR/RESULTS.md. Exit status 1 when any correctness check failed.
"""
import ctypes
import datetime
import json
import os
import subprocess
import sys
import traceback

import numpy as np
import torch

RTOL = ATOL = 1e-4
AOT_ERR_BAD_DEVICE = 13
AOT_ERR_INDEX_OUT_OF_RANGE = 19
AOT_DEVICE_CPU, AOT_DEVICE_CUDA = 0, 1
NP_TO_AOT = {np.dtype(np.float32): 0, np.dtype(np.float64): 1, np.dtype(np.int32): 2, np.dtype(np.int64): 3,
             np.dtype(np.bool_): 4, np.dtype(np.uint8): 5, np.dtype(np.int8): 6, np.dtype(np.int16): 7}
AOT_TO_NP = {v: k for k, v in NP_TO_AOT.items()}
AOT_TO_TORCH = {0: torch.float32, 1: torch.float64, 2: torch.int32, 3: torch.int64, 4: torch.bool, 5: torch.uint8,
                6: torch.int8, 7: torch.int16}


class AotTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("dtype", ctypes.c_int32), ("ndim", ctypes.c_int32),
                ("device", ctypes.c_int32), ("reserved", ctypes.c_int32),
                ("sizes", ctypes.c_int64 * 8), ("strides", ctypes.c_int64 * 8)]


class AotInfo(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("dtype", ctypes.c_int32), ("ndim", ctypes.c_int32),
                ("sizes", ctypes.c_int64 * 8), ("flags", ctypes.c_int32), ("reserved", ctypes.c_int32)]


class AotError(Exception):
    pass


def describe(ptr, code, shape, device):
    t = AotTensor()
    t.data, t.dtype, t.ndim, t.device = ptr, code, len(shape), device
    st = 1
    for d in range(len(shape) - 1, -1, -1):
        t.sizes[d], t.strides[d] = shape[d], st
        st *= shape[d]
    return t


def rebuild(d, name, arch):
    """Builds the library and the loader again with this machine's nvcc and cc."""
    n = arch[3:]
    extra = open(os.path.join(d, "nvcc_flags.txt")).read().split() if os.path.exists(os.path.join(d, "nvcc_flags.txt")) else []
    subprocess.run(["nvcc", "-O3", "-gencode", "arch=compute_%s,code=[sm_%s,compute_%s]" % (n, n, n)] + extra + ["-Xcompiler",
                    "-fPIC", "-shared", "-I", d, "-o", os.path.join(d, "lib%s.so" % name),
                    os.path.join(d, name + ".cu"), "-lcublas"], check=True)
    subprocess.run(["cc", "-std=c99", "-O2", "-fPIC", "-shared", "-I", d, "-o",
                    os.path.join(d, "libatenaot_runtime.so"), os.path.join(d, "atenaot_runtime.c"), "-ldl"], check=True)


class Lib:
    """One compiled model through its directory's libatenaot_runtime.so."""

    def __init__(self, d, name):
        rt = ctypes.CDLL(os.path.join(d, "libatenaot_runtime.so"))
        P = ctypes.c_void_p
        for fn, res, args in [
                ("aot_model_open", ctypes.c_int32, [ctypes.c_char_p, ctypes.POINTER(P)]),
                ("aot_model_free", None, [P]),
                ("aot_last_error", ctypes.c_char_p, []),
                ("aot_model_num_inputs", ctypes.c_int32, [P, ctypes.POINTER(ctypes.c_size_t)]),
                ("aot_model_num_outputs", ctypes.c_int32, [P, ctypes.POINTER(ctypes.c_size_t)]),
                ("aot_model_input_info", ctypes.c_int32, [P, ctypes.c_size_t, ctypes.POINTER(AotInfo)]),
                ("aot_model_output_info", ctypes.c_int32, [P, ctypes.c_size_t, ctypes.POINTER(AotInfo)]),
                ("aot_model_set_option", ctypes.c_int32, [P, ctypes.c_char_p, ctypes.c_int64]),
                ("aot_model_run_on_stream", ctypes.c_int32,
                 [P, ctypes.POINTER(AotTensor), ctypes.c_size_t, ctypes.POINTER(AotTensor), ctypes.c_size_t, P,
                  ctypes.c_size_t, P])]:
            f = getattr(rt, fn)
            f.restype, f.argtypes = res, args
        self.rt = rt
        self.h = P()
        self.check(rt.aot_model_open(os.path.join(d, "lib%s.so" % name).encode(), ctypes.byref(self.h)), "open")
        n = ctypes.c_size_t()
        self.check(rt.aot_model_num_inputs(self.h, ctypes.byref(n)), "num_inputs")
        self.inputs = [self.info(rt.aot_model_input_info, k) for k in range(n.value)]
        self.check(rt.aot_model_num_outputs(self.h, ctypes.byref(n)), "num_outputs")
        self.outputs = [self.info(rt.aot_model_output_info, k) for k in range(n.value)]

    def check(self, status, what):
        if status != 0:
            raise AotError("%s: status %d: %s" % (what, status, self.rt.aot_last_error().decode()))

    def info(self, fn, k):
        i = AotInfo()
        self.check(fn(self.h, k, ctypes.byref(i)), "info")
        return (i.name.decode(), i.dtype, tuple(i.sizes[d] for d in range(i.ndim)), i.flags)

    def prepare(self, ins, outs):
        """Descriptor arrays for numpy arrays (host) or torch CUDA tensors."""
        def one(x):
            if isinstance(x, np.ndarray):
                return describe(x.ctypes.data, NP_TO_AOT[x.dtype], x.shape, AOT_DEVICE_CPU)
            code = [k for k, v in AOT_TO_TORCH.items() if v == x.dtype][0]
            return describe(x.data_ptr(), code, tuple(x.shape), AOT_DEVICE_CUDA if x.is_cuda else AOT_DEVICE_CPU)
        ai = (AotTensor * max(len(ins), 1))(*[one(x) for x in ins])
        ao = (AotTensor * max(len(outs), 1))(*[one(x) for x in outs])
        return ai, ao

    def run_prepared(self, ai, ao, n_in, n_out, stream):
        return self.rt.aot_model_run_on_stream(self.h, ai, n_in, ao, n_out, None, 0, stream)

    def run(self, ins, outs, stream=None):
        ai, ao = self.prepare(ins, outs)
        self.check(self.run_prepared(ai, ao, len(ins), len(outs), stream), "run")

    def set_option(self, key, value):
        self.check(self.rt.aot_model_set_option(self.h, key.encode(), value), "set_option " + key)

    def close(self):
        if self.h:
            self.rt.aot_model_free(self.h)
            self.h = ctypes.c_void_p()


def open_lib(d, name, arch, notes):
    try:
        return Lib(d, name)
    except (OSError, AotError) as e:
        notes.append("%s: the prebuilt library did not open (%s); rebuilt here with nvcc" % (name, e))
        rebuild(d, name, arch)
        return Lib(d, name)


def compare(tag, got, want):
    got = np.asarray(got)
    if got.shape != want.shape:
        return ["%s: shape %s, want %s" % (tag, got.shape, want.shape)]
    if want.dtype.kind == "f":
        ok = np.isclose(got.astype(np.float64), want.astype(np.float64), rtol=RTOL, atol=ATOL, equal_nan=True)
        if not ok.all():
            diff = np.abs(got.astype(np.float64) - want.astype(np.float64))
            return ["%s: %d of %d differ (max abs diff %.3g)" % (tag, (~ok).sum(), ok.size, np.nanmax(diff))]
        return []
    if not np.array_equal(got, want):
        return ["%s: %d of %d differ" % (tag, (got != want).sum(), want.size)]
    return []


def expected(d, n_out, n_in):
    e = os.path.join(d, "expected")
    outs = [np.load(os.path.join(e, "output_%d.npy" % k)) for k in range(n_out)]
    ins = {k: np.load(os.path.join(e, "input_%d.npy" % k)) for k in range(n_in)
           if os.path.exists(os.path.join(e, "input_%d.npy" % k))}
    return outs, ins


def check_all(tag, outs, ins, want_outs, want_ins, to_np):
    bad = []
    for k, w in enumerate(want_outs):
        bad += compare("%s output %d" % (tag, k), to_np(outs[k]), w)
    for k, w in want_ins.items():
        bad += compare("%s input %d after the run" % (tag, k), to_np(ins[k]), w)
    return bad


def cuda_time_ms(fn, iters, warmup=10):
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    a.record()
    for _ in range(iters):
        fn()
    b.record()
    b.synchronize()
    return a.elapsed_time(b) / iters


def eager_module(bundle, name, d):
    """The example's nn.Module (examples/make_examples.py) with the traced weights, on the GPU."""
    sys.path.insert(0, bundle)
    import make_examples  # noqa: E402
    cls = {"mlp": make_examples.MLP, "cnn": make_examples.CNN, "transformer": make_examples.EncoderBlock}[name]
    m = cls()
    m.load_state_dict(torch.jit.load(os.path.join(d, "model.pt"), map_location="cpu").state_dict())
    return m.eval().cuda()


def main(bundle, results):
    torch.backends.cuda.matmul.allow_tf32 = False  # both sides in full fp32 (cuBLAS without TF32)
    torch.backends.cudnn.allow_tf32 = False
    arch = open(os.path.join(bundle, "arch.txt")).read().strip()
    # One non-default stream for PyTorch's work and the models' (the legacy
    # default stream cannot be captured into a CUDA graph).
    torch.cuda.set_stream(torch.cuda.Stream())
    stream = ctypes.c_void_p(torch.cuda.current_stream().cuda_stream)
    rows, failures, notes, timings = [], [], [], []
    bad_device_checked = False
    manifest = [l.split() for l in open(os.path.join(bundle, "manifest.txt")) if l.strip()]
    for ident, name, kind in manifest:
        if kind == "chain":
            continue
        if kind == "index_range":
            rows.append(check_index_range(os.path.join(bundle, ident), name, arch, stream, notes, failures))
            continue
        d = os.path.join(bundle, ident)
        row = {"model": ident, "checks": []}
        try:
            lib = open_lib(d, name, arch, notes)
            inputs = [np.ascontiguousarray(np.load(os.path.join(d, "inputs", "input_%d.npy" % k)))
                      for k in range(len(lib.inputs))]
            want_outs, want_ins = expected(d, len(lib.outputs), len(inputs))
            bad = []
            # 1. host tensors (staged by the model)
            h_in = [x.copy() for x in inputs]
            h_out = [np.empty(shape, AOT_TO_NP[code]) for _, code, shape, _ in lib.outputs]
            lib.run(h_in, h_out)
            bad += check_all("host", h_out, h_in, want_outs, want_ins, lambda x: x)
            row["checks"].append("host")
            # 2. CUDA tensors on PyTorch's stream
            d_in = [torch.from_numpy(x.copy()).cuda() for x in inputs]
            d_out = [torch.empty(shape, dtype=AOT_TO_TORCH[code], device="cuda") for _, code, shape, _ in lib.outputs]
            lib.run(d_in, d_out, stream)
            torch.cuda.synchronize()
            to_np = lambda t: t.cpu().numpy()  # noqa: E731
            bad += check_all("device", d_out, d_in, want_outs, want_ins, to_np)
            row["checks"].append("device")
            # 3. CUDA graph: capture, then replay
            lib.set_option("cuda_graph", 1)
            for rep in ("graph capture", "graph replay"):
                for t, x in zip(d_in, inputs):
                    t.copy_(torch.from_numpy(x))
                for t in d_out:
                    t.zero_()
                lib.run(d_in, d_out, stream)
                torch.cuda.synchronize()
                bad += check_all(rep, d_out, d_in, want_outs, want_ins, to_np)
            lib.set_option("cuda_graph", 0)
            row["checks"].append("graph")
            if not bad_device_checked and inputs and inputs[0].size:
                ai, ao = lib.prepare(h_in, d_out)
                ai[0].device = AOT_DEVICE_CUDA  # a host pointer marked as device memory
                st = lib.run_prepared(ai, ao, len(h_in), len(d_out), stream)
                msg = lib.rt.aot_last_error().decode()
                if st != AOT_ERR_BAD_DEVICE:
                    bad.append("host pointer marked AOT_DEVICE_CUDA: status %d (%s), want AOT_ERR_BAD_DEVICE" % (st, msg))
                else:
                    notes.append("host pointer marked AOT_DEVICE_CUDA -> AOT_ERR_BAD_DEVICE: " + msg)
                row["checks"].append("bad-device")
                bad_device_checked = True
            row["ok"] = not bad
            row["problems"] = bad
            failures += ["%s: %s" % (ident, b) for b in bad]
            if kind == "example":
                timings.append(time_example(bundle, name, d, lib, inputs, want_outs, stream, notes))
            lib.close()
        except Exception as e:  # one model's failure must not hide the others
            row["ok"] = False
            row["problems"] = ["%s: %s" % (type(e).__name__, e)]
            failures.append("%s: %s" % (ident, row["problems"][0]))
            traceback.print_exc()
        print("%-40s %s %s" % (ident, "ok" if row["ok"] else "FAILED", "; ".join(row["problems"])))
        rows.append(row)
    chain = []
    for ident, _, kind in manifest:
        if kind != "chain":
            continue
        try:
            chain.append(time_chain(bundle, ident, arch, stream, notes, failures))
        except Exception as e:
            failures.append("%s: %s: %s" % (ident, type(e).__name__, e))
            traceback.print_exc()
    write_results(bundle, results, rows, timings, chain, failures, notes)
    return 1 if failures else 0


def check_index_range(d, name, arch, stream, notes, failures):
    """index_select(x, 0, i), x[:, i] and y.index_put_((i,), 1) (x f32[4,8],
    i i64[3], y f32[8]): numpy's results for good i; for bad i the status and
    message of the first failing gather (index_select is the strictest)."""
    row = {"model": "index_range", "checks": []}
    bad = []
    try:
        lib = open_lib(d, name, arch, notes)
        x = np.load(os.path.join(d, "inputs", "x4x8.npy"))
        y = np.load(os.path.join(d, "inputs", "y8.npy"))

        def want(i):
            p = y.copy()
            p[i] = 1
            return [x[i], x[:, i], p]

        def run(i, device):
            ins = [x, np.asarray(i, np.int64), y]
            outs = [np.empty(s, AOT_TO_NP[c]) for _, c, s, _ in lib.outputs]
            if device:
                ins = [torch.from_numpy(a.copy()).cuda() for a in ins]
                outs = [torch.from_numpy(a).cuda() for a in outs]
            ai, ao = lib.prepare(ins, outs)
            st = lib.run_prepared(ai, ao, len(ins), len(outs), stream if device else None)
            torch.cuda.synchronize()
            got = [o.cpu().numpy() if device else o for o in outs]
            return st, lib.rt.aot_last_error().decode(), got

        for device in (False, True):
            for graph in ((0, 1) if device else (0,)):
                lib.set_option("cuda_graph", graph)
                tag = ("device" if device else "host") + (" graph" if graph else "")
                for i, bad_at in (([0, 3, 1], None), ([0, 4, 1], "index 4 is out of range [0, 4)"),
                                  ([-1, 0, 0], "index -1 is out of range [0, 4)"), ([3, 2, 0], None)):
                    st, msg, got = run(i, device)
                    if bad_at is None:
                        if st != 0:
                            bad.append("%s %s: status %d (%s)" % (tag, i, st, msg))
                        else:
                            for k, (g, w) in enumerate(zip(got, want(i))):
                                bad += compare("%s %s output_%d" % (tag, i, k), g, w)
                    elif st != AOT_ERR_INDEX_OUT_OF_RANGE or bad_at not in msg or "aten::index_select" not in msg:
                        bad.append("%s %s: status %d (%s), want AOT_ERR_INDEX_OUT_OF_RANGE (%s)" % (tag, i, st, msg, bad_at))
                    elif tag == "host":
                        notes.append("index out of range -> AOT_ERR_INDEX_OUT_OF_RANGE: " + msg)
                row["checks"].append(tag)
        lib.set_option("cuda_graph", 0)
        lib.close()
    except Exception as e:  # noqa: BLE001 - reported as this row's failure
        bad.append("%s: %s" % (type(e).__name__, e))
        traceback.print_exc()
    row["ok"], row["problems"] = not bad, bad
    failures += ["index_range: %s" % b for b in bad]
    print("%-40s %s %s" % ("index_range", "ok" if row["ok"] else "FAILED", "; ".join(bad)))
    return row


def time_example(bundle, name, d, lib, inputs, want_outs, stream, notes):
    x = [torch.from_numpy(a).cuda() for a in inputs]
    outs = [torch.empty(shape, dtype=AOT_TO_TORCH[code], device="cuda") for _, code, shape, _ in lib.outputs]
    ai, ao = lib.prepare(x, outs)
    n_in, n_out = len(x), len(outs)
    lib.check(lib.run_prepared(ai, ao, n_in, n_out, stream), "run")
    iters = 500
    ours = cuda_time_ms(lambda: lib.run_prepared(ai, ao, n_in, n_out, stream), iters)
    lib.set_option("cuda_graph", 1)
    lib.check(lib.run_prepared(ai, ao, n_in, n_out, stream), "graph run")
    ours_graph = cuda_time_ms(lambda: lib.run_prepared(ai, ao, n_in, n_out, stream), iters)
    lib.set_option("cuda_graph", 0)
    m = eager_module(bundle, name, d)
    with torch.no_grad():
        got = m(*[t.clone() for t in x])
        got = got if isinstance(got, (tuple, list)) else (got,)
        if compare("eager on the GPU", got[0].cpu().numpy(), want_outs[0]):
            notes.append("%s: PyTorch CUDA eager differs from the CPU reference beyond the tolerance" % name)
        eager = cuda_time_ms(lambda: m(*x), iters)
    r = {"model": name, "eager_us": eager * 1e3, "atenaot_us": ours * 1e3, "atenaot_graph_us": ours_graph * 1e3,
         "speedup": eager / ours, "speedup_graph": eager / ours_graph}
    print("  %s: eager %.1f us, atenaot %.1f us (%.2fx), with CUDA graph %.1f us (%.2fx)" % (
        name, r["eager_us"], r["atenaot_us"], r["speedup"], r["atenaot_graph_us"], r["speedup_graph"]))
    return r


def time_chain(bundle, ident, arch, stream, notes, failures):
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import chain as chain_ops  # noqa: E402
    d = os.path.join(bundle, ident)
    lib = open_lib(d, "chain", arch, notes)
    (_, _, shape, _), = lib.inputs
    n = shape[0]
    g = torch.Generator(device="cuda").manual_seed(0)
    x = torch.randn(n, device="cuda", generator=g)
    y = torch.empty_like(x)
    ai, ao = lib.prepare([x], [y])
    lib.check(lib.run_prepared(ai, ao, 1, 1, stream), "chain run")
    torch.cuda.synchronize()
    ref = chain_ops.eager(x)
    ok = torch.allclose(y, ref, rtol=RTOL, atol=ATOL, equal_nan=True)
    flags = open(os.path.join(d, "nvcc_flags.txt")).read().strip() if os.path.exists(os.path.join(d, "nvcc_flags.txt")) else ""
    if not ok:  # only atenaot's own build must match; a fast-math build is there for its speed
        (notes if flags else failures).append(ident + ": fused result differs from PyTorch eager (max abs diff %.3g)" %
                                              (y - ref).abs().nan_to_num().max().item())
    del ref
    nbytes = 2 * n * 4  # one read of x, one write of y
    iters = 50
    ours = cuda_time_ms(lambda: lib.run_prepared(ai, ao, 1, 1, stream), iters)
    copy = cuda_time_ms(lambda: y.copy_(x), iters)
    eager = cuda_time_ms(lambda: chain_ops.eager(x), 10, warmup=3)
    lib.close()
    r = {"variant": ident + (" (nvcc " + flags + ")" if flags else ""), "numel": n, "bytes_moved": nbytes, "atenaot_ms": ours, "atenaot_GBps": nbytes / ours / 1e6,
         "copy_ms": copy, "copy_GBps": nbytes / copy / 1e6, "eager_ms": eager, "eager_GBps_useful": nbytes / eager / 1e6,
         "fraction_of_copy": copy / ours, "fraction_of_4300GBps": nbytes / ours / 1e6 / 4300.0,
         "speedup_vs_eager": eager / ours, "matches_eager": bool(ok)}
    print("%s: 20 ops on %d float32: atenaot %.3f ms = %.0f GB/s (%.0f%% of the device copy's %.0f GB/s, %.0f%% of 4.3 TB/s); "
          "PyTorch eager %.3f ms (%.1fx slower)" % (r["variant"], n, ours, r["atenaot_GBps"], 100 * r["fraction_of_copy"], r["copy_GBps"],
                                                   100 * r["fraction_of_4300GBps"], eager, r["speedup_vs_eager"]))
    return r


def write_results(bundle, results, rows, timings, chain, failures, notes):
    os.makedirs(results, exist_ok=True)
    now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    commit = open(os.path.join(bundle, "commit.txt")).read().strip()
    try:
        smi = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version", "--format=csv,noheader"],
                             capture_output=True, text=True).stdout.strip()
    except OSError:
        smi = torch.cuda.get_device_name()
    machine = "%s; torch %s (CUDA %s)" % (smi, torch.__version__, torch.version.cuda)
    doc = {"date": now, "machine": machine, "commit": commit, "models": rows, "timings": timings, "chain": chain,
           "failures": failures, "notes": notes}
    with open(os.path.join(results, "gpu_results.json"), "w") as f:
        json.dump(doc, f, indent=1)
    L = ["# atenaot CUDA backend on the GPU", "", "%s, %s, bundle of commit %s (`bench/gpu/run.sh`)." % (now, machine, commit), "",
         "## Correctness (host tensors, CUDA tensors, CUDA graph capture + replay vs the CPU eager reference;"
         " floats within 1e-4 + 1e-4*|ref|, integers exact)", "",
         "| model | checks | result |", "|---|---|---|"]
    for r in rows:
        L.append("| %s | %s | %s |" % (r["model"], ", ".join(r.get("checks", [])),
                                       "ok" if r["ok"] else "FAILED: " + "; ".join(r["problems"])))
    L += ["", "## Examples: time per run (tensors on the GPU, CUDA events, mean of 500 runs)", "",
          "| model | PyTorch CUDA eager | atenaot | speedup | atenaot + CUDA graph | speedup |", "|---|---|---|---|---|---|"]
    for t in timings:
        L.append("| %s | %.1f us | %.1f us | %.2fx | %.1f us | %.2fx |" % (
            t["model"], t["eager_us"], t["atenaot_us"], t["speedup"], t["atenaot_graph_us"], t["speedup_graph"]))
    for ch in chain:
        L += ["", "## 20-op elementwise chain: %s, %d float32 elements (%.0f MB read + written)" % (
                  ch["variant"], ch["numel"], ch["bytes_moved"] / 1e6), "",
              "| | time | GB/s |", "|---|---|---|",
              "| atenaot (one fused kernel) | %.3f ms | %.0f |" % (ch["atenaot_ms"], ch["atenaot_GBps"]),
              "| device copy (y.copy_(x)) | %.3f ms | %.0f |" % (ch["copy_ms"], ch["copy_GBps"]),
              "| PyTorch eager (20 kernels) | %.3f ms | %.0f (useful bytes) |" % (ch["eager_ms"], ch["eager_GBps_useful"]),
              "", "atenaot reaches %.0f%% of the measured copy bandwidth (%.0f%% of 4.3 TB/s; goal >= 80%%) and is %.1fx faster "
              "than eager; matches eager within the tolerance: %s." % (
                  100 * ch["fraction_of_copy"], 100 * ch["fraction_of_4300GBps"], ch["speedup_vs_eager"],
                  "yes" if ch["matches_eager"] else "NO")]
    goals = []
    for ch in chain:
        goals.append("%s >= 80%% of copy bandwidth: %s" % (ch["variant"], "met" if ch["fraction_of_copy"] >= 0.8 else "NOT met"))
    if timings:
        goals.append("every example faster than eager (direct launches): %s" %
                     ("met" if all(t["speedup"] > 1 for t in timings) else "NOT met"))
        goals.append("every example faster than eager (CUDA graph): %s" %
                     ("met" if all(t["speedup_graph"] > 1 for t in timings) else "NOT met"))
    L += ["", "## Goals", ""] + ["- " + g for g in goals]
    L += ["", "## Failures", ""] + (["- " + f for f in failures] or ["none"])
    L += ["", "## Notes", ""] + (["- " + n for n in notes] or ["none"])
    with open(os.path.join(results, "RESULTS.md"), "w") as f:
        f.write("\n".join(L) + "\n")
    print("\n".join(L))


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    sys.exit(main(sys.argv[1], sys.argv[2]))
