"""Appending call_function nodes to a new torch.fx Graph, the state FX's
Graph.create_node leaves, without its per-node cost.

from_ir builds one node per IR line; on a 4,000-node graph FX's create_node
took ~30 ms of atenaot.fx.reinplace's ~105 (Node.__init__ walks the
arguments four times with map_arg; the namespace runs a regex and a keyword
scan per name). The fast path stores the same fields directly. It is used
only where a probe graph built both ways has the same fields, arguments,
users, names and source on the running torch (checked once per process), so
a torch whose Node or Graph differs gets create_node itself."""
import builtins
import keyword
import operator

import torch
import torch.fx

try:  # FX internals the fast path reproduces; without them it is off
    from torch.fx.graph import _custom_builtins
    from torch.fx.immutable_collections import immutable_dict, immutable_list
except ImportError:  # pragma: no cover (other torch versions)
    _custom_builtins = immutable_list = None

_Node = torch.fx.Node
LEAF_TYPES = {int, float, bool, type(None), str, torch.dtype, torch.device, torch.layout, torch.memory_format}

_KEYWORDS = frozenset(keyword.kwlist)


def name_as_is(used, candidate):
    """Whether torch 1.13's _Namespace.create_name(candidate, node) returns
    candidate unchanged, given the namespace's _used_names: an ASCII
    identifier not taken, not a keyword or builtin, whose numeric suffix, if
    any, is written as int() writes it ("x_01" becomes "x_1")."""
    if _custom_builtins is None or candidate in used or not (candidate.isidentifier() and candidate.isascii()) \
            or candidate in _KEYWORDS or candidate in builtins.__dict__ or candidate in _custom_builtins:
        return False
    if not candidate[-1].isdigit():
        return True
    head, sep, digits = candidate.rpartition("_")
    return not (sep and digits.isdigit()) or digits == "0" or digits[0] != "0"


_OTHER = object()  # _frozen's answer for an argument it does not reproduce


def _frozen(a, inputs):
    """map_arg(a, lambda x: x) as Node.__init__ stores it (lists as
    immutable_list), entering the nodes in inputs in map_arg's order; _OTHER
    where a holds anything but nodes, constants and plain lists/tuples."""
    t = type(a)
    if t is _Node:
        inputs.setdefault(a)
        return a
    if t in LEAF_TYPES:
        return a
    if t is tuple or t is list:
        out = [_frozen(e, inputs) for e in a]
        if any(f is _OTHER for f in out):
            return _OTHER
        return tuple(out) if t is tuple else immutable_list(out)
    return _OTHER


def _append_fast(graph, target, args, kwargs, name):
    """graph.create_node("call_function", target, args, kwargs, name), its
    effect stored directly; None where the arguments or name are not the
    plain ones it reproduces (the caller then asks FX)."""
    ns = graph._graph_namespace
    used = ns._used_names
    if not name_as_is(used, name):
        return None
    inputs, fargs = {}, args
    for a in args:  # most ops: nodes and constants only, stored as they are
        t = type(a)
        if t is _Node:
            inputs[a] = None  # a node seen before keeps its place, as with setdefault
        elif t not in LEAF_TYPES:
            inputs = {}
            fargs = _frozen(args, inputs)
            if fargs is _OTHER:
                return None
            break
    fkwargs = immutable_dict()
    if kwargs:
        items = [(k, _frozen(v, inputs)) for k, v in kwargs.items()]
        if any(f is _OTHER for _, f in items):
            return None
        fkwargs = immutable_dict(items)
    n = _Node.__new__(_Node)
    n.graph, n.name, n.op, n.target = graph, name, "call_function", target
    n._input_nodes = inputs
    n._args, n._kwargs = fargs, fkwargs
    for i in inputs:
        i.users[n] = None
    n.users, n.type, n._erased, n._repr_fn, n.meta = {}, None, False, None, {}
    used.setdefault(name, 0)
    ns._obj_to_name[n] = name
    root = graph._root  # graph._insert is root.prepend on a new graph: append at the end
    p = root._prev
    p._next, n._prev = n, p
    n._next, root._prev = root, n
    graph._len += 1
    return n


def _probe():
    """Whether _append_fast leaves FX's state on this torch: one graph with
    every kind of name and argument from_ir gives it, built both ways."""
    if immutable_list is None or not callable(getattr(torch.fx.Graph(), "_insert", None)):
        return False
    aten = torch.ops.aten
    steps = [("add", aten.add.Tensor, lambda v: (v[0], v[1]), {}),
             ("add", aten.add.Tensor, lambda v: (v[2], v[2]), {"alpha": 2}),  # taken: add_1
             ("x_01", aten.cat.default, lambda v: ([v[2], v[0]], -1), {}),  # FX writes x_1
             ("max", aten.clamp.default, lambda v: (v[4], None, 1.5), {}),  # a builtin
             ("cat_2", aten.zeros.default, lambda v: ([2, 3],), {"dtype": torch.float64, "device": torch.device("cpu"),
                                                            "layout": torch.strided, "pin_memory": None}),
             ("split", aten.split.Tensor, lambda v: (v[3], 2), {}),
             ("index", aten.index.Tensor, lambda v: (v[2], [None, v[6]]), {})]
    built = []
    for fast in (False, True):
        g = torch.fx.Graph()
        vals = [g.placeholder("x"), g.placeholder("y")]
        for name, target, args, kwargs in steps:
            a = args(vals)
            n = _append_fast(g, target, a, kwargs, name) if fast else None
            vals.append(n or g.create_node("call_function", target, a, kwargs, name=name))
        vals.append(g.call_function(operator.getitem, (vals[-2], 0)))
        g.output((vals[-1], vals[-2]))
        built.append(g)
    return _same_state(*built)


def _same_state(want, got):
    nodes_w, nodes_g = list(want.nodes), list(got.nodes)
    if len(nodes_w) != len(nodes_g) or want._len != got._len or set(vars(want)) != set(vars(got)):
        return False
    pos = {want._root: -1, got._root: -1}
    for k, (w, g) in enumerate(zip(nodes_w, nodes_g)):
        pos[w], pos[g] = k, k

    def same(a, b):
        if type(a) is not type(b):
            return False
        if type(a) is _Node:
            return pos.get(a) == pos.get(b)
        if isinstance(a, (list, tuple)):
            return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
        if isinstance(a, dict):  # users and _input_nodes are keyed by nodes
            return same(list(a.items()), list(b.items()))
        return a == b

    for w, g in zip(nodes_w, nodes_g):
        if set(vars(w)) != set(vars(g)):
            return False
        for field in vars(w):
            if field not in ("graph", "_prev", "_next") and not same(getattr(w, field), getattr(g, field)):
                return False
        if (w.graph is want) != (g.graph is got) or pos[w._prev] != pos[g._prev] or pos[w._next] != pos[g._next]:
            return False
    nw, ng = want._graph_namespace, got._graph_namespace
    return set(vars(nw)) == set(vars(ng)) and nw._used_names == ng._used_names and \
        nw._unassociated_names == ng._unassociated_names and \
        sorted((pos[n], s) for n, s in nw._obj_to_name.items()) == \
        sorted((pos[n], s) for n, s in ng._obj_to_name.items()) and \
        want.python_code("self").src == got.python_code("self").src


_CHECKED = []


def appender(graph):
    """A function (target, args, kwargs, name) -> the call_function node it
    appends to graph (a new graph, inserting at its end), as
    graph.create_node makes it: the fast path where the probe found it
    equal to FX on this torch and the node's arguments are plain."""
    if not _CHECKED:
        try:
            ok = _probe()
        except Exception:  # any difference in FX's internals: use FX's own
            ok = False
        _CHECKED.append(ok)
    create = graph.create_node

    def slow(target, args, kwargs, name):
        return create("call_function", target, args, kwargs, name=name)

    if not _CHECKED[0] or graph._insert != graph._root.prepend:  # not inserting at the end
        return slow

    def append(target, args, kwargs, name):
        return _append_fast(graph, target, args, kwargs, name) or slow(target, args, kwargs, name)
    return append
