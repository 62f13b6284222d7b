"""FX's Python code generation, faster for graphs of ATen calls: the source of
every GraphModule atenaot.fx returns is generated when it is built (and on
every recompile), and FX's generic CodeGen spends ~12 us a node on it (a
third of from_ir on large graphs).

AtenCodeGen writes the same source as torch.fx's CodeGen, byte for byte, for
graphs of placeholders, get_attr, ATen op overloads and operator.getitem whose
arguments are nodes, plain constants and lists/tuples of them; any other graph
goes to FX's own code. The fast path is used only where a probe graph's
source equals FX's on the running torch (checked once per process), so a
torch whose code generation differs gets FX's."""
import dataclasses
import operator

import torch
import torch.fx

from ._fx_nodes import LEAF_TYPES, name_as_is

try:  # FX internals the fast path reproduces; without them it is off
    from torch.fx.graph import CodeGen, _format_target, _is_from_torch
    from torch.fx.node import _get_qualified_name
except ImportError:  # pragma: no cover (other torch versions)
    CodeGen = None

_Node = torch.fx.Node
_QUALIFIED = {}  # id(op overload) -> (op, the name FX prints for it)


def _callee(target):
    """The text FX prints for calling target, or None (not a torch op)."""
    hit = _QUALIFIED.get(id(target))
    if hit is None:
        name = None
        if isinstance(target, torch._ops.OpOverload) and _is_from_torch(target) and target != torch.device:
            name = _get_qualified_name(target)
        hit = _QUALIFIED[id(target)] = (target, name)  # holding target keeps its id unique
    return hit[1]


def _collect(args, out):
    """Appends the nodes in args to out, in the order torch.fx.map_arg visits
    them; False where FX would not print each of args as repr() of it (nodes
    as their names): only nodes, constants and plain lists/tuples of them."""
    for a in args:
        t = type(a)
        if t is _Node:
            out.append(a)
        elif t in LEAF_TYPES:
            continue
        elif isinstance(a, _Node):
            out.append(a)
        elif not (t is tuple or (isinstance(a, list) and t.__repr__ is list.__repr__)) or not _collect(a, out):
            return False
    return True


def _last_uses(nodes):
    """node -> the nodes whose last use it is, in the order FX frees them;
    None where the fast path does not write FX's source for the nodes."""
    every, later, done, last_users = set(nodes), set(), set(), {}
    for n in reversed(nodes):
        if n.type is not None or n.meta.get("is_wrapped", False):
            return None
        if n.op == "placeholder":
            if n.args or "*" in n.target:
                return None
        elif n.op == "call_function":
            if n.target is operator.getitem:
                if n.kwargs or len(n.args) != 2:
                    return None
            elif _callee(n.target) is None:
                return None
        elif n.op not in ("get_attr", "output"):
            return None
        later.add(n)
        uses = []
        if not (_collect(n.args, uses) and _collect(n.kwargs.values(), uses)):
            return None
        for u in uses:
            if u not in every or u in later:  # not defined above n: FX would name it out of order
                return None
            if u not in done:
                done.add(u)
                last_users.setdefault(n, []).append(u)
    return last_users


# The state torch 1.13's _Namespace keeps; another layout (later torch keeps
# counts per base name) gets create_name for every node.
_NAMESPACE_FIELDS = {"_obj_to_name", "_unassociated_names", "_used_names", "_illegal_char_regex",
                     "_name_suffix_regex"}


def _create_names(namespace, nodes):
    """node -> namespace.create_name(node.name, node), in node order, with its
    effect on the namespace; a plain name not taken yet is entered as
    create_name enters it (create_name itself costs ~4 us a call: a regex,
    a list scan for keywords)."""
    create = namespace.create_name
    if set(vars(namespace)) != _NAMESPACE_FIELDS:
        return {n: create(n.name, n) for n in nodes}
    used, named, out = namespace._used_names, namespace._obj_to_name, {}
    for n in nodes:
        c = n.name
        if n in named or not name_as_is(used, c):
            out[n] = create(c, n)
            continue
        used.setdefault(c, 0)
        named[n] = out[n] = c
    return out


if CodeGen is not None:
    class AtenCodeGen(CodeGen):
        """torch.fx's CodeGen with a fast path (see the module comment)."""

        def _gen_python_code(self, nodes, root_module, namespace, **kwargs):
            if not any(kwargs.values()) and getattr(self, "_body_transformer", None) is None:
                nodes = list(nodes)  # walked twice
                last_users = _last_uses(nodes)
                if last_users is not None:
                    return _fast_python_code(self, nodes, last_users, root_module, namespace)
            return super()._gen_python_code(nodes, root_module, namespace, **kwargs)


def _fast_python_code(cg, nodes, last_users, root_module, namespace):
    """What CodeGen._gen_python_code returns for nodes _last_uses takes."""
    # FX's prologue state (its builtins in the namespace and the globals)
    # from FX itself: its code for no nodes.
    empty = CodeGen._gen_python_code(cg, [], root_module, namespace)
    names = _create_names(namespace, [n for n in nodes if n.op != "output"])

    def fmt(a):
        if isinstance(a, _Node):
            return names[a]
        if isinstance(a, list):
            return "[%s]" % ", ".join([fmt(e) for e in a])
        if isinstance(a, tuple):
            return "(%s,)" % fmt(a[0]) if len(a) == 1 else "(%s)" % ", ".join([fmt(e) for e in a])
        return repr(a)

    free_vars, body = [], []
    for n in nodes:
        op = n.op
        if op != "output":
            name = names[n]
        if op == "placeholder":
            free_vars.append(n.target)
            if n.target != name:
                body.append("%s = %s\n" % (name, n.target))
            continue
        if op == "output":
            body.append(cg.generate_output(n.args[0]) + "\n")  # repr() of nodes is FX's here
            continue
        if op == "get_attr":
            line = "%s = %s" % (name, _format_target(root_module, n.target))
        elif n.target is operator.getitem:
            line = "%s = %s[%s]" % (name, fmt(n.args[0]), fmt(n.args[1]))
        else:
            args = ", ".join([names[a] if type(a) is _Node else fmt(a) for a in n.args])
            kwargs = n.kwargs
            if kwargs:
                kwargs = ", ".join(["%s = %s" % (k, fmt(v)) for k, v in kwargs.items()])
                args = "%s, %s" % (args, kwargs) if args else kwargs
            line = "%s = %s(%s)" % (name, _QUALIFIED[id(n.target)][1], args)  # _last_uses entered it
        dead = last_users.get(n)
        body.append(line + (";  %s = None\n" % " = ".join([names[d] for d in dead]) if dead else "\n"))
    if not body:
        body.append("pass\n")
    prologue = cg.gen_fn_def(free_vars, "")
    code = "\n".join("    " + line for line in "".join(body).split("\n"))
    return dataclasses.replace(empty, src="\n\n\n%s\n%s" % (prologue, code))


def _probe():
    """Whether the fast path writes FX's source on this torch: one graph with
    every kind of node and argument it takes, generated both ways."""
    g = torch.fx.Graph()
    x, y = g.placeholder("x"), g.placeholder("inf")  # "inf" is one of FX's globals: renamed
    c = g.get_attr("sub.weight")
    a = g.call_function(torch.ops.aten.add.Tensor, (x, c), {"alpha": 2.5})
    s = g.call_function(torch.ops.aten.split.Tensor, (a, 2))
    s0 = g.call_function(operator.getitem, (s, 0))
    t = g.call_function(torch.ops.aten.cat.default, ([s0, y], -1))
    z = g.call_function(torch.ops.aten.zeros.default, ([2, 3],), {"dtype": torch.float64, "device": torch.device("cpu"),
                                                                  "layout": torch.strided, "pin_memory": None})
    m = g.call_function(torch.ops.aten.clamp.default, (t, float("-inf"), float("nan")))
    g.output((m, [z, s0], x))
    m.name, s0.name, t.name = "max", "part_01", "nan"  # set directly: a builtin, "part_1", one of FX's globals
    want = g.python_code(root_module="self")
    g.set_codegen(AtenCodeGen())
    got = g.python_code(root_module="self")
    return got.src == want.src and got.globals == want.globals and \
        [f.name for f in dataclasses.fields(got)] == ["src", "globals"]


_CHECKED = []


def codegen():
    """An AtenCodeGen for a new graph when its fast path is known to write FX's
    source on this torch, else None (keep FX's CodeGen)."""
    if not _CHECKED:
        ok = False
        if CodeGen is not None:
            try:
                ok = _probe()
            except Exception:  # any difference in FX's internals: use FX's code
                ok = False
        _CHECKED.append(ok)
    return AtenCodeGen() if _CHECKED[0] else None
