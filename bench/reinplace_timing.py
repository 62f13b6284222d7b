#!/usr/bin/python3
"""Time atenaot's reinplace pass against torch.fx.passes.reinplace on chains.

One program per size N: a chain of N steps over a 64-element vector,
alternating `v = v + x` and `v = v * 0.5`, where every 10th step is instead
an in-place write into a slice of the intermediate, `v[8:40].add_(1)`.

  PyTorch: gm = make_fx(functionalize(f))(x) (not timed), then
           reinplace(gm, x) timed with time.perf_counter (min of 3 runs for
           N <= 1000, one run above; each run gets a freshly built gm).
           The time includes the pass's own fake-tensor propagation.
  atenaot: torch.jit.trace(f) saved as a .pt, then
           `atenaot dump model.pt --inputs x.npy --stage reinplaced
           --time-passes`; the `time: reinplace <ms> ms` line of stderr
           (min of 3 runs). Only the reinplace pass is timed, not import,
           functionalize or dce.

Usage: /usr/bin/python3 bench/reinplace_timing.py --atenaot bazel-bin/atenaot
           [--sizes 250,500,1000,2000,4000] [--out bench/reinplace_timing.md]
Needs torch 1.13 (Debian's /usr/bin/python3 has it) and numpy.
"""

import argparse
import datetime
import os
import platform
import re
import shlex
import subprocess
import sys
import tempfile
import time

import numpy as np
import torch
from functorch.experimental import functionalize
from torch.fx.experimental.proxy_tensor import make_fx
from torch.fx.passes.reinplace import reinplace

import _common

ELEMS = 64


def make_chain(n):
    def f(x):
        v = x * 1.0
        for i in range(n):
            if i % 10 == 9:
                v[8:40].add_(1)
            elif i % 2 == 0:
                v = v + x
            else:
                v = v * 0.5
        return v
    return f


machine = _common.machine


def call_function_nodes(gm):
    return sum(1 for n in gm.graph.nodes if n.op == "call_function")


def inplace_nodes(gm):
    return sum(1 for n in gm.graph.nodes if n.op == "call_function"
               and getattr(n.target, "overloadpacket", None) is not None
               and n.target.overloadpacket.__name__.endswith("_"))


def time_pytorch(f, x, runs):
    best, nodes, inplace = float("inf"), 0, 0
    for _ in range(runs):
        gm = make_fx(functionalize(f))(x.clone())
        nodes = call_function_nodes(gm)
        t0 = time.perf_counter()
        reinplace(gm, x.clone())
        best = min(best, time.perf_counter() - t0)
        inplace = inplace_nodes(gm)
    return nodes, inplace, best


INPLACE_RE = re.compile(r"= aten::[A-Za-z0-9_]*_(?:\.[A-Za-z0-9_]+)?\(")


TIME_RE = re.compile(r"^time: reinplace ([0-9.eE+-]+) ms\s*$", re.M)


def time_atenaot(atenaot, f, x, workdir, runs):
    model = os.path.join(workdir, "model.pt")
    xin = os.path.join(workdir, "x.npy")
    _common.trace_and_save(f, [x], model, [xin])
    # One untimed dump to count the in-place ops (sanity: the pass did work).
    p = subprocess.run([atenaot, "dump", model, "--inputs", xin,
                        "--stage", "reinplaced"], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True)
    if p.returncode != 0:
        raise RuntimeError(f"atenaot dump failed: {p.stderr.strip()}")
    inplace = len(INPLACE_RE.findall(p.stdout))
    best = float("inf")
    for _ in range(runs):
        p = subprocess.run([atenaot, "dump", model, "--inputs", xin,
                            "--stage", "reinplaced", "--time-passes"],
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                           text=True)
        if p.returncode != 0:
            raise RuntimeError(f"atenaot dump failed: {p.stderr.strip()}")
        m = TIME_RE.findall(p.stderr)
        if len(m) != 1:
            raise RuntimeError(f"no single 'time: reinplace' line in:\n{p.stderr}")
        best = min(best, float(m[0]) / 1e3)
    return inplace, best


def fmt_s(s):
    if s >= 1:
        return f"{s:.2f}"
    if s >= 1e-3:
        return f"{s:.4f}"
    return f"{s:.2e}"


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--atenaot", required=True, help="path to the atenaot CLI")
    ap.add_argument("--sizes", default="250,500,1000,2000,4000",
                    help="comma-separated chain lengths N")
    ap.add_argument("--out", default="bench/reinplace_timing.md")
    args = ap.parse_args()
    atenaot = os.path.abspath(args.atenaot)
    sizes = [int(s) for s in args.sizes.split(",") if s]
    command = "/usr/bin/python3 " + " ".join(shlex.quote(a) for a in sys.argv)
    x = torch.randn(ELEMS, generator=torch.Generator().manual_seed(0))

    rows = []
    load_before = os.getloadavg()[0]
    start = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="reinplace_timing_") as tmp:
        for n in sizes:
            f = make_chain(n)
            runs = 3 if n <= 1000 else 1
            nodes, pt_inplace, pt = time_pytorch(f, x, runs)
            at_inplace, at = time_atenaot(atenaot, f, x, tmp, 3)
            ratio = pt / at if at > 0 else float("inf")
            rows.append((n, nodes, pt, at, ratio, pt_inplace, at_inplace))
            print(f"N={n:5d} nodes={nodes:6d} pytorch={pt:.4f}s (min of {runs}) "
                  f"atenaot={at:.6f}s ratio={ratio:,.0f} in-place ops "
                  f"pytorch={pt_inplace} atenaot={at_inplace}", flush=True)
    total = time.perf_counter() - start
    load_after = os.getloadavg()[0]

    lines = [
        "# reinplace pass time: atenaot vs torch.fx.passes.reinplace",
        "",
        f"Command: `{command}`  ",
        f"Date: {datetime.date.today().isoformat()}  ",
        f"Machine: {machine()}  ",
        f"torch {torch.__version__}, numpy {np.__version__}, Python {platform.python_version()}; "
        f"atenaot: `{args.atenaot}`  ",
        f"Whole script: {total:.0f} s; 1-minute load average {load_before:.2f} "
        f"before, {load_after:.2f} after (other work on "
        "the machine makes the times noisy)",
        "",
        f"Program for N: a chain of N steps over a {ELEMS}-element vector "
        "alternating `v = v + x` and `v = v * 0.5`, every 10th step an "
        "in-place write into a slice of the intermediate, `v[8:40].add_(1)`.",
        "",
        "PyTorch: `reinplace(gm, x)` on `gm = make_fx(functionalize(f))(x)` "
        "(building gm is not timed; the time includes the pass's own "
        "fake-tensor propagation); min of 3 runs for N <= 1000, 1 run above. "
        "atenaot: the `time: reinplace` line of `atenaot dump model.pt "
        "--inputs x.npy --stage reinplaced --time-passes` (the reinplace "
        "pass alone, on the graph functionalize + dce made from the "
        "torch.jit.trace of f); min of 3 runs.",
        "",
        "| N | graph nodes | PyTorch reinplace s | atenaot reinplace s | "
        "ratio (PyTorch/atenaot) | in-place ops PyTorch / atenaot |",
        "|---:|---:|---:|---:|---:|---:|",
    ]
    for n, nodes, pt, at, ratio, pti, ati in rows:
        lines.append(f"| {n:,} | {nodes:,} | {fmt_s(pt)} | {fmt_s(at)} | "
                     f"{ratio:,.0f} | {pti:,} / {ati:,} |")
    lines += ["", "*graph nodes*: fx `call_function` nodes of the PyTorch "
              "graph after functionalize (before reinplace). *in-place ops*: "
              "ops whose name ends in `_` after the pass (a sanity check that "
              "both passes did the same work)."]
    if len(rows) >= 2:
        (n0, _, p0, a0, *_), (n1, _, p1, a1, *_) = rows[-2], rows[-1]
        growth = n1 / n0
        lines += ["", f"From N={n0:,} to N={n1:,} ({growth:.1f}x the ops): PyTorch "
                  f"{p1 / p0:.1f}x the time, atenaot {a1 / a0:.1f}x."]
    with open(args.out, "w") as f:
        f.write("\n".join(lines) + "\n")
    print(f"whole script {total:.0f} s; wrote {args.out}")


if __name__ == "__main__":
    sys.exit(main())
