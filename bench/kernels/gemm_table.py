#!/usr/bin/python3
"""Runs bench/kernels:gemm_bench (Google Benchmark, JSON) and writes short
markdown tables: GFLOP/s of the kernel library's GEMM next to OpenBLAS
cblas_sgemm (1 thread) on the same shapes, then the convolutions (im2col
panels packed from the image, fused ReLU) and the depthwise kernel.

usage: /usr/bin/python3 bench/kernels/gemm_table.py [--bench BIN] [--out FILE] [--min-time S]
"""

import argparse
import json
import os
import subprocess
import sys


def run(bench, min_time, env=None, filt=None):
    cmd = [bench, "--benchmark_format=json", "--benchmark_min_time=" + min_time]
    if filt:
        cmd.append("--benchmark_filter=" + filt)
    res = subprocess.run(cmd, check=True, capture_output=True, text=True, env=env)
    return json.loads(res.stdout)["benchmarks"]


def coretype():
    """OpenBLAS's kernel set for this CPU's ISA. Debian's DYNAMIC_ARCH build
    detects some virtual CPUs as "Prescott" (SSE3), as on the Xeon VMs here,
    and LibTorch's GEMM then runs those kernels too."""
    flags = open("/proc/cpuinfo").read()
    return "SkylakeX" if " avx512f" in flags else "Haswell" if " avx2" in flags else None


def gflops(b):
    return b["FLOPS"] / 1e9


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bench", default="bazel-bin/bench/kernels/gemm_bench")
    ap.add_argument("--out", default="-")
    ap.add_argument("--min-time", default="0.2")
    a = ap.parse_args()
    runs = run(a.bench, a.min_time)
    ct = coretype()
    if ct:  # OpenBLAS again, told its ISA's kernels
        env = dict(os.environ, OPENBLAS_CORETYPE=ct)
        for b in run(a.bench, a.min_time, env, "OpenBlas"):
            b["name"] = b["name"].replace("OpenBlas", "OpenBlasForced")
            runs.append(b)
    by = {}
    for b in runs:
        kind, _, shape = b["name"].partition("/")
        by.setdefault(kind, []).append((shape, b))
    L = ["GEMM C[M,N] = A[M,K] B[K,N], row-major, 1 thread; GFLOP/s = 2MNK / CPU time. *aot*: A prepacked (as"
         " compiled models store weights), B packed at run time. *OpenBLAS*: as it configures itself;"
         " *OpenBLAS %s*: with OPENBLAS_CORETYPE=%s (its kernels for this CPU's ISA)." % (ct, ct), "",
         "| M x N x K | OpenBLAS | OpenBLAS %s | aot | aot / OpenBLAS %s |" % (ct, ct), "|---|---:|---:|---:|---:|"]
    blas, forced = dict(by.get("OpenBlas", [])), dict(by.get("OpenBlasForced", []))
    g = lambda d, k: "%.1f" % gflops(d[k]) if k in d else "-"
    for shape, b in by.get("AotGemm", []):
        o = forced.get(shape)
        L.append("| %s | %s | %s | %.1f | %s |" % (shape.replace("/", " x "), g(blas, shape), g(forced, shape), gflops(b),
                                                   "%.2f" % (gflops(b) / gflops(o)) if o else "-"))
    L += ["", "Convolutions through the library (im2col panels packed from the image inside the timed call,"
          " ReLU in the store); depthwise (3x3 or 5x5) with ReLU6.", "",
          "| layer (Cin/H/Cout/k/stride or C/H/stride/k) | GEMM M x N x K | GFLOP/s |", "|---|---|---:|"]
    for shape, b in by.get("AotConv", []):
        L.append("| conv %s | %s | %.1f |" % (shape, b.get("label", ""), gflops(b)))
    for shape, b in by.get("AotDepthwise", []):
        L.append("| depthwise %s | - | %.1f |" % (shape, gflops(b)))
    conv = dict(by.get("AotConv", []))
    if by.get("AotWinograd"):
        L += ["", "3x3 stride-1 layers as Winograd F(2x2, 3x3) (compiled models' default) and F(4x4, 3x3)"
              " (`--winograd 4`: faster, a layer's error up to ~35x eager's, `bench/accuracy.py`): the filters"
              " transformed at compile time; input and output transforms inside the timed call, ReLU in the"
              " store; GFLOP/s of the direct convolution's multiply-adds, next to im2col GEMM on the same layer.",
              "", "| layer (Cin/H/Cout) | im2col GEMM | F(2x2) | F(4x4) | F(2x2) speed-up | F(4x4) speed-up "
              "| scratch F(2x2) / F(4x4) |", "|---|---:|---:|---:|---:|---:|---:|"]
        wino = {}
        for shape, b in by["AotWinograd"]:
            layer, _, m = shape.rpartition("/")
            wino.setdefault(layer, {})[m] = b
        for layer, ms in wino.items():
            cin, h, cout = layer.split("/")
            im = conv.get("%s/%s/%s/3/1/0" % (cin, h, cout))
            cells = [layer, "%.1f" % gflops(im) if im else "-"]
            cells += ["%.1f" % gflops(ms[m]) if m in ms else "-" for m in ("2", "4")]
            cells += ["%.2fx" % (gflops(ms[m]) / gflops(im)) if im and m in ms else "-" for m in ("2", "4")]
            cells.append(" / ".join(ms[m].get("label", "").replace("scratch ", "") if m in ms else "-"
                                    for m in ("2", "4")))
            L.append("| %s |" % " | ".join(cells))
    text = "\n".join(L) + "\n"
    if a.out == "-":
        sys.stdout.write(text)
    else:
        with open(a.out, "w") as f:
            f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
