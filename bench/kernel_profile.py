#!/usr/bin/python3
"""Where a compiled model's time goes, kernel by kernel.

Compiles MODEL with `atenaot compile --emit-only`, wraps every kernel call of
the generated aot__compute in a clock_gettime timer, builds that C with the
flags `atenaot compile` uses for this machine's --cpu level, and runs it on
the given inputs: the fastest whole run and each kernel's fastest time over
--reps runs, per thread count. Kernels are grouped by what they compute (the
op named in each kernel's comment, e.g. "aten::_convolution; in its store:
aten::silu_"). The per-kernel sums exceed the whole run a little (timer
overhead, and each kernel's best run counted).

Usage: /usr/bin/python3 bench/kernel_profile.py MODEL INPUT.npy... [--atenaot bazel-bin/atenaot]
           [--threads 1,2] [--reps 30] [--top 20] [--work DIR] [--kernels] [--compile-flag=FLAG ...]
           [--baseline OTHER_ATENAOT [--rounds 10]]
Inputs of any dtype the C ABI takes; each .npy must have the dtype and shape
the model was compiled for (one clear line and exit 1 otherwise). --kernels
also lists the slowest single kernels. --baseline builds the model with
another atenaot too (WORK/baseline) and times the two whole runs taking
turns, --rounds rounds per thread count: before/after numbers that a busy
machine disturbs alike.
"""
import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile

import numpy as np

TIMER = ("#define _POSIX_C_SOURCE 200809L\n#include <time.h>\ndouble prof_min[%d];\n"
         "static double prof_now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t);"
         " return t.tv_sec + 1e-9 * t.tv_nsec; }\n")

DRIVER = r"""#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "m.h"
extern double prof_min[];
static void* load(const char* path, size_t bytes) {
  void* p = aligned_alloc(64, (bytes + 63) / 64 * 64 + 64);
  FILE* f = fopen(path, "rb");
  if (!f || fread(p, 1, bytes, f) != bytes) { fprintf(stderr, "cannot read %%s\n", path); exit(1); }
  fclose(f);
  return p;
}
int main(int argc, char** argv) {
  const int reps = atoi(argv[1]), threads = atoi(argv[2]);
  aot_tensor in[%(ni)d], out[%(no)d];
  memset(in, 0, sizeof in);
  memset(out, 0, sizeof out);
%(setup)s
  void* arena = aligned_alloc(64, (m_arena_bytes() + 63) / 64 * 64 + 64);
  m_set_threads(threads);
  for (int i = 0; i < %(nk)d; ++i) prof_min[i] = 1e9;
  double best = 1e9;
  for (int r = 0; r < reps; ++r) {
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    if (m_run(in, %(ni)d, out, %(no)d, arena, m_arena_bytes(), 0)) { fprintf(stderr, "run failed\n"); return 1; }
    clock_gettime(CLOCK_MONOTONIC, &b);
    const double t = (b.tv_sec - a.tv_sec) + 1e-9 * (b.tv_nsec - a.tv_nsec);
    if (t < best) best = t;
  }
  printf("whole %%.1f\n", best * 1e6);
  for (int i = 0; i < %(nk)d; ++i) printf("%%d %%.1f\n", i, prof_min[i] * 1e6);
  return 0;
}
"""


# The C ABI's dtypes (c_api/atenaot.h): name -> numpy dtype.
DTYPES = {"AOT_FLOAT32": np.float32, "AOT_FLOAT64": np.float64, "AOT_INT32": np.int32, "AOT_INT64": np.int64,
          "AOT_BOOL": np.bool_, "AOT_UINT8": np.uint8, "AOT_INT8": np.int8, "AOT_INT16": np.int16}


def tensor_table(src, name):
    """[(dtype name, shape)] of the generated aot__inputs or aot__outputs table."""
    table = re.search(r"%s\[\d+\] = \{(.*?)\n\};" % name, src, re.S).group(1)
    return [(dt, [int(x) for x in sz.split(",") if x.strip()][:int(nd)])
            for dt, nd, sz in re.findall(r'\{"[^"]*", (AOT_\w+), (\d+), \{([\d, ]*)\}', table)]


def tensor_setup(var, k, dtype, shape, path):
    n = int(np.prod(shape)) if shape else 1
    nbytes = n * np.dtype(DTYPES[dtype]).itemsize
    data = 'load("%s", %d)' % (path, nbytes) if path else "aligned_alloc(64, %d)" % ((nbytes + 63) // 64 * 64 + 64)
    s = "  %s[%d].data = %s; %s[%d].dtype = %s; %s[%d].ndim = %d;\n" % (var, k, data, var, k, dtype, var, k,
                                                                      len(shape))
    stride = 1
    for d in reversed(range(len(shape))):
        s += "  %s[%d].sizes[%d] = %d; %s[%d].strides[%d] = %d;\n" % (var, k, d, shape[d], var, k, d, stride)
        stride *= shape[d]
    return s


def build(atenaot, model, inputs, work, compile_flags):
    """Compiles MODEL with `atenaot`, builds WORK/prof around it: (kernel
    calls, {function: comment}, C flags, compile's stdout). Exits with one
    line where atenaot or the inputs refuse."""
    try:
        r = subprocess.run([atenaot, "compile", model, "--inputs"] + inputs +
                           ["-o", work, "--name", "m", "--emit-only", "--quiet"] + compile_flags, capture_output=True,
                           text=True)
    except OSError as e:  # no such file, not executable
        sys.exit("kernel_profile: cannot run %s: %s" % (atenaot, e.strerror))
    if r.returncode != 0:
        sys.exit("kernel_profile: atenaot compile failed: " + (r.stderr.strip().split("\n") or [""])[-1])
    flags = re.search(r"compile's C flags here: (.*)\)$", r.stdout.strip(), re.M)
    if not flags:
        sys.exit("kernel_profile: atenaot compile --emit-only did not say its C flags: " + r.stdout.strip())
    build_flags = flags.group(1)
    src = open(os.path.join(work, "m.c")).read()
    body = re.search(r"static int aot__compute\(.*?\{\n(.*?)\n  \(void\)in;", src, re.S)
    calls = re.findall(r"  (aot_k\d+)\(in, out, arena, wts\);", body.group(1))
    timed = "\n".join("  { double t0 = prof_now(); %s(in, out, arena, wts); double t = prof_now() - t0;"
                      " if (t < prof_min[%d]) prof_min[%d] = t; }" % (c, i, i) for i, c in enumerate(calls))
    with open(os.path.join(work, "prof.c"), "w") as f:
        f.write(TIMER % len(calls) + src[:body.start(1)] + timed + src[body.end(1):])
    what = {}
    for comment, fn in re.findall(r"/\* ([^\n]*?) \*/\n(?:[^\n]*\n)??static void (aot_k\d+)(?:_part)?\(", src):
        what.setdefault(fn, comment)
    ins, outs = tensor_table(src, "aot__inputs"), tensor_table(src, "aot__outputs")
    if len(ins) != len(inputs):
        sys.exit("kernel_profile: the model takes %d inputs, %d given" % (len(ins), len(inputs)))
    setup = ""
    for k, (path, (dtype, shape)) in enumerate(zip(inputs, ins)):
        x = np.load(path)
        if dtype not in DTYPES or x.dtype != DTYPES[dtype] or list(x.shape) != shape:
            sys.exit("kernel_profile: input %d (%s) is %s%s; the model was compiled for %s%s" % (
                k, path, x.dtype, list(x.shape), dtype, shape))
        raw = os.path.join(work, "in_%d.bin" % k)
        np.ascontiguousarray(x).tofile(raw)
        setup += tensor_setup("in", k, dtype, shape, raw)
    for k, (dtype, shape) in enumerate(outs):
        if dtype not in DTYPES:
            sys.exit("kernel_profile: output %d has dtype %s, which this tool does not know" % (k, dtype))
        setup += tensor_setup("out", k, dtype, shape, None)
    with open(os.path.join(work, "prof_main.c"), "w") as f:
        f.write(DRIVER % dict(ni=len(ins), no=len(outs), nk=len(calls), setup=setup))
    # The flags `atenaot compile` builds with on this machine (its emit-only line says them), C11 for the timer.
    cflags = [f for f in build_flags.split() if f not in ("-std=c99", "-fPIC")]
    subprocess.check_call(["cc", "-std=c11"] + cflags + ["-w", "-I.", "-o", "prof", "prof.c", "prof_main.c",
                                                         "m_weights.S", "-lm", "-lpthread"], cwd=work)
    return calls, what, cflags, r.stdout


def run_prof(work, reps, threads):
    """`reps` runs of WORK/prof: (the fastest whole run, [(each kernel's
    fastest, its index)]), in us."""
    lines = subprocess.check_output(["./prof", str(reps), str(threads)], cwd=work, text=True).split("\n")
    return float(lines[0].split()[1]), [(float(t), int(i)) for i, t in (l.split() for l in lines[1:] if l.strip())]


def compare(base_work, work, reps, rounds, thread_counts):
    """The baseline's prof and this one's, taking turns: per thread count,
    `rounds` rounds of `reps` runs each side (each round's fastest run), the
    medians and the baseline / this ratio. On a busy machine this is the
    fair comparison: both sides see the same moments."""
    print("\nA/B against --baseline, %d alternating rounds of %d runs per side (each round's fastest run; us):"
          % (rounds, reps))
    print("| threads | baseline median | this median | baseline min | this min | speed-up (medians) |")
    print("|---:|---:|---:|---:|---:|---:|")
    for threads in thread_counts:
        base, this = [], []
        for _ in range(rounds):
            base.append(run_prof(base_work, reps, threads)[0])
            this.append(run_prof(work, reps, threads)[0])
        mb, mt = statistics.median(base), statistics.median(this)
        print("| %d | %.1f | %.1f | %.1f | %.1f | %.3fx |" % (threads, mb, mt, min(base), min(this), mb / mt))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("model")
    ap.add_argument("inputs", nargs="+")
    ap.add_argument("--atenaot", default="bazel-bin/atenaot")
    ap.add_argument("--threads", default="1")
    ap.add_argument("--reps", type=int, default=30)
    ap.add_argument("--top", type=int, default=20)
    ap.add_argument("--work")
    ap.add_argument("--kernels", action="store_true")
    ap.add_argument("--compile-flag", action="append", default=[],
                    help="passed on to `atenaot compile` (repeat it: --compile-flag=--winograd --compile-flag=2)")
    ap.add_argument("--baseline", help="another atenaot CLI: its build of the model against this one, alternating")
    ap.add_argument("--rounds", type=int, default=10, help="alternating rounds per thread count with --baseline")
    a = ap.parse_args()
    work = a.work or tempfile.mkdtemp(prefix="kernel_profile_")
    calls, what, cflags, compile_out = build(a.atenaot, a.model, a.inputs, work, a.compile_flag)
    sys.stdout.write(compile_out)
    print("%s, %d kernels, built %s; %d runs per thread count (fastest kept); work dir %s" % (
        a.model, len(calls), " ".join(cflags), a.reps, work))
    for threads in [int(t) for t in a.threads.split(",")]:
        whole, per = run_prof(work, a.reps, threads)
        total = sum(t for t, _ in per)
        groups = {}
        for t, i in per:
            key = re.sub(r"%\S+ = ", "", what.get(calls[i], "?")).split(",")[0]
            g = groups.setdefault(key, [0.0, 0])
            g[0] += t
            g[1] += 1
        print("\n%d thread(s): whole run %.1f us; per-kernel minima sum to %.1f us" % (threads, whole, total))
        print("| us | share | kernels | what |\n|---:|---:|---:|---|")
        for key, (t, n) in sorted(groups.items(), key=lambda kv: -kv[1][0])[:a.top]:
            # A model whose kernels all round to 0 us (a tiny one on a fast CPU) has no shares.
            share = "%.1f%%" % (100 * t / total) if total > 0 else "-"
            print("| %.1f | %s | %d | %s |" % (t, share, n, key))
        if a.kernels:
            print("\n| us | kernel | what |\n|---:|---|---|")
            for t, i in sorted(per, reverse=True)[:a.top]:
                print("| %.1f | k%d | %s |" % (t, i, what.get(calls[i], "?")))
    if a.baseline:
        base_work = os.path.join(work, "baseline")
        os.makedirs(base_work, exist_ok=True)
        build(a.baseline, a.model, a.inputs, base_work, a.compile_flag)
        compare(base_work, work, a.reps, a.rounds, [int(t) for t in a.threads.split(",")])
    return 0


if __name__ == "__main__":
    sys.exit(main())
