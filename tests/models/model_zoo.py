#!/usr/bin/python3
"""The model zoo: traces each model (tests/models/zoo_models.py: random
weights, eval mode, nothing downloaded), compiles it with `atenaot compile`,
runs it through the C ABI (`atenaot exec`) and compares every output with
eager PyTorch. Prints a table and, with --table, writes it as Markdown.

usage: /usr/bin/python3 tests/models/model_zoo.py --atenaot BIN [--work DIR]
           [--small | --all | MODEL...] [--table FILE] [--check]

  (default)  the small models plus one torchvision model per family
  --small    the small models only (what CI runs)
  --all      every torchvision classification model except the ones listed
             in zoo_models.TORCHVISION_LEFT_OUT, plus the small models
  --check    exit 1 unless every model's status is the one EXPECTED below
             (models not listed there must be "ok")

Columns: ops (aten:: nodes in the traced graph), status, max error relative
to the output's scale (max |compiled - eager| / max |eager| over all outputs),
arena vs eager peak (from `atenaot plan`), build time (`atenaot compile`).
A model passes ("ok") when that relative error is at most 1e-4 for floats and
integer outputs are equal. Tracing fails a model whose outputs hardly depend
on its input (less than 1e-3 of their scale on a second input): comparing
those with eager would not check the kernels.
"""

import argparse
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import warnings

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import zoo_models  # noqa: E402

REL_TOL = 1e-4
TRACE_LIMIT_S = 60

# Models known not to compile yet, with the cause (issue 14's item numbers).
# --check fails when one of these starts passing, so the list stays true.
EXPECTED = {}


class TraceTimeout(Exception):
    pass


def _flatten(y):
    if isinstance(y, (tuple, list)):
        return [t for e in y for t in _flatten(e)]
    return [y]


def trace(name, d):
    """Traces NAME into directory d; returns the number of aten:: ops."""
    m, inputs, grad = zoo_models.build(name)
    return trace_module(name, m, inputs, grad, d)


def trace_module(name, m, inputs, grad, d):
    """Traces module m (named `name` in errors) on inputs, with autograd as
    `grad` says, into directory d: model.pt, input_K.npy and
    expected/output_K.npy (eager's outputs); returns the number of aten::
    ops."""
    import torch
    os.makedirs(os.path.join(d, "expected"), exist_ok=True)
    for k, t in enumerate(inputs):
        np.save(os.path.join(d, "input_%d.npy" % k), t.contiguous().numpy())

    def on_alarm(signum, frame):
        raise TraceTimeout()
    old = signal.signal(signal.SIGALRM, on_alarm)
    signal.alarm(TRACE_LIMIT_S)
    try:
        with torch.set_grad_enabled(grad), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            y = m(*[t.clone() for t in inputs])
            _check_input_matters(name, y, m(*[_other(t) for t in inputs]))
            traced = torch.jit.trace(m, tuple(t.clone() for t in inputs), check_trace=False)
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)
    traced.save(os.path.join(d, "model.pt"))
    for k, t in enumerate(_flatten(y)):
        np.save(os.path.join(d, "expected", "output_%d.npy" % k), t.detach().contiguous().numpy())
    return sum(1 for n in traced.inlined_graph.nodes() if n.kind().startswith("aten::"))


def _other(t):
    """Another input like t: floats redrawn (seeded), integers (token ids) moved to the next id in their range."""
    import torch
    if t.is_floating_point():
        return torch.randn(t.shape, generator=torch.Generator().manual_seed(zoo_models.SEED + 9), dtype=t.dtype)
    if t.dtype == torch.bool or not t.numel():
        return t.clone()
    return (t + 1) % (int(t.max()) + 1)


def _check_input_matters(name, y, y_other):
    """Raises unless some float output moves by at least 1e-3 of its scale on
    another input: an output that ignores its input (activations vanished:
    GoogLeNet's logits before the zoo calibrated BatchNorm) would equal eager
    whatever the compiled kernels computed."""
    outs = [(a, b) for a, b in zip(_flatten(y), _flatten(y_other)) if a.is_floating_point() and a.numel()]
    if not outs:
        return
    moved = max(float((a - b).abs().max()) / max(float(a.abs().max()), 1e-30) for a, b in outs)
    if moved < 1e-3:
        raise ValueError("%s: the outputs hardly depend on the input (%.1e of their scale between two inputs)"
                         % (name, moved))


def _last_line(proc):
    lines = [l for l in (proc.stderr + proc.stdout).splitlines() if l.strip()]
    errs = [l for l in lines if "error" in l.lower()]
    line = errs[-1] if errs else (lines[-1] if lines else "exit %d" % proc.returncode)
    return " ".join(line.split())[:240]


def _run(cmd, timeout):
    try:
        return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return subprocess.CompletedProcess(cmd, 124, "", "error: timed out after %d s" % timeout)


def compare(expected_dir, actual_dir):
    """Max error relative to the output scale over all outputs, or a string
    saying why the outputs cannot be compared."""
    worst = 0.0
    for f in sorted(os.listdir(expected_dir)):
        e = np.load(os.path.join(expected_dir, f))
        path = os.path.join(actual_dir, f)
        if not os.path.exists(path):
            return "missing " + f
        a = np.load(path)
        if a.shape != e.shape or a.dtype != e.dtype:
            return "%s: got %s %s, eager %s %s" % (f, a.dtype, a.shape, e.dtype, e.shape)
        if e.size == 0:
            continue
        if not np.issubdtype(e.dtype, np.floating):
            if not np.array_equal(a, e):
                return "%s: integer outputs differ" % f
            continue
        e64, a64 = e.astype(np.float64), a.astype(np.float64)
        if not np.array_equal(np.isnan(e64), np.isnan(a64)):
            return "%s: NaN in different places" % f
        fin = np.isfinite(e64)
        if not np.array_equal(a64[~fin & ~np.isnan(e64)], e64[~fin & ~np.isnan(e64)]):
            return "%s: infinities differ" % f
        if fin.any():
            scale = max(np.abs(e64[fin]).max(), 1e-30)
            worst = max(worst, np.abs(a64[fin] - e64[fin]).max() / scale)
    return worst


def run_model(name, atenaot, work):
    row = {"model": name, "ops": "", "status": "", "err": "", "arena": "", "build": ""}
    d = os.path.join(work, name)
    shutil.rmtree(d, ignore_errors=True)
    try:
        row["ops"] = trace(name, d)
    except TraceTimeout:
        row["status"] = "trace over %d s" % TRACE_LIMIT_S
        return row
    except Exception as e:  # noqa: BLE001 - any tracing failure is reported
        row["status"] = "trace failed: " + " ".join(str(e).split())[:200]
        return row
    inputs = sorted(os.path.join(d, f) for f in os.listdir(d) if f.startswith("input_"))
    model = os.path.join(d, "model.pt")
    t0 = time.time()
    p = _run([atenaot, "compile", model, "--inputs"] + inputs + ["-o", os.path.join(d, "lib"), "--name", "m"], 1200)
    row["build"] = "%.1f s" % (time.time() - t0)
    if p.returncode != 0:
        row["status"], row["build"] = "compile: " + _last_line(p), ""
        return row
    p = _run([atenaot, "exec", os.path.join(d, "lib"), "--name", "m", "--inputs"] + inputs +
             ["--out-dir", os.path.join(d, "out")], 600)
    if p.returncode != 0:
        row["status"] = "exec: " + _last_line(p)
        return row
    err = compare(os.path.join(d, "expected"), os.path.join(d, "out"))
    if isinstance(err, str):
        row["status"] = "differs: " + err
    else:
        row["err"] = "%.1e" % err
        row["status"] = "ok" if err <= REL_TOL else "differs"
    p = _run([atenaot, "plan", model, "--inputs"] + inputs, 600)
    arena = re.search(r"^arena:\s+(\d+) B", p.stdout, re.M)
    eager = re.search(r"^eager peak:\s+(\d+) B", p.stdout, re.M)
    if arena and eager:
        row["arena"] = "%s / %s" % (_mib(int(arena.group(1))), _mib(int(eager.group(1))))
    shutil.rmtree(os.path.join(d, "lib"), ignore_errors=True)  # large for the big models
    return row


def _mib(n):
    return "%.2f MiB" % (n / 2**20)


COLUMNS = [("model", "model"), ("ops", "ops"), ("status", "status"),
           ("err", "max err / scale"), ("arena", "arena / eager peak"), ("build", "build")]


def table(rows):
    lines = ["| " + " | ".join(h for _, h in COLUMNS) + " |",
             "|" + "|".join("---" for _ in COLUMNS) + "|"]
    for r in rows:
        lines.append("| " + " | ".join(str(r[k]).replace("|", "/") for k, _ in COLUMNS) + " |")
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__.strip().splitlines()[0])
    ap.add_argument("--atenaot", required=True)
    ap.add_argument("--work")
    ap.add_argument("--small", action="store_true")
    ap.add_argument("--all", action="store_true")
    ap.add_argument("--table")
    ap.add_argument("--check", action="store_true")
    ap.add_argument("models", nargs="*")
    a = ap.parse_args()
    if a.models:
        names = a.models
    elif a.small:
        names = zoo_models.SMALL
    elif a.all:
        names = zoo_models.SMALL + [n for n in zoo_models.all_torchvision() if n not in zoo_models.SMALL]
    else:
        names = zoo_models.SMALL + [n for n in zoo_models.TORCHVISION_DEFAULT if n not in zoo_models.SMALL]
    work = a.work or tempfile.mkdtemp(prefix="model_zoo.")
    import torch
    torch.set_num_threads(1)
    rows, bad = [], []
    for name in names:
        t0 = time.time()
        row = run_model(name, os.path.abspath(a.atenaot), work)
        rows.append(row)
        print("%-40s %-8s %s (%.0f s)" % (name, row["err"], row["status"], time.time() - t0), flush=True)
        want = EXPECTED.get(name)
        if want is None and row["status"] != "ok":
            bad.append("%s: %s" % (name, row["status"]))
        elif want is not None and row["status"] == "ok":
            bad.append("%s now passes: remove it from EXPECTED" % name)
    ok = sum(r["status"] == "ok" for r in rows)
    summary = "%d of %d models compile and equal eager" % (ok, len(rows))
    print(summary)
    if a.table:
        with open(a.table, "w") as f:
            f.write("# Model zoo\n\nCommand: `bazel build //:atenaot && /usr/bin/python3 "
                    "tests/models/model_zoo.py --atenaot bazel-bin/atenaot %s--table %s`\n\n"
                    % ("--all " if a.all else "--small " if a.small else "", a.table))
            f.write("Torch %s, %s, %s.\n\n%s.\n\n" % (torch.__version__, time.strftime("%Y-%m-%d"),
                                                 _machine(), summary))
            f.write("Left out of --all: " + "; ".join("%s (%s)" % kv for kv in
                                                     zoo_models.TORCHVISION_LEFT_OUT.items()) + ".\n\n")
            f.write(table(rows) + "\n")
    if a.check and bad:
        print("FAILED:\n  " + "\n  ".join(bad))
        return 1
    return 0


def _machine():
    cpu = ""
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return "%s, %d CPUs" % (cpu or "unknown CPU", os.cpu_count() or 0)


if __name__ == "__main__":
    sys.exit(main())
