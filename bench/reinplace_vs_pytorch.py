#!/usr/bin/python3
"""Compare atenaot's reinplace pass with PyTorch's torch.fx.passes.reinplace.

For each small program below:
  PyTorch: gm = make_fx(functionalize(f))(*inputs); reinplace(gm, *inputs);
           count the in-place ops, *_scatter ops, call_function nodes and
           copy_ into placeholders of gm, and check gm against eager.
  atenaot: torch.jit.trace(f) saved as a .pt; `atenaot dump --stage
           reinplaced` gives the same counts over the IR text, and
           `atenaot run --stage reinplaced` is checked against eager.
Outputs and inputs-after-the-run are both compared (allclose rtol 1e-5,
atol 1e-6 for floats; exact for integers and bools).

The two graphs come from different front ends (make_fx records the ops below
autograd, after CompositeImplicit decompositions; torch.jit.trace records the
ops as called, with Python scalars as 0-dim constants), so node counts differ
a little; the number of in-place ops is the comparison that matters.

Usage: /usr/bin/python3 bench/reinplace_vs_pytorch.py --atenaot bazel-bin/atenaot
           [--out bench/reinplace_vs_pytorch.md] [--keep DIR] [--verbose]
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

import numpy as np
import torch
import torch.nn.functional as F
from functorch.experimental import functionalize
from torch.fx.experimental.proxy_tensor import make_fx
from torch.fx.passes.reinplace import reinplace
from torch.utils._pytree import tree_flatten

import _common

RTOL = 1e-5
ATOL = 1e-6


# ---------------------------------------------------------------------------
# Programs. Each is (name, function, inputs-factory). The factory returns a
# fresh tuple of tensors every call (fixed seed), so every consumer gets
# identical, unaliased inputs.
# ---------------------------------------------------------------------------

def _gen(*specs):
    def make():
        g = torch.Generator().manual_seed(0)
        out = []
        for s in specs:
            if callable(s):
                out.append(s(g))
            else:
                out.append(torch.randn(*s, generator=g))
        return tuple(out)
    return make


def _ints(lo, hi, shape, dtype=torch.int64):
    return lambda g: torch.randint(lo, hi, shape, generator=g, dtype=dtype)


def _bools(shape):
    return lambda g: torch.rand(*shape, generator=g) > 0.5


def _const(t):
    return lambda g: t.clone()


def p_seed_view_add(a):
    b = a + 1
    c = b.view(-1)
    c.add_(1)
    return b


def p_seed_input_view_add(a):
    b = a.view(-1)
    b.add_(1)
    return a


def p_diagonal_fill(x):
    a = x + x
    a.diagonal().fill_(0)
    return a


def p_zeros_setitem(b):
    a = torch.zeros(2, 2)
    a[0] = b
    return a


def p_select_mul(x):
    a = x * 2
    a.select(0, 1).mul_(3)
    return a


def p_slice_sub(x):
    a = x + 1
    a[1:3].sub_(1)
    return a


def p_transpose_add(x):
    a = x.exp()
    a.transpose(0, 1).add_(1)
    return a


def p_transpose_select_add(x):
    a = x * 2
    a.t()[1].add_(x[0])
    return a


def p_permute_zero(x):
    a = x * 2
    a.permute(2, 0, 1)[1].zero_()
    return a


def p_unsqueeze_mul(x):
    a = x + 0.5
    a.unsqueeze(0).mul_(2)
    return a


def p_narrow_clamp(x):
    a = x.sin()
    a.narrow(1, 1, 2).clamp_(min=0)
    return a


def p_open_slice_add(x):
    a = x * 1
    a[1:].add_(1)
    return a


def p_negative_select_mul(x):
    a = x * 1
    a[-1].mul_(2)
    return a


def p_chunk_zero(x):
    a = x * 1
    a.chunk(2)[1].zero_()
    return a


def p_two_selects(x):
    a = x * 1
    a[0].add_(1)
    a[1].add_(2)
    return a


def p_nested_views(x):
    a = x * 1
    a[1:].select(1, 0).mul_(2)
    return a


def p_loop_selects(x):
    a = x * 1
    for i in range(3):
        a[i].mul_(i + 1)
    return a


def p_view_and_base_out(x):
    a = x * 1
    v = a[0]
    v.add_(1)
    return a, v


def p_chain_outofplace(x, y):
    a = x.relu()
    b = a.sigmoid()
    c = b + y
    d = c * 2
    return d


def p_chain_inplace(x, y):
    a = x + 1
    a.relu_()
    a.sigmoid_()
    a.mul_(y)
    return a


def p_reuse_intermediate(x):
    a = x.exp()
    b = a.log()
    return a + b


def p_input_add_mul(x):
    x.add_(1)
    x.mul_(2)
    return x * 1


def p_input_relu(x, y):
    x.relu_()
    return x + y


def p_input_select_mul(x, y):
    x[:, 1].mul_(y)
    return x.sum()


def p_input_view_read(x):
    y = x.view(-1)
    y.add_(1)
    return x + y


def p_input_return_view(x):
    x.add_(1)
    return x.view(-1)


def p_ge_inplace(x, y):
    a = x * 1
    a.ge_(y)
    return a


def p_type_promotion(x, y):
    a = x * 1
    a.add_(y.double())
    return a


def p_index_put(x, idx, v):
    a = x * 1
    a.index_put_((idx,), v)
    return a


def p_index_put_accumulate(x, idx, v):
    a = x + 1
    a.index_put_((idx,), v, accumulate=True)
    return a


def p_masked_fill(x, m):
    a = x + 1
    a.masked_fill_(m, 0.0)
    return a


def p_cat_slice_zero(x, y):
    a = torch.cat([x, y])
    a[:2].zero_()
    return a


def p_int_chain(i):
    a = i * 2
    a.add_(3)
    return a


def p_bool_not(x):
    m = x > 0
    m.logical_not_()
    return m


def p_where_add(m, x, y):
    a = torch.where(m, x, y)
    a.add_(1)
    return a


def p_mlp(x, w1, b1, w2, b2):
    h = F.linear(x, w1, b1).relu()
    o = F.linear(h, w2, b2)
    return torch.sigmoid(o) * 2 + 1


def p_mlp_inplace_act(x, w1, b1, w2, b2):
    h = F.linear(x, w1, b1)
    h.relu_()
    o = torch.addmm(b2, h, w2.t())
    o.tanh_()
    return o + x[:, :4]


def p_none_both_live(x):
    a = x.relu()
    b = a + 1
    return a, b


def p_none_broadcast(x, y):
    a = x + 1
    b = a * y
    return a, b


def p_none_view_of_output(x):
    a = x + 1
    b = a.view(-1)
    c = b * 2
    return a, c


def p_none_reduction(x):
    return x.sum(0), x.amax(1)


PROGRAMS = [
    ("seed: b=a+1; b.view(-1).add_(1); return b", p_seed_view_add, _gen((4,))),
    ("seed: a.view(-1).add_(1); return a", p_seed_input_view_add, _gen((2, 2))),
    ("a=x+x; a.diagonal().fill_(0)", p_diagonal_fill, _gen((3, 3))),
    ("a=zeros(2,2); a[0]=b", p_zeros_setitem, _gen((2,))),
    ("a=x*2; a.select(0,1).mul_(3)", p_select_mul, _gen((3, 4))),
    ("a=x+1; a[1:3].sub_(1)", p_slice_sub, _gen((4, 3))),
    ("a=x.exp(); a.transpose(0,1).add_(1)", p_transpose_add, _gen((3, 4))),
    ("a=x*2; a.t()[1].add_(x[0])", p_transpose_select_add, _gen((3, 3))),
    ("a=x*2; a.permute(2,0,1)[1].zero_()", p_permute_zero, _gen((2, 3, 4))),
    ("a=x+0.5; a.unsqueeze(0).mul_(2)", p_unsqueeze_mul, _gen((3, 4))),
    ("a=x.sin(); a.narrow(1,1,2).clamp_(min=0)", p_narrow_clamp, _gen((3, 4))),
    ("a=x*1; a[1:].add_(1)", p_open_slice_add, _gen((4, 3))),
    ("a=x*1; a[-1].mul_(2)", p_negative_select_mul, _gen((3, 4))),
    ("a=x*1; a.chunk(2)[1].zero_()", p_chunk_zero, _gen((4, 3))),
    ("a=x*1; a[0].add_(1); a[1].add_(2)", p_two_selects, _gen((3, 4))),
    ("a=x*1; a[1:].select(1,0).mul_(2)", p_nested_views, _gen((4, 3))),
    ("a=x*1; for i<3: a[i].mul_(i+1)", p_loop_selects, _gen((3, 4))),
    ("a=x*1; v=a[0]; v.add_(1); return a, v", p_view_and_base_out, _gen((3, 4))),
    ("relu, sigmoid, +y, *2 (out of place)", p_chain_outofplace, _gen((3, 4), (3, 4))),
    ("a=x+1; relu_, sigmoid_, mul_(y)", p_chain_inplace, _gen((3, 4), (3, 4))),
    ("a=x.exp(); b=a.log(); return a+b", p_reuse_intermediate, _gen((3, 4))),
    ("input: x.add_(1); x.mul_(2); return x*1", p_input_add_mul, _gen((3, 4))),
    ("input: x.relu_(); return x+y", p_input_relu, _gen((3, 4), (3, 4))),
    ("input: x[:,1].mul_(y); return x.sum()", p_input_select_mul, _gen((3, 4), (3,))),
    ("input: y=x.view(-1); y.add_(1); return x+y", p_input_view_read, _gen((6,))),
    ("input: x.add_(1); return x.view(-1)", p_input_return_view, _gen((2, 3))),
    ("a=x*1; a.ge_(y)", p_ge_inplace, _gen((3, 4), (3, 4))),
    ("a=x*1; a.add_(y.double())", p_type_promotion, _gen((3, 4), (3, 4))),
    ("a=x*1; a.index_put_((idx,), v)", p_index_put,
     _gen((5, 3), _const(torch.tensor([0, 3])), (2, 3))),
    ("a=x+1; a.index_put_((idx,), v, accumulate=True)", p_index_put_accumulate,
     _gen((5, 3), _const(torch.tensor([1, 1, 4])), (3, 3))),
    ("a=x+1; a.masked_fill_(m, 0)", p_masked_fill, _gen((3, 4), _bools((3, 4)))),
    ("a=cat([x,y]); a[:2].zero_()", p_cat_slice_zero, _gen((2, 3), (2, 3))),
    ("int64: a=i*2; a.add_(3)", p_int_chain, _gen(_ints(-5, 5, (3, 4)))),
    ("bool: m=x>0; m.logical_not_()", p_bool_not, _gen((3, 4))),
    ("a=where(m,x,y); a.add_(1)", p_where_add, _gen(_bools((3, 4)), (3, 4), (3, 4))),
    ("MLP: linear, relu, linear, sigmoid*2+1", p_mlp,
     _gen((4, 8), (16, 8), (16,), (4, 16), (4,))),
    ("MLP: linear, relu_, addmm, tanh_, +x", p_mlp_inplace_act,
     _gen((4, 8), (16, 8), (16,), (4, 16), (4,))),
    ("none: a=x.relu(); return a, a+1", p_none_both_live, _gen((3, 4))),
    ("none: a=x+1 [3,1]; return a, a*y [3,4]", p_none_broadcast, _gen((3, 1), (3, 4))),
    ("none: a=x+1; return a, a.view(-1)*2", p_none_view_of_output, _gen((3, 4))),
    ("none: x.sum(0), x.amax(1)", p_none_reduction, _gen((3, 4))),
]


# ---------------------------------------------------------------------------
# Helpers
# ---------------------------------------------------------------------------

def short(msg, n=90):
    msg = " ".join(str(msg).split())
    msg = msg.replace("|", "\\|")
    return msg if len(msg) <= n else msg[: n - 3] + "..."


def is_inplace_name(name):
    """ATen in-place ops: base name ends with '_' (add_, fill_), or an
    in-place dunder (__iand__). Other dunders (__and__) are not in-place."""
    if name.startswith("__") and name.endswith("__"):
        return name.startswith("__i") and name not in ("__is__", "__isnot__")
    return name.endswith("_")


def close(expected, actual):
    """expected, actual: numpy arrays. Exact for ints/bools."""
    if expected.shape != actual.shape:
        return False, f"shape {actual.shape} != {expected.shape}"
    if expected.dtype != actual.dtype:
        return False, f"dtype {actual.dtype} != {expected.dtype}"
    if expected.dtype.kind in "fc":
        ok = np.allclose(actual, expected, rtol=RTOL, atol=ATOL, equal_nan=True)
    else:
        ok = np.array_equal(actual, expected)
    return ok, "" if ok else "values differ"


def compare_lists(what, expected, actual):
    if len(expected) != len(actual):
        return f"{len(actual)} {what} != {len(expected)}"
    for k, (e, a) in enumerate(zip(expected, actual)):
        ok, why = close(e, a)
        if not ok:
            return f"{what} {k}: {why}"
    return ""


def to_np(t):
    return t.detach().cpu().numpy()


def eager_reference(fn, make_inputs):
    inputs = list(make_inputs())
    outs, _ = tree_flatten(fn(*inputs))
    return [to_np(o) for o in outs], [to_np(i) for i in inputs]


# ---------------------------------------------------------------------------
# PyTorch side
# ---------------------------------------------------------------------------

def pytorch_side(fn, make_inputs, ref):
    r = {"ok": False}
    try:
        gm = make_fx(functionalize(fn))(*make_inputs())
        gm = reinplace(gm, *make_inputs())
    except Exception as e:  # noqa: BLE001 -- recorded in the table
        r["error"] = f"{type(e).__name__}: {e}"
        return r
    placeholders = {n for n in gm.graph.nodes if n.op == "placeholder"}
    inplace = scatters = nodes = input_copies = copies = 0
    for n in gm.graph.nodes:
        if n.op != "call_function":
            continue
        nodes += 1
        packet = getattr(n.target, "overloadpacket", None)
        if packet is None:
            continue  # operator.getitem and the like
        name = packet.__name__
        if name == "copy_" and n.args and n.args[0] in placeholders:
            input_copies += 1
        elif is_inplace_name(name):
            inplace += 1
            copies += name == "copy_"
        elif name.endswith("_scatter"):
            scatters += 1
    r.update(inplace=inplace, scatters=scatters, nodes=nodes,
             input_copies=input_copies, copies=copies, code=gm.code.strip())
    try:
        inputs = list(make_inputs())
        outs, _ = tree_flatten(gm(*inputs))
        why = compare_lists("output", ref[0], [to_np(o) for o in outs])
        why = why or compare_lists("input", ref[1], [to_np(i) for i in inputs])
    except Exception as e:  # noqa: BLE001
        why = f"run failed: {type(e).__name__}: {e}"
    r["ok"] = not why
    r["why"] = why
    return r


# ---------------------------------------------------------------------------
# atenaot side
# ---------------------------------------------------------------------------

OP_RE = re.compile(r"=\s*aten::([A-Za-z0-9_]+)(?:\.[A-Za-z0-9_]+)?\((.*)$")
HEADER_RE = re.compile(r"^graph @\S+\((.*)\)\s*\{\s*$")


def graph_inputs(ir):
    for line in ir.splitlines():
        m = HEADER_RE.match(line.strip())
        if m:
            return set(re.findall(r"(%[A-Za-z0-9_.]+):", m.group(1)))
    return set()


def count_ir(ir):
    inputs = graph_inputs(ir)
    inplace = scatters = nodes = input_copies = copies = 0
    for line in ir.splitlines():
        if " = aten::" not in line:
            continue
        nodes += 1
        m = OP_RE.search(line)
        if not m:
            continue
        name, args = m.group(1), m.group(2)
        first = re.match(r"\s*(%[A-Za-z0-9_.]+)", args)
        if name == "copy_" and first and first.group(1) in inputs:
            input_copies += 1
        elif is_inplace_name(name):
            inplace += 1
            copies += name == "copy_"
        elif name.endswith("_scatter"):
            scatters += 1
    return dict(inplace=inplace, scatters=scatters, nodes=nodes,
                input_copies=input_copies, copies=copies)


def run_cmd(cmd):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True)
    return p.returncode, p.stdout, p.stderr


def atenaot_side(atenaot, fn, make_inputs, ref, workdir):
    r = {"ok": False}
    inputs = make_inputs()
    in_files = [os.path.join(workdir, f"in_{k}.npy") for k in range(len(inputs))]
    model = os.path.join(workdir, "model.pt")
    try:
        _common.trace_and_save(fn, inputs, model, in_files)
    except Exception as e:  # noqa: BLE001
        r["error"] = f"trace: {type(e).__name__}: {e}"
        return r
    rc, out, err = run_cmd([atenaot, "dump", model, "--inputs", *in_files,
                            "--stage", "reinplaced"])
    if rc != 0:
        r["error"] = f"dump: {err.strip()}"
        return r
    r.update(count_ir(out))
    r["ir"] = out.strip()
    out_dir = os.path.join(workdir, "out")
    rc, _, err = run_cmd([atenaot, "run", model, "--inputs", *in_files,
                          "--out-dir", out_dir, "--stage", "reinplaced"])
    if rc != 0:
        r["error"] = f"run: {err.strip()}"
        r["why"] = r["error"]
        return r
    outs, k = [], 0
    while os.path.exists(os.path.join(out_dir, f"output_{k}.npy")):
        outs.append(np.load(os.path.join(out_dir, f"output_{k}.npy")))
        k += 1
    ins = [np.load(os.path.join(out_dir, f"input_{k}.npy"))
           for k in range(len(in_files))]
    why = compare_lists("output", ref[0], outs) or compare_lists("input", ref[1], ins)
    r["ok"] = not why
    r["why"] = why
    return r


# ---------------------------------------------------------------------------
# Report
# ---------------------------------------------------------------------------

machine = _common.machine


def cells(r):
    if "inplace" not in r:
        return ["-", "-", "-", "-", "failed: " + short(r.get("error", "?"))]
    ok = "yes" if r["ok"] else "**NO**: " + short(r.get("why") or r.get("error", ""))
    return [str(r["inplace"]), str(r["scatters"]), str(r["nodes"]),
            str(r["input_copies"]), ok]


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--atenaot", required=True, help="path to the atenaot CLI")
    ap.add_argument("--out", default="bench/reinplace_vs_pytorch.md")
    ap.add_argument("--keep", help="keep the traced models and inputs in DIR")
    ap.add_argument("--verbose", action="store_true",
                    help="print both graphs for every program")
    args = ap.parse_args()
    atenaot = os.path.abspath(args.atenaot)
    command = "/usr/bin/python3 " + " ".join(shlex.quote(a) for a in sys.argv)

    rows, fewer, more, equal, worse, wrong = [], [], [], [], [], []
    results = []
    base = args.keep or tempfile.mkdtemp(prefix="reinplace_vs_pytorch_")
    for i, (name, fn, make_inputs) in enumerate(PROGRAMS):
        ref = eager_reference(fn, make_inputs)
        pt = pytorch_side(fn, make_inputs, ref)
        workdir = os.path.join(base, f"p{i:02d}")
        os.makedirs(workdir, exist_ok=True)
        at = atenaot_side(atenaot, fn, make_inputs, ref, workdir)
        results.append((i, name, pt, at))
        rows.append([f"{i + 1}", "`" + name + "`"] + cells(pt) + cells(at))
        flag = ""
        if not at["ok"]:
            wrong.append(i)
            flag = "  <-- atenaot not correct"
        if pt["ok"] and at["ok"]:
            if at["inplace"] < pt["inplace"]:
                fewer.append(i)
                flag = "  <-- atenaot reinplaces fewer"
            elif at["inplace"] > pt["inplace"]:
                more.append(i)
            else:
                equal.append(i)
            # Secondary: same or more in-place ops in total, but fewer of them
            # are real op rewrites (not copy_) or more scatters are left.
            if i not in fewer and (
                    at["inplace"] - at["copies"] < pt["inplace"] - pt["copies"]
                    or at["scatters"] > pt["scatters"]):
                worse.append(i)
                flag = "  <-- atenaot keeps an op out of place / a scatter"
        print(f"{i + 1:2d} {name:50s} pt {cells(pt)}  at {cells(at)}{flag}")
        if args.verbose:
            print(pt.get("code", pt.get("error")))
            print(at.get("ir", at.get("error")))

    def nums(idx):
        return ", ".join(str(i + 1) for i in idx) if idx else "none"

    both_ok = len(fewer) + len(more) + len(equal)
    pt_failed = sum(1 for _, _, pt, _ in results if not pt["ok"])
    summary = (
        f"**Summary** ({len(PROGRAMS)} programs; both sides correct on {both_ok}; "
        f"PyTorch failed or wrong on {pt_failed}, atenaot on {len(wrong)}): "
        f"atenaot reinplaces **fewer** ops than PyTorch on **{len(fewer)}**, "
        f"**more** on **{len(more)}** ({nums(more)}), **as many** on "
        f"**{len(equal)}**.")
    summary2 = (
        "Secondary check (same or more in-place ops, but fewer of them are op "
        "rewrites rather than scatter-replacing `copy_`, or more `*_scatter` "
        f"ops left than PyTorch): {len(worse)} ({nums(worse)}).")
    header = [
        "# atenaot reinplace vs torch.fx.passes.reinplace",
        "",
        f"Command: `{command}`  ",
        f"Date: {datetime.date.today().isoformat()}  ",
        f"Machine: {machine()}  ",
        f"torch {torch.__version__}, numpy {np.__version__}, Python {platform.python_version()}",
        "",
        "PyTorch: `gm = make_fx(functionalize(f))(*inputs)`, then "
        "`reinplace(gm, *inputs)`. atenaot: `torch.jit.trace(f)` saved as a .pt, "
        "then `atenaot dump/run --stage reinplaced` (functionalize + dce + "
        "reinplace + dce).",
        "",
        "The two graphs come from different front ends: make_fx records ops "
        "below autograd after CompositeImplicit decompositions (`linear` is "
        "`t` + `addmm`, `narrow` is `slice`, `x[0] = b` is `select` + `copy_`), "
        "torch.jit.trace records the ops as called and turns Python scalars "
        "into 0-dim constants (`x + 1` is `add.Tensor` with a constant). So "
        "node counts are not directly comparable; the number of in-place ops "
        "is the fairness measure.",
        "",
        "Columns: *in-place* = ops whose name ends in `_` (`add_`, `fill_`, "
        "and the `copy_` that replaces a scatter), not counting *input copy_* "
        "= `copy_` whose destination is a graph input (functionalize's "
        "write-back of input mutations); *scatters* = `*_scatter` ops left; "
        "*nodes* = fx `call_function` nodes / atenaot IR nodes (a node with "
        "several results counts once). *correct* = outputs and inputs after "
        "the run match eager (allclose rtol 1e-5, atol 1e-6; exact for "
        "integers and bools).",
        "",
        summary,
        "",
        summary2,
        "",
    ]
    table = [
        "| # | program | PyTorch in-place | PyTorch scatters | PyTorch nodes | "
        "PyTorch input copy_ | PyTorch correct | atenaot in-place | atenaot scatters | "
        "atenaot nodes | atenaot input copy_ | atenaot correct |",
        "|---:|---|---:|---:|---:|---:|---|---:|---:|---:|---:|---|",
    ]
    table += ["| " + " | ".join(r) + " |" for r in rows]
    extra = []
    show = [(i, "atenaot not correct") for i in wrong]
    show += [(i, "atenaot reinplaces fewer ops than PyTorch") for i in fewer]
    show += [(i, "secondary check") for i in worse]
    show += [(i, "atenaot reinplaces more ops than PyTorch") for i in more]
    if show:
        extra += ["", "## Graphs after reinplace", "",
                  "For every program flagged above and every program where "
                  "atenaot reinplaces more."]
    for i, why in show:
        _, name, pt, at = results[i]
        extra += ["", f"### {i + 1}. `{name}` ({why})", "", "PyTorch:", "", "```",
                  pt.get("code", pt.get("error", "")), "```", "", "atenaot:", "",
                  "```", at.get("ir", at.get("error", "")), "```"]
    text = "\n".join(header + table + extra) + "\n"
    with open(args.out, "w") as f:
        f.write(text)
    print()
    print(summary)
    print(summary2)
    print(f"wrote {args.out}")
    return 1 if fewer or wrong else 0


if __name__ == "__main__":
    sys.exit(main())
