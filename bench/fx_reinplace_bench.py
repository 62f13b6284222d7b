#!/usr/bin/python3
"""atenaot.fx.reinplace vs torch.fx.passes.reinplace on FX graphs of 1k-16k nodes.

The graph (built with torch.fx.Graph, no tracing, so building is instant):
the functional form of a chain over a 64-element vector, alternating
`v = add(v, x)` and `v = mul(v, 0.5)`, every 10th step a write into a slice
of the intermediate as functionalize emits it: `s = slice(v, 0, 8, 40);
a = add(s, 1); v = slice_scatter(v, a, 0, 8, 40)`.

Both passes get a fresh copy of the same GraphModule and the same sample
input, timed in this one run with time.perf_counter (wall) and getrusage
(CPU of this process and of its reaped children, i.e. the tool: less
sensitive to a busy machine than wall time):
  torch:   torch.fx.passes.reinplace(gm, x) (includes its fake-tensor
           propagation). Quadratic, so it only runs up to --torch-max nodes
           (default 4,000; 16k nodes took PyTorch 262 s in issue 19).
  atenaot: atenaot.fx.reinplace(gm, x) end to end, what a Python user pays
           (the median of 5 calls, each on a fresh copy): FX -> IR text
           (with one real run for the alias metadata), the passes
           (LibTorch-free: libatenaot_passes.so in this process; the
           `atenaot-passes` process, or `atenaot dump`, where it is not
           built), IR text -> FX (GraphModule code generation included).
           Then its steps once more, each timed: to_ir / passes / pass /
           from_ir; *pass* is the passes' own `time: reinplace` line
           (--time-passes).
Every result is run on x and compared with the original graph's output.

Usage: /usr/bin/python3 bench/fx_reinplace_bench.py [--atenaot bazel-bin/atenaot]
           [--nodes 1000,4000,16000] [--torch-max 4000] [--out bench/fx_reinplace.md]
"""
import argparse
import datetime
import os
import platform
import re
import resource
import shlex
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "python"))

import torch  # noqa: E402
from torch.fx.passes.reinplace import reinplace as torch_reinplace  # noqa: E402

import _common  # noqa: E402
from atenaot import _cli, _passes_lib, fx_ir  # noqa: E402
from atenaot import fx as atenaot_fx  # noqa: E402

aten = torch.ops.aten
ELEMS = 64


def chain_graph(nodes):
    """A GraphModule of about `nodes` call_function nodes."""
    g = torch.fx.Graph()
    x = g.placeholder("x")

    def op(target, args):
        # Numbered names: torch 1.13's FX searches for a free suffix from 0, quadratic over same-named nodes.
        return g.create_node("call_function", target, args, name="%s_%d" % (target.__name__.split(".")[0], made))
    made = 0
    v = op(aten.mul.Tensor, (x, 1.0))
    i, made = 0, 1
    while made < nodes:
        if i % 10 == 9:
            s = op(aten.slice.Tensor, (v, 0, 8, 40))
            a = op(aten.add.Tensor, (s, 1))
            v = op(aten.slice_scatter.default, (v, a, 0, 8, 40))
            made += 3
        elif i % 2 == 0:
            v = op(aten.add.Tensor, (v, x))
            made += 1
        else:
            v = op(aten.mul.Tensor, (v, 0.5))
            made += 1
        i += 1
    g.output(v)
    return torch.fx.GraphModule(torch.nn.Module(), g)


def count(gm, pred):
    return sum(1 for n in gm.graph.nodes if n.op == "call_function" and pred(n))


def inplace(n):
    return n.target._schema.name.endswith("_")


def allocating(n):
    return any(r.alias_info is None for r in n.target._schema.returns)


TIME_RE = re.compile(r"^time: reinplace ([0-9.eE+-]+) ms\s*$", re.M)


def cpu_s():
    """CPU seconds of this process and its reaped children (the tool)."""
    own, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def timed(f, *args):
    """(f(*args), wall s, CPU s)."""
    wall, cpu = time.perf_counter(), cpu_s()
    out = f(*args)
    return out, time.perf_counter() - wall, cpu_s() - cpu


def atenaot_total(nodes, x, runs=5):
    """(gm, wall s, CPU s) of atenaot.fx.reinplace on fresh chain graphs:
    the medians of `runs` calls (one call is short enough for a busy
    machine's noise to dominate it)."""
    walls, cpus = [], []
    for _ in range(runs):
        out, wall, cpu = timed(atenaot_fx.reinplace, chain_graph(nodes), x)
        walls.append(wall)
        cpus.append(cpu)
    return out, statistics.median(walls), statistics.median(cpus)


def atenaot_steps(cli, gm, x):
    """atenaot.fx.reinplace's steps, each timed, the passes run as it runs
    them (the cyclic collector paused, as it does): (gm, to_ir s, passes s,
    pass s, from_ir s)."""
    with atenaot_fx.collector_paused():
        return _atenaot_steps(cli, gm, x)


def _atenaot_steps(cli, gm, x):
    t0 = time.perf_counter()
    text, extra = fx_ir.to_ir(gm, (x,))
    t1 = time.perf_counter()
    lib = _passes_lib.find_passes_lib()
    if lib:
        out_text, log = _passes_lib.run_passes(lib, text, "reinplaced", time_passes=True, verify_ends_only=True)
        t2 = time.perf_counter()
        out = fx_ir.from_ir(out_text, gm, extra)
        t3 = time.perf_counter()
        return out, t1 - t0, t2 - t1, float(TIME_RE.findall(log)[0]) / 1e3, t3 - t2
    with tempfile.TemporaryDirectory(prefix="fx_bench_") as d:
        path = os.path.join(d, "g.ir")
        with open(path, "w") as f:
            f.write(text)
        tool = _cli.find_passes_tool()
        cmd = [tool, "--stage", "reinplaced", "--time-passes", "--verify-ends-only", path] if tool else \
            [cli, "dump", path, "--stage", "reinplaced", "--time-passes"]
        p = subprocess.run(cmd,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True)
    t2 = time.perf_counter()
    if p.returncode != 0:
        raise RuntimeError(" ".join(cmd[:1]) + " failed: " + p.stderr.strip()[-500:])
    out = fx_ir.from_ir(p.stdout, gm, extra)
    t3 = time.perf_counter()
    pass_s = float(TIME_RE.findall(p.stderr)[0]) / 1e3
    return out, t1 - t0, t2 - t1, pass_s, t3 - t2


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--atenaot", default=os.path.join(os.path.dirname(HERE), "bazel-bin", "atenaot"))
    ap.add_argument("--nodes", default="1000,4000,16000")
    ap.add_argument("--torch-max", type=int, default=4000, help="largest graph torch's pass runs on")
    ap.add_argument("--out", default=os.path.join(HERE, "fx_reinplace.md"))
    args = ap.parse_args()
    cli = os.path.abspath(args.atenaot)
    os.environ["ATENAOT"] = cli
    x = torch.randn(ELEMS, generator=torch.Generator().manual_seed(0))
    rows = []
    load_before = os.getloadavg()[0]
    start = time.perf_counter()
    for nodes in [int(s) for s in args.nodes.split(",") if s]:
        gm = chain_graph(nodes)
        n = count(gm, lambda _: True)
        expected = gm(x.clone())
        ours, total, total_cpu = atenaot_total(nodes, x)
        assert torch.allclose(ours(x.clone()), expected), "atenaot's result differs at %d nodes" % n
        steps, to_ir_s, cli_s, pass_s, from_ir_s = atenaot_steps(cli, chain_graph(nodes), x)
        assert torch.allclose(steps(x.clone()), expected), "atenaot's steps differ at %d nodes" % n
        row = {"nodes": n, "at_total": total, "at_cpu": total_cpu, "runner": runner(),
               "to_ir": to_ir_s, "cli": cli_s, "pass": pass_s, "from_ir": from_ir_s,
               "at_inplace": count(ours, inplace), "at_alloc": count(ours, allocating)}
        if n <= args.torch_max:
            theirs, row["pt"], row["pt_cpu"] = timed(torch_reinplace, chain_graph(nodes), x.clone())
            assert torch.allclose(theirs(x.clone()), expected), "torch's result differs at %d nodes" % n
            row["pt_inplace"], row["pt_alloc"] = count(theirs, inplace), count(theirs, allocating)
        rows.append(row)
        print(row, flush=True)
    elapsed = time.perf_counter() - start
    write(args, rows, elapsed, load_before, os.getloadavg()[0])
    print("whole script %.0f s; wrote %s" % (elapsed, args.out))


def runner():
    """How atenaot.fx ran the passes in this run."""
    if _passes_lib.find_passes_lib():
        return "libatenaot_passes.so, in process"
    return "the atenaot-passes process" if _cli.find_passes_tool() else "the `atenaot dump` process"


def fmt(s):
    return "%.2f" % s if s >= 1 else ("%.4f" % s if s >= 1e-3 else "%.2e" % s)


def write(args, rows, elapsed, load_before, load_after):
    cmd = "/usr/bin/python3 bench/fx_reinplace_bench.py " + " ".join(shlex.quote(a) for a in sys.argv[1:])
    lines = [
        "# atenaot.fx.reinplace vs torch.fx.passes.reinplace on FX graphs",
        "",
        "Command: `%s`  " % cmd.strip(),
        "Date: %s  " % datetime.date.today().isoformat(),
        "Machine: %s  " % _common.machine(),
        "torch %s, Python %s; atenaot %s  " % (torch.__version__, platform.python_version(), _common.git_rev()),
        "Whole script: %.0f s; 1-minute load average %.2f before, %.2f after (the machine is shared: times are "
        "noisy)" % (elapsed, load_before, load_after),
        "",
        "Graph: the functional chain described in `bench/fx_reinplace_bench.py` (add/mul steps, every 10th a "
        "slice + add + slice_scatter). torch's pass runs up to %s nodes only (quadratic)." % format(args.torch_max, ","),
        "*atenaot total* is `atenaot.fx.reinplace` end to end, the median of 5 calls (torch: 1 call); *CPU* "
        "counts this process and the tool's (getrusage), less sensitive to a busy machine than wall time. "
        "*to_ir*, *passes* (parse, pipeline and print, run by %s), *pass* (atenaot's reinplace pass alone, "
        "inside them) and *from_ir* (GraphModule code generation included) are wall times of one more call "
        "of the same steps. Once per process atenaot.fx loads the library, parses its op table and checks its "
        "code generation against FX's: in the first call at the smallest size (one of the five of its median). "
        "Both results equal the original graph's output on x." % rows[0]["runner"],
        "",
        "| nodes | torch s | atenaot total s | to_ir | passes | pass | from_ir | torch / atenaot total "
        "| torch CPU s | atenaot CPU s | torch / atenaot CPU | torch / pass "
        "| in-place ops torch / atenaot | allocating ops torch / atenaot |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        has = "pt" in r
        lines.append("| %s |" % " | ".join([
            format(r["nodes"], ","), fmt(r["pt"]) if has else "not run", fmt(r["at_total"]), fmt(r["to_ir"]),
            fmt(r["cli"]), fmt(r["pass"]), fmt(r["from_ir"]),
            "%.1f" % (r["pt"] / r["at_total"]) if has else "-",
            fmt(r["pt_cpu"]) if has else "-", fmt(r["at_cpu"]),
            "%.1f" % (r["pt_cpu"] / r["at_cpu"]) if has else "-",
            format(int(r["pt"] / r["pass"]), ",") if has else "-",
            "%s / %s" % (format(r["pt_inplace"], ",") if has else "-", format(r["at_inplace"], ",")),
            "%s / %s" % (format(r["pt_alloc"], ",") if has else "-", format(r["at_alloc"], ","))]))
    with open(args.out, "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    sys.exit(main())
