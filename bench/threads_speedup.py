#!/usr/bin/python3
"""A compiled library on 1 and 2 threads in one process (no LibTorch):
alternating blocks of `set_threads(n)`, one untimed run (the pool starts
there), then 3 timed runs; medians, and whether the outputs are bitwise equal.

usage: /usr/bin/python3 bench/threads_speedup.py ROUNDS NAME=LIBDIR:INPUT.npy...
  e.g. bench_resnet18=/tmp/atenaot_bench_resnet18:/tmp/tv/resnet18/input_0.npy
  (the libraries bench/compiled_vs_eager leaves in /tmp/atenaot_bench_MODEL)
"""
import os
import statistics
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "examples", "python"))
from atenaot_model import Model  # noqa: E402


def main(argv):
    if len(argv) < 3:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    rounds = int(argv[1])
    for spec in argv[2:]:
        name, rest = spec.split("=", 1)
        libdir, npy = rest.split(":", 1)
        m = Model(libdir, name, use_numpy=True)
        x = np.load(npy)
        times, outs = {1: [], 2: []}, {}
        for _ in range(rounds):
            for n in (1, 2):
                m.set_threads(n)
                m.run(x)
                for _ in range(3):
                    t0 = time.perf_counter()
                    y = m.run(x)
                    times[n].append(time.perf_counter() - t0)
                outs[n] = np.array(y[0] if isinstance(y, (list, tuple)) else y)
        same = np.array_equal(outs[1].view(np.uint32), outs[2].view(np.uint32))
        t1, t2 = statistics.median(times[1]) * 1e3, statistics.median(times[2]) * 1e3
        print("%s: 1 thread %.1f ms, 2 threads %.1f ms, %.2fx, bitwise equal: %s (%d runs each)"
              % (name, t1, t2, t1 / t2, same, len(times[1])))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
