#!/usr/bin/python3
"""Assembles bench/RESULTS.md and bench/memory.svg from the raw reports that
bench/make_results.sh collects into WORK (run that script, not this one).

usage: make_results.py WORK [--out bench/RESULTS.md] [--svg bench/memory.svg]
                            [--speed-svg bench/speedup.svg]

WORK holds, per step, STEP.md (the step's own report), STEP.cmd (the command
that produced it), STEP.rc (its exit status) and STEP.log; plan_quality/ holds
the JSON that `atenaot plan --json` wrote (MODEL_best.json). Standard library
only. Each table is preceded by the command that produced it and the
machine, once.
"""
import argparse
import datetime
import json
import os
import platform
import shutil
import sys

import _common

REPO = _common.REPO


read = _common.read
host_machine = _common.machine
git_rev = _common.git_rev


def tables(md):
    """The markdown tables of a report: lists of row lines (header, rule, rows)."""
    out, cur = [], []
    for line in md.splitlines():
        if line.startswith("|"):
            cur.append(line.rstrip())
        elif cur:
            out.append(cur)
            cur = []
    if cur:
        out.append(cur)
    return out


def cells(row):
    return [c.strip() for c in row.strip().strip("|").split("|")]


def speedups(md):
    """[(model, speed-up 1 thread, speed-up all threads)] from the
    compiled-vs-eager report's table."""
    for t in tables(md):
        head = cells(t[0])
        if "speed-up 1T" in head and "speed-up" in head:
            i1, ia = head.index("speed-up 1T"), head.index("speed-up")
            out = []
            for r in t[2:]:
                c = cells(r)
                try:
                    out.append((c[0], float(c[i1].rstrip("x")), float(c[ia].rstrip("x"))))
                except (ValueError, IndexError):
                    pass
            return out
    return []


def speed_svg(rows, command, machine):
    """Horizontal bars per model: compiled speed-up over eager with one
    thread and with all threads, on a log2 axis (1x = parity, dashed)."""
    import math
    left, top, bar_h, gap, group_gap, width = 150, 70, 14, 2, 14, 520
    lo = min(0.25, min(min(a, b) for _, a, b in rows))
    hi = max(4.0, max(max(a, b) for _, a, b in rows))
    l2lo, l2hi = math.floor(math.log2(lo)), math.ceil(math.log2(hi))
    x_of = lambda v: left + (math.log2(v) - l2lo) / float(l2hi - l2lo) * width  # noqa: E731
    group_h = 2 * (bar_h + gap) + group_gap
    height = top + len(rows) * group_h + 60
    total_w = left + width + 90
    o = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" '
         'font-family="sans-serif" font-size="12">' % (total_w, height, total_w, height),
         '<rect width="100%" height="100%" fill="white"/>',
         '<text x="10" y="22" font-size="15" font-weight="bold">Compiled library vs LibTorch eager: speed-up</text>',
         '<text x="10" y="40" fill="#444">eager time / compiled time, log scale; right of the dashed line is '
         'faster than eager</text>']
    for e in range(l2lo, l2hi + 1):
        x = x_of(2.0 ** e)
        o.append('<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="%s"%s/>' % (
            x, top - 8, x, top + len(rows) * group_h - group_gap, "#333" if e == 0 else "#ddd",
            ' stroke-dasharray="4,3"' if e == 0 else ""))
        o.append('<text x="%.1f" y="%d" text-anchor="middle" fill="#666">%gx</text>' % (x, top - 12, 2.0 ** e))
    series = [("1 thread", 1, "#1f77b4"), ("all threads", 2, "#ff7f0e")]
    x1 = x_of(1.0)
    for gi, row in enumerate(rows):
        y0 = top + gi * group_h
        o.append('<text x="%d" y="%.1f" text-anchor="end" font-weight="bold">%s</text>' % (
            left - 10, y0 + bar_h + 4, esc(row[0])))
        for si, (label, k, color) in enumerate(series):
            v = row[k]
            y = y0 + si * (bar_h + gap)
            x = x_of(v)
            o.append('<rect x="%.1f" y="%d" width="%.1f" height="%d" fill="%s"><title>%s %s: %.2fx</title></rect>' % (
                min(x, x1), y, max(1.0, abs(x - x1)), bar_h, color, esc(row[0]), label, v))
            o.append('<text x="%.1f" y="%d" fill="#222">%.2fx</text>' % (max(x, x1) + 4, y + bar_h - 3, v))
    ly, lx = height - 44, 10
    for label, _, color in series:
        o.append('<rect x="%d" y="%d" width="12" height="12" fill="%s"/>' % (lx, ly, color))
        o.append('<text x="%d" y="%d">%s</text>' % (lx + 16, ly + 10, label))
        lx += 40 + 7 * len(label)
    o.append('<text x="10" y="%d" fill="#666" font-size="10">%s</text>' % (height - 22, esc(command[:160])))
    o.append('<text x="10" y="%d" fill="#666" font-size="10">%s</text>' % (height - 8, esc(machine[:160])))
    o.append("</svg>")
    return "\n".join(o) + "\n"


def step(work, name):
    return {
        "md": read(os.path.join(work, name + ".md")),
        "cmd": read(os.path.join(work, name + ".cmd")).strip(),
        "rc": read(os.path.join(work, name + ".rc"), "missing").strip(),
        "log": read(os.path.join(work, name + ".log")),
        "secs": read(os.path.join(work, name + ".secs"), "?").strip(),
    }


def failure_note(s):
    tail = "\n".join(s["log"].strip().splitlines()[-8:])
    return ["", "**This step failed** (exit %s): `%s`" % (s["rc"], s["cmd"]), "", "```", tail, "```", ""]


def kib(b):
    return "%s KiB" % format(round(b / 1024.0, 1), ",")


def memory_svg(models, command, machine):
    """Grouped bars per model: arena, LOAD, naive, eager peak, relative to
    eager's peak (1.0), each labelled with its size."""
    series = [("arena", "arena_bytes", "#1f77b4"), ("LOAD (lower bound)", "lower_bound_bytes", "#2ca02c"),
              ("naive (no reuse)", "naive_bytes", "#ff7f0e"), ("LibTorch eager peak", "eager_peak_bytes", "#7f7f7f")]
    left, top, bar_h, gap, group_gap, width = 130, 70, 16, 3, 22, 560
    rel_max = max(j[k] / float(j["eager_peak_bytes"]) for _, j in models for _, k, _ in series)
    rel_max = max(1.0, rel_max)
    scale = width / (rel_max * 1.08)
    group_h = len(series) * (bar_h + gap) + group_gap
    height = top + len(models) * group_h + 70
    total_w = left + width + 170
    o = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" '
         'font-family="sans-serif" font-size="12">' % (total_w, height, total_w, height),
         '<rect width="100%" height="100%" fill="white"/>',
         '<text x="%d" y="22" font-size="15" font-weight="bold">Memory for intermediates: atenaot arena vs '
         'LOAD, naive and LibTorch eager</text>' % 10,
         '<text x="10" y="40" fill="#444">bar length: bytes relative to LibTorch eager\'s peak for the same model '
         '(dashed line = 1.0); label: size</text>']
    # Grid.
    step_rel = 0.5 if rel_max <= 3 else 1.0
    v = 0.0
    while v <= rel_max * 1.08 + 1e-9:
        x = left + v * scale
        o.append('<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#ddd"/>' % (x, top - 8, x,
                                                                                 top + len(models) * group_h - group_gap))
        o.append('<text x="%.1f" y="%d" text-anchor="middle" fill="#666">%.1f</text>' % (x, top - 12, v))
        v += step_rel
    x1 = left + scale
    o.append('<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#333" stroke-dasharray="4,3"/>' % (
        x1, top - 8, x1, top + len(models) * group_h - group_gap))
    for gi, (name, j) in enumerate(models):
        y0 = top + gi * group_h
        mid = y0 + (len(series) * (bar_h + gap)) / 2.0
        o.append('<text x="%d" y="%.1f" text-anchor="end" font-weight="bold">%s</text>' % (left - 10, mid + 4, name))
        for si, (label, key, color) in enumerate(series):
            b = j[key]
            rel = b / float(j["eager_peak_bytes"])
            y = y0 + si * (bar_h + gap)
            w = max(1.0, rel * scale)
            o.append('<rect x="%d" y="%d" width="%.1f" height="%d" fill="%s"><title>%s %s: %d bytes (%.2fx eager)'
                     '</title></rect>' % (left, y, w, bar_h, color, name, label, b, rel))
            o.append('<text x="%.1f" y="%d" fill="#222">%s</text>' % (left + w + 4, y + bar_h - 4, kib(b)))
    ly = height - 48
    lx = 10
    for label, _, color in series:
        o.append('<rect x="%d" y="%d" width="12" height="12" fill="%s"/>' % (lx, ly, color))
        o.append('<text x="%d" y="%d">%s</text>' % (lx + 16, ly + 10, label))
        lx += 30 + 7 * len(label)
    o.append('<text x="10" y="%d" fill="#666" font-size="10">%s</text>' % (height - 22, esc(command)))
    o.append('<text x="10" y="%d" fill="#666" font-size="10">%s</text>' % (height - 8, esc(machine)))
    o.append("</svg>")
    return "\n".join(o) + "\n"


def esc(s):
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def section_from_report(title, s, machine, intro):
    L = ["## " + title, ""] + intro + [""]
    L.append("Command: `%s` (exit %s, %s s)  " % (s["cmd"], s["rc"], s["secs"]))
    L.append("Machine: %s" % machine)
    L.append("")
    if s["rc"] != "0":
        L += failure_note(s)
    for t in tables(s["md"]):
        if len(t) >= 2:
            L += t + [""]
    if not tables(s["md"]) and s["rc"] == "0":
        L += ["(no table in the report)", ""]
    return L


def memory_zoo_section(w, s, machine, svg_out, curve_model="multihead_attention"):
    """Issue 17's table, short: the branchy models and the five highest arena / eager rows (all of them in
    bench/memory_zoo.md when that is regenerated by hand), the goal lines, and one model's memory-over-time
    curves before and after scheduling."""
    L = ["## Memory over the model zoo (issue 17)", "",
         "`bench/memory_zoo.py`: every model of `tests/models/zoo_models.py`'s default set (the small models and one"
         " torchvision model per family, random weights), planned by `atenaot plan`: the arena against LibTorch"
         " eager's allocator peak on the same graph, and LOAD in the traced order and in the order `--schedule"
         " memory` picks. Sizes in MiB. Shown: GoogLeNet, DenseNet-121 and multihead attention (the branchy ones"
         " the issue names) and the five highest arena / eager; the goal lines cover every model.", ""]
    L.append("Command: `%s` (exit %s, %s s)  " % (s["cmd"], s["rc"], s["secs"]))
    L.append("Machine: %s" % machine)
    L.append("")
    if s["rc"] != "0":
        L += failure_note(s)
    ts = [t for t in tables(s["md"]) if len(t) >= 3]
    if ts:
        head, rows = ts[0][:2], ts[0][2:]
        hcells = cells(head[0])
        ratio = hcells.index("arena / eager") if "arena / eager" in hcells else None

        def r(row):
            try:
                return float(cells(row)[ratio])
            except (TypeError, ValueError, IndexError):
                return -1.0
        named = [x for x in rows if cells(x)[0] in ("googlenet", "densenet121", "multihead_attention")]
        worst = [x for x in sorted(rows, key=r, reverse=True) if x not in named][:5]
        L += head + named + worst + [""]
    L += [l for l in s["md"].splitlines() if l.startswith(("Goals:", "Scheduled /", "Slowest planning"))] + [""]
    curve = os.path.join(w, "memory_zoo", curve_model, "plan.svg")
    if os.path.exists(curve):
        shutil.copyfile(curve, svg_out)
        L += ["![%s: bytes live per op, traced order vs scheduled](%s)" % (curve_model, os.path.basename(svg_out)),
              "",
              "`bench/%s`: `atenaot plan --svg` of %s from the same run: blue dashed, the bytes live after each op"
              " in the traced order; red, in the scheduled order (its maximum is LOAD); boxes, the arena"
              " buffers." % (os.path.basename(svg_out), curve_model), ""]
    return L


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("work")
    ap.add_argument("--out", default=os.path.join(REPO, "bench", "RESULTS.md"))
    ap.add_argument("--svg", default=os.path.join(REPO, "bench", "memory.svg"))
    ap.add_argument("--speed-svg", default=os.path.join(REPO, "bench", "speedup.svg"))
    ap.add_argument("--schedule-svg", default=os.path.join(REPO, "bench", "memory_schedule.svg"))
    args = ap.parse_args()
    w = args.work
    load = read(os.path.join(w, "loadavg")).split()
    load_end = read(os.path.join(w, "loadavg_end")).split()
    # The machine line names the load too: timings on a shared machine are noisy.
    machine = "%s; shared, 1-min load average %s at the start, %s at the end" % (
        host_machine(), load[0] if load else "?", load_end[0] if load_end else "?")
    pq, cve, ebw, rt, cm, kl = (step(w, n) for n in ("plan_quality", "compiled_vs_eager", "elementwise_bandwidth",
                                                      "reinplace_timing", "cortex_m", "kernels"))
    tc = dict(l.split("=", 1) for l in read(os.path.join(w, "cortex_m.toolchain")).splitlines() if "=" in l)
    cm_machine = "Cortex-M4F target, arm-none-eabi-gcc %s -Os; %s; host %s" % (
        tc.get("gcc", "?"), "run on QEMU %s mps2-an386" % tc["qemu"] if tc.get("qemu") else "not run (no QEMU)",
        machine)

    L = ["# atenaot benchmark results", "",
         "Regenerated by one command, `bash bench/make_results.sh` (the whole file, `bench/memory.svg`"
         " and `bench/speedup.svg`; nothing else in the tree is rewritten). Each table follows the command that"
         " produced it and the machine it ran on. Other work on a shared machine makes timings noisy.", "",
         "- Date: %s" % datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
         "- Machine: %s (other work on the machine slows the timed steps; no speed claim rests on one run)"
         % machine,
         "- atenaot at git %s" % git_rev(),
         "- Python %s (`/usr/bin/python3`)" % platform.python_version(), ""]

    L += section_from_report(
        "Memory-plan quality (`atenaot plan`)", pq, machine,
        ["The arena `atenaot compile` plans, against LOAD (the most intermediate bytes live at once: no placement"
         " can do better for this op order), naive (no reuse) and LibTorch eager's allocator peak, on the three"
         " examples and torchvision's MobileNetV2 and ResNet-18 (random weights). Full discussion:"
         " `bench/plan_quality.md` (same script).",
         "",
         "Second table, per placement algorithm: arena bytes / wall time of the whole `atenaot plan` command (min"
         " of the repeats: import, passes, a sample run for exact layouts, placement, an eager run) / the"
         " `time: plan` line of `--time-passes`: the placement alone (buffer analysis, LOAD, placement, overlap"
         " check; the passes, decompose, the annotating sample run and fusion have their own lines)."])
    models = []
    for name in ("mlp", "cnn", "transformer", "mobilenet_v2", "resnet18"):
        j = read(os.path.join(w, "plan_quality", name + "_best.json"))
        if j:
            models.append((name, json.loads(j)))
    if models:
        with open(args.svg, "w") as f:
            f.write(memory_svg(models, pq["cmd"], machine))
        L += ["![memory: arena vs LOAD vs naive vs eager](memory.svg)", "",
              "`bench/memory.svg`: the same numbers (the `--algo best` JSON of each model), drawn relative to eager's"
              " peak. Command: `%s`; machine: %s." % (pq["cmd"], machine), ""]

    L += memory_zoo_section(w, step(w, "memory_zoo"), machine, args.schedule_svg)

    L += section_from_report(
        "Compiled C vs LibTorch eager: latency and memory", cve, machine,
        ["The generated C library through the C ABI vs LibTorch eager (each model.pt module's forward as a"
         " LibTorch C++ user runs it; the chain, which has no module, op by op), in one process: the three"
         " examples, a 20-op elementwise chain over 1M floats, and the models of issue 15 (the model zoo's,"
         " random weights, traced by `bench/trace_models.py` into a scratch directory, TV), with one thread on"
         " both sides and with one thread per CPU on both sides."] +
        [l for l in cve["md"].splitlines() if l.startswith(("Machine:", "Eager"))])
    sp = speedups(cve["md"])
    if sp:
        with open(args.speed_svg, "w") as f:
            f.write(speed_svg(sp, cve["cmd"], machine))
        L += ["![speed-up of the compiled library over eager](speedup.svg)", ""]

    L += section_from_report(
        "Threads: one library on one thread and on all (issue 16)", step(w, "threads"), machine,
        ["`bench/threads_speedup.py` on the libraries `compiled_vs_eager` just built, in a process without"
         " LibTorch (whose idle OpenMP workers spin into the library's runs there): rounds alternating one"
         " thread and one per CPU, each a block of back-to-back runs (at least 20 ms) after one untimed run;"
         " medians over the rounds, in ms. *bitwise equal*: every output the same on both counts. The small"
         " transformer layers (`transformer_encoder`, `gpt_block`: d 64, ~25 us) are too short for threads"
         " to pay; `bert_base_layer` and `gpt2_block` are the same layers at BERT-base / GPT-2 size (d 768,"
         " 128 tokens)."])

    L += section_from_report(
        "Kernel library vs OpenBLAS (GFLOP/s)", kl, machine,
        ["`codegen/kernels` (built with `-march=native`, as `atenaot compile --march-native` builds models) on the"
         " GEMM shapes of ResNet-50's convolutions (as im2col GEMMs) and a transformer block (128 tokens, d 768,"
         " FFN 3072), next to OpenBLAS `cblas_sgemm` on one thread; then whole convolutions of ResNet-50 and"
         " MobileNetV2. Design notes: `bench/README.md`."])

    acc = step(w, "accuracy")
    L += section_from_report(
        "Accuracy against float64 (issue 15)", acc, machine,
        ["`bench/accuracy.py`: each model's float32 outputs against the float64 module on the same input, eager"
         " (LibTorch, one thread) and compiled (the default build, one thread), relative to the output's scale:"
         " *max* = max |y - y64| / max |y64|, *rms* = rms(y - y64) / rms(y64); *ratio* = compiled / eager (goal:"
         " <= 2). Then ResNet-18 built with `--winograd 4` (Winograd F(4x4, 3x3): faster, less accurate than"
         " the default F(2x2, 3x3)) and `--winograd off`, and single layers."])
    L += [line for line in acc["md"].splitlines() if line.startswith("Models, default builds: worst ratio")] + [""]

    L += section_from_report(
        "Fused elementwise chains vs copy bandwidth, and threads", ebw, machine,
        ["`bench/elementwise_bandwidth.cc`: this machine's memcpy bandwidth (64 MB, bytes read + written per"
         " second) and, per chain, the compiled library (default --cpu; all threads and one) against eager"
         " (the same ATen calls, LibTorch's threads), in one process, the sides taking turns in blocks of 10"
         " back-to-back runs, each after at least 5 ms of untimed runs (so that neither side's idle threads"
         " spin into the other's timed runs). *GB/s* counts the"
         " chain's input and output once (the least any implementation moves); *of memcpy* divides it by the"
         " copy bandwidth. Chains of 16M floats (64 MB each way) do not fit in caches; 1M-float ones do."] +
        [l for l in ebw["md"].splitlines() if l.startswith("Command:")])

    L += section_from_report(
        "Reinplace pass time vs PyTorch's `reinplace`", rt, machine,
        ["Chains of N elementwise ops with a slice write every 10 ops: `torch.fx.passes.reinplace` on the"
         " `make_fx(functionalize(f))` graph vs atenaot's reinplace pass alone (`--time-passes`). Small sizes"
         " to keep the run short; `bench/reinplace_timing.md` has N up to 4,000."])
    # The reinplace report's growth sentence, if any.
    for line in rt["md"].splitlines():
        if line.startswith("From N="):
            L += [line + " (`%s`, %s)" % (rt["cmd"], machine), ""]

    L += section_from_report(
        "Embedded: Cortex-M4F flash and RAM", cm, cm_machine,
        ["Models compiled with `atenaot compile --embedded`, cross-compiled with arm-none-eabi-gcc"
         " (`-mcpu=cortex-m4 -mfpu=fpv4-sp-d16 -mfloat-abi=hard -mthumb -Os`), linked into a firmware stub"
         " (`tests/embedded/firmware_stub.c`: static arena and I/O buffers, one `NAME_run` call;"
         " `-specs=nosys.specs -Wl,--gc-sections`), which references no malloc/free/calloc/realloc/printf."
         " Bytes. flash = text + data (text includes `.rodata`, i.e. the weights); RAM = data + bss (bss holds"
         " the arena and I/O buffers; 1,092 B of data is newlib's reentrancy structure); stack not included"
         " (*model stack frames* bounds the model's own). Recipe: `examples/embedded/README.md`."])

    text = "\n".join(L).rstrip() + "\n"
    with open(args.out, "w") as f:
        f.write(text)
    print("wrote %s%s" % (args.out, " and " + args.svg if models else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
