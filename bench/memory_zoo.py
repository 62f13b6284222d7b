#!/usr/bin/python3
"""Arena vs LibTorch eager's peak over the model zoo, and what the
memory-aware op order (issue 17) gains over the traced order.

For every model of tests/models/zoo_models.py (traced with random seeded
weights, nothing downloaded):
  atenaot plan MODEL --inputs X... --json J --time-passes
      arena_bytes (the compiled library's arena: fused values take no space),
      lower_bound_bytes (LOAD in the scheduled order),
      lower_bound_unscheduled_bytes (LOAD in the traced order),
      eager_peak_bytes (LibTorch's allocator, op by op), and the planning
      time (the `time: plan` line: schedule + placement)

Usage: /usr/bin/python3 bench/memory_zoo.py --atenaot bazel-bin/atenaot
           [--out bench/memory_zoo.md] [--small] [MODEL...]
Default models: the zoo's small set plus one torchvision model per family.
"""

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(REPO, "tests", "models"))
import model_zoo  # noqa: E402
import zoo_models  # noqa: E402

# Issue 17's goals for the scheduled order vs the traced one.
BRANCHY = ["googlenet", "densenet121", "multihead_attention"]


def plan(atenaot, name, work):
    """{'ops', 'arena', 'load', 'load_traced', 'eager', 'plan_ms'} or {'error'}."""
    d = os.path.join(work, name)
    try:
        ops = model_zoo.trace(name, d)
    except Exception as e:  # noqa: BLE001 - any tracing failure is reported
        return {"error": "trace: " + " ".join(str(e).split())[:150]}
    inputs = sorted(os.path.join(d, f) for f in os.listdir(d) if f.startswith("input_"))
    j = os.path.join(d, "plan.json")
    p = subprocess.run([atenaot, "plan", os.path.join(d, "model.pt"), "--inputs"] + inputs +
                       ["--json", j, "--svg", os.path.join(d, "plan.svg"), "--time-passes"], capture_output=True,
                       text=True, timeout=1200)
    if p.returncode != 0:
        return {"error": "plan: " + (p.stderr.strip().splitlines() or ["exit %d" % p.returncode])[-1][:150]}
    r = json.load(open(j))
    ms = [float(x) for x in re.findall(r"^time: (?:schedule|plan) ([0-9.eE+-]+) ms", p.stderr, re.M)]
    return {"ops": ops, "arena": r["arena_bytes"], "load": r["lower_bound_bytes"],
            "load_traced": r["lower_bound_unscheduled_bytes"], "eager": r["eager_peak_bytes"],
            "plan_ms": sum(ms) if ms else None}


def mib(n):
    return "%.2f" % (n / 2**20)


def report(rows, cmd):
    ok = [(n, r) for n, r in rows if "error" not in r]
    L = ["# Memory over the model zoo (issue 17)", "",
         "Command: `%s`  " % cmd,
         "Machine: %s; %s. Sizes in MiB. *arena* is the compiled library's (fused values take no "
         "space); *eager peak* is LibTorch's allocator running the same graph op by op; *LOAD* is the "
         "most bytes live at once, in the traced order and in the order `--schedule memory` picks; "
         "*plan* is the time of scheduling + placement." % (model_zoo._machine(), time.strftime("%Y-%m-%d")), "",
         "| model | ops | arena | eager peak | arena / eager | LOAD traced | LOAD scheduled | scheduled / traced | plan |",
         "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for n, r in rows:
        if "error" in r:
            L.append("| %s | | | | %s | | | | |" % (n, r["error"].replace("|", "/")))
            continue
        L.append("| %s | %s | %s | %s | %.2f | %s | %s | %.3f | %s |" % (
            n, r["ops"], mib(r["arena"]), mib(r["eager"]), r["arena"] / r["eager"], mib(r["load_traced"]),
            mib(r["load"]), r["load"] / r["load_traced"] if r["load_traced"] else 1.0,
            "%.1f ms" % r["plan_ms"] if r["plan_ms"] is not None else "?"))
    L.append("")
    if ok:
        ratios = [r["arena"] / r["eager"] for _, r in ok]
        worst = max(ok, key=lambda nr: nr[1]["arena"] / nr[1]["eager"])
        L.append("Goals: median arena / eager peak %.2f (goal <= 0.5: %s); worst %.2f on %s (goal <= 0.8: %s)." % (
            statistics.median(ratios), "met" if statistics.median(ratios) <= 0.5 else "not met",
            max(ratios), worst[0], "met" if max(ratios) <= 0.8 else "not met"))
        br = [(n, r["load"] / r["load_traced"]) for n, r in ok if n in BRANCHY and r["load_traced"]]
        if br:
            L.append("Scheduled / traced LOAD on the branchy models (goal <= 0.85): " +
                     ", ".join("%s %.3f" % nr for nr in br) + ".")
        slow = max(ok, key=lambda nr: nr[1]["plan_ms"] or 0)
        L.append("Slowest planning: %s, %.1f ms for %s ops." % (slow[0], slow[1]["plan_ms"] or 0, slow[1]["ops"]))
    return "\n".join(L) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.strip().splitlines()[0])
    ap.add_argument("--atenaot", required=True)
    ap.add_argument("--out")
    ap.add_argument("--small", action="store_true")
    ap.add_argument("--keep", help="trace and plan into this directory (each model's model.pt, plan.json and plan.svg"
                    " stay there; default: a temporary one)")
    ap.add_argument("models", nargs="*")
    a = ap.parse_args()
    names = a.models or (zoo_models.SMALL if a.small else
                         zoo_models.SMALL + [n for n in zoo_models.TORCHVISION_DEFAULT if n not in zoo_models.SMALL])
    import torch
    torch.set_num_threads(1)
    work = os.path.abspath(a.keep) if a.keep else tempfile.mkdtemp(prefix="memory_zoo.")
    os.makedirs(work, exist_ok=True)
    rows = []
    for n in names:
        t0 = time.time()
        rows.append((n, plan(os.path.abspath(a.atenaot), n, work)))
        print("%-40s %s (%.0f s)" % (n, rows[-1][1].get("error", "ok"), time.time() - t0), flush=True)
    cmd = "/usr/bin/python3 bench/memory_zoo.py --atenaot bazel-bin/atenaot" + \
          (" --small" if a.small and not a.models else "") + (" " + " ".join(a.models) if a.models else "") + \
          (" --out " + a.out if a.out else "")
    text = report(rows, cmd)
    if a.out:
        open(a.out, "w").write(text)
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
