#!/usr/bin/python3
"""A compiled library on one thread and on N (default: one per CPU), in one
process without LibTorch (so that no eager thread pool spins into the
library's runs): rounds alternating the two, each a block of back-to-back
runs (at least 20 ms of them, after one untimed run that wakes or parks the
pool) timed as a whole; the median over rounds of the time per run, and
whether every output is bitwise the same on 1 and N threads.

usage: /usr/bin/python3 bench/threads_speedup.py [--rounds 7] [--threads N] [--out FILE]
           LABEL=LIBDIR:INPUT.npy[,INPUT.npy...]...
  e.g. resnet50=/tmp/atenaot_bench_resnet50:TV/resnet50/input_0.npy
  (the libraries bench/compiled_vs_eager leaves in /tmp/atenaot_bench_MODEL;
  LIBDIR holds one compiled library, libNAME.so, besides the runtime's)
"""
import argparse
import glob
import os
import statistics
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "examples", "python"))
from atenaot_model import Model  # noqa: E402

MIN_BLOCK_S = 0.02


def lib_name(libdir):
    names = [os.path.basename(p)[3:-3] for p in glob.glob(os.path.join(libdir, "lib*.so"))
             if os.path.basename(p) != "libatenaot_runtime.so"]
    if len(names) != 1:
        sys.exit("threads_speedup: expected one compiled library in %s, found %s" % (libdir, names or "none"))
    return names[0]


def block_time(m, xs, runs):
    """Seconds per run over `runs` back-to-back runs, and the last outputs."""
    t0 = time.perf_counter()
    for _ in range(runs):
        y = m.run(*xs)
    return (time.perf_counter() - t0) / runs, y


def flat(y):
    return [np.array(o) for o in (y if isinstance(y, (list, tuple)) else [y])]


def measure(m, xs, rounds, n):
    """{threads: [s per run per round]}, bitwise equal on 1 and n threads."""
    m.set_threads(1)
    m.run(*xs)
    one, _ = block_time(m, xs, 3)
    runs = max(3, int(MIN_BLOCK_S / max(one, 1e-7)))
    times, outs = {1: [], n: []}, {}
    for _ in range(rounds):
        for t in (1, n):
            m.set_threads(t)
            m.run(*xs)
            s, y = block_time(m, xs, runs)
            times[t].append(s)
            outs[t] = flat(y)
    same = all(a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()
               for a, b in zip(outs[1], outs[n]))
    return times, same, runs


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.strip().splitlines()[0])
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--threads", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--out")
    ap.add_argument("models", nargs="+", metavar="NAME=LIBDIR:INPUT.npy")
    a = ap.parse_args(argv[1:])
    n = a.threads
    lines = ["| model | 1 thread ms | %d threads ms | speed-up | bitwise equal | runs per block |" % n,
             "|---|---:|---:|---:|---|---:|"]
    for spec in a.models:
        label, rest = spec.split("=", 1)
        libdir, npys = rest.split(":", 1)
        m = Model(libdir, lib_name(libdir), use_numpy=True)
        xs = [np.load(p) for p in npys.split(",")]
        times, same, runs = measure(m, xs, a.rounds, n)
        t1, tn = statistics.median(times[1]) * 1e3, statistics.median(times[n]) * 1e3
        lines.append("| %s | %.3f | %.3f | %.2fx | %s | %d |" % (label, t1, tn, t1 / tn, "yes" if same else "NO", runs))
        print(lines[-1], flush=True)
        m.close()
    if a.out:
        with open(a.out, "w") as f:
            f.write("\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
