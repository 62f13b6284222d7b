"""torch.fx GraphModules of ATen ops <-> atenaot IR text (docs/ir_format.md).

to_ir runs the graph once on sample inputs to learn every value's dtype,
sizes, strides, storage offset and storage (which values share memory), and
prints the graph in atenaot's text format; from_ir parses the text atenaot
prints back into a GraphModule over the same root (for get_attr tensors)."""
import math
import operator
import re

import torch
import torch.fx

_DTYPE_CODE = {torch.float32: "f32", torch.float64: "f64", torch.float16: "f16", torch.bfloat16: "bf16",
               torch.int8: "i8", torch.int16: "i16", torch.int32: "i32", torch.int64: "i64",
               torch.uint8: "u8", torch.bool: "bool", torch.complex64: "c64"}
# ATen's ScalarType numbering (c10/core/ScalarType.h), what the IR writes for dtype arguments.
_SCALAR_TYPES = [torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64, torch.float16, torch.float32,
                 torch.float64, torch.complex32, torch.complex64, torch.complex128, torch.bool]
_SCALAR_TYPES += [None, None, None, torch.bfloat16]  # qint8, quint8, qint32 are not used here
_MEMORY_FORMATS = [torch.contiguous_format, torch.preserve_format, torch.channels_last, torch.channels_last_3d]
_LAYOUTS = [torch.strided, torch.sparse_coo]


class IRError(ValueError):
    """The FX graph cannot be written as atenaot IR (or the IR read back)."""


def _storage_ptr(t):
    return t.storage().data_ptr()


class _Types(object):
    """Storage ids by data pointer, in order of first appearance."""

    def __init__(self):
        self.ids = {}

    def type_of(self, t, what):
        if not isinstance(t, torch.Tensor):
            raise IRError("%s is a %s, not a tensor (atenaot IR values are tensors)" % (what, type(t).__name__))
        if t.dtype not in _DTYPE_CODE:
            raise IRError("%s has dtype %s, which atenaot IR does not carry" % (what, t.dtype))
        sizes = list(t.shape)
        s = "%s[%s]" % (_DTYPE_CODE[t.dtype], ",".join(str(d) for d in sizes))
        contiguous = []
        step = 1
        for d in reversed(sizes):
            contiguous.insert(0, step)
            step *= d
        strides = list(t.stride())
        if any(sz != 1 and st != c for sz, st, c in zip(sizes, strides, contiguous)):
            s += "{%s}" % ",".join(str(x) for x in strides)
        if t.storage_offset():
            s += "+%d" % t.storage_offset()
        ptr = _storage_ptr(t)
        key = ptr if ptr else ("empty", id(t))  # no memory: a storage of its own
        if key not in self.ids:
            self.ids[key] = len(self.ids)
        return s + "@s%d" % self.ids[key]


def _literal(v, names, what):
    if isinstance(v, torch.fx.Node):
        if v not in names:
            raise IRError("%s uses %s, which has no atenaot value (a non-tensor result?)" % (what, v.name))
        return names[v]
    if v is None:
        return "none"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        if math.isnan(v):
            return "nan"
        if math.isinf(v):
            return "inf" if v > 0 else "-inf"
        r = repr(v)
        return r if ("." in r or "e" in r) else r + ".0"
    if isinstance(v, str):
        return '"%s"' % v.replace("\\", "\\\\").replace('"', '\\"')
    if isinstance(v, torch.dtype):
        return str(_SCALAR_TYPES.index(v))
    if isinstance(v, torch.memory_format):
        return str(_MEMORY_FORMATS.index(v))
    if isinstance(v, torch.layout):
        return str(_LAYOUTS.index(v))
    if isinstance(v, torch.device):
        return 'device("%s")' % v
    if isinstance(v, (list, tuple)):
        return "[%s]" % ", ".join(_literal(e, names, what) for e in v)
    raise IRError("%s: argument %r of type %s has no atenaot IR literal" % (what, v, type(v).__name__))


def _ir_name(name):
    return "%" + re.sub(r"[^A-Za-z0-9_.]", "_", name)


def _op_name(target):
    if not isinstance(target, torch._ops.OpOverload):
        raise IRError("%s is not an ATen op overload (make_fx graphs call torch.ops.aten.*.*)" % (target,))
    ns, op = target._schema.name.split("::")
    overload = target._overloadname
    return "%s::%s%s" % (ns, op, "" if overload == "default" else "." + overload)


def _scalar_overload(target, vals):
    """FX passes Python numbers to Tensor arguments (add.Tensor(x, 1));
    atenaot IR does not: the overload of the same op taking a Scalar there."""
    bad = [k for k, (a, v) in enumerate(zip(target._schema.arguments, vals))
           if str(a.type) == "Tensor" and isinstance(v, (int, float, bool))]
    if not bad:
        return target, vals
    key = (target, tuple(bad))
    if key not in _SCALAR_OVERLOADS:
        _SCALAR_OVERLOADS[key] = _find_scalar_overload(target, bad, vals)
    return _SCALAR_OVERLOADS[key], vals


_SCALAR_OVERLOADS = {}  # (op, argument positions given numbers) -> overload


def _find_scalar_overload(target, bad, vals):
    packet = getattr(getattr(torch.ops, target._schema.name.split("::")[0]), target._schema.name.split("::")[1])
    for name in packet.overloads():
        cand = getattr(packet, name)
        cargs = cand._schema.arguments
        if len(cargs) < len(vals) or any(not a.has_default_value() for a in cargs[len(vals):]):
            continue
        ok = True
        for k, (a, c) in enumerate(zip(target._schema.arguments, cargs)):
            want = "number" if k in bad else str(a.type)  # Scalar prints as number
            if str(c.type) != want:
                ok = False
                break
        if ok:
            return cand
    raise IRError("%s takes a tensor as argument %d, given %r, and has no Scalar overload"
                  % (_op_name(target), bad[0], vals[bad[0]]))


def _schema_args(node):
    """The node's arguments in schema order; missing ones as their defaults."""
    schema = node.target._schema
    out = []
    for k, a in enumerate(schema.arguments):
        if k < len(node.args) and not a.kwarg_only:
            out.append(node.args[k])
        elif a.name in node.kwargs:
            out.append(node.kwargs[a.name])
        elif a.has_default_value():
            out.append(a.default_value)
        else:
            raise IRError("%s: argument %s is missing" % (node.name, a.name))
    return out


def to_ir(gm, sample_args):
    """(IR text, extra): the graph as atenaot IR. Tensors the graph reads
    with get_attr become extra inputs after the placeholders (extra lists
    their attribute names)."""
    values = {}  # node -> real value of a sample run
    interp = torch.fx.Interpreter(gm, garbage_collect_values=False)  # keep all alive: distinct storages
    real_run = interp.run
    args = [a.clone() if isinstance(a, torch.Tensor) else a for a in sample_args]  # the graph may mutate them
    orig_run_node = interp.run_node

    def run_node(n):
        r = orig_run_node(n)
        values[n] = r
        return r
    interp.run_node = run_node
    with torch.no_grad():
        real_run(*args)

    types = _Types()
    names = {}
    inputs, extra, body = [], [], []
    used_names = set()

    def fresh(name):
        base = _ir_name(name)
        n, k = base, 1
        while n in used_names:
            n = "%s_%d" % (base, k)
            k += 1
        used_names.add(n)
        return n

    placeholders = [n for n in gm.graph.nodes if n.op == "placeholder"]
    attrs = [n for n in gm.graph.nodes if n.op == "get_attr"]
    for n in placeholders + attrs:
        names[n] = fresh(n.name)
        inputs.append("%s: %s" % (names[n], types.type_of(values[n], "input " + n.name)))
        if n.op == "get_attr":
            extra.append(n.target)
    ret = None
    for n in gm.graph.nodes:
        if n.op in ("placeholder", "get_attr"):
            continue
        if n.op == "output":
            ret = _tree(n.args[0], names, "the output")
            continue
        if n.op != "call_function":
            raise IRError("node %s: %s nodes are not supported (only ATen calls)" % (n.name, n.op))
        if n.target is operator.getitem:
            src, idx = n.args
            if not isinstance(src, torch.fx.Node) or (src, idx) not in names:
                raise IRError("node %s: getitem of something that is not an op's result list" % n.name)
            names[n] = names[(src, idx)]
            continue
        _op_name(n.target)  # an ATen op
        target, vals = _scalar_overload(n.target, _schema_args(n))
        if target is torch.ops.aten._reshape_alias.default:
            # make_fx's reshape-as-a-view: the strides it carries are what view computes
            # from the sizes, but a *_copy of it (functionalize-noviews) would apply them to
            # a base of another layout.
            target, vals = torch.ops.aten.view.default, vals[:2]
        op = _op_name(target)
        v = values[n]
        sargs = ", ".join(_literal(a, names, "node " + n.name) for a in vals)
        returns = target._schema.returns
        if len(returns) == 1 and str(returns[0].type) == "List[Tensor]":
            rs = [fresh("%s_%d" % (n.name, i)) for i in range(len(v))]
            for i, r in enumerate(rs):
                names[(n, i)] = r
            tys = "[%s]" % ", ".join(types.type_of(x, n.name) for x in v)
        elif len(returns) == 1:
            rs = [fresh(n.name)]
            names[n] = rs[0]
            tys = types.type_of(v, n.name)
        elif len(returns) == 0:
            raise IRError("node %s: %s returns nothing" % (n.name, op))
        else:
            rs = [fresh("%s_%d" % (n.name, i)) for i in range(len(v))]
            for i, r in enumerate(rs):
                names[(n, i)] = r
            tys = ", ".join(types.type_of(x, n.name) for x in v)
        body.append("  %s = %s(%s) : %s" % (", ".join(rs), op, sargs, tys))
    text = "graph @forward(%s) {\n%s\n  return %s\n}\n" % (", ".join(inputs), "\n".join(body), ret)
    return text, extra


def _tree(v, names, what):
    if isinstance(v, torch.fx.Node):
        if v not in names:
            raise IRError("%s returns %s, which is not a tensor value" % (what, v.name))
        return names[v]
    if isinstance(v, tuple):
        return "(%s%s)" % (", ".join(_tree(e, names, what) for e in v), "," if len(v) == 1 else "")
    if isinstance(v, list):
        return "[%s]" % ", ".join(_tree(e, names, what) for e in v)
    raise IRError("%s contains %r, not a tensor (atenaot graphs return tensors)" % (what, v))


# ---------------------------------------------------------------------------
# Reading atenaot IR text back

_TOKEN = re.compile(r'\s*(?:(%[A-Za-z0-9_.]+)|("(?:[^"\\]|\\.)*")|(-?inf|nan)|'
                    r'(-?\d+\.\d*(?:[eE][-+]?\d+)?|-?\d+[eE][-+]?\d+)|(-?\d+)|(true|false|none)|'
                    r'(device\("[^"]*"\))|([\[\](),]))')


def _parse_args(s, what):
    """The argument list text (without the parentheses) -> Python values;
    values are ('%name',) tuples."""
    pos = 0
    toks = []
    while pos < len(s):
        if s[pos:].strip() == "":
            break
        m = _TOKEN.match(s, pos)
        if not m:
            raise IRError("%s: cannot read the arguments at %r" % (what, s[pos:pos + 30]))
        toks.append(m)
        pos = m.end()
    k = 0

    def value():
        nonlocal k
        m = toks[k]
        k += 1
        name, string, special, flt, integer, word, dev, punct = m.groups()
        if name:
            return (name,)
        if string is not None:
            return re.sub(r"\\(.)", r"\1", string[1:-1])
        if special:
            return float(special)
        if flt:
            return float(flt)
        if integer:
            return int(integer)
        if word:
            return {"true": True, "false": False, "none": None}[word]
        if dev:
            return torch.device(dev[8:-2])
        if punct == "[":
            out = []
            while toks[k].group(8) != "]":
                out.append(value())
                if toks[k].group(8) == ",":
                    k += 1
            k += 1
            return out
        raise IRError("%s: unexpected %r in the arguments" % (what, punct))

    out = []
    while k < len(toks):
        out.append(value())
        if k < len(toks) and toks[k].group(8) == ",":
            k += 1
    return out


def _split_top(s):
    """Splits at commas outside brackets."""
    parts, depth, cur = [], 0, ""
    for ch in s:
        if ch in "[({":
            depth += 1
        elif ch in "])}":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        parts.append(cur.strip())
    return parts


def _resolve_op(name):
    ns, rest = name.split("::")
    op, _, overload = rest.partition(".")
    try:
        return getattr(getattr(getattr(torch.ops, ns), op), overload or "default")
    except (AttributeError, RuntimeError):
        raise IRError("atenaot printed %s, which this torch does not have" % name)


_ENUMS = {"ScalarType": _SCALAR_TYPES, "MemoryFormat": _MEMORY_FORMATS, "Layout": _LAYOUTS}
_DECLARED = {}  # op -> declared argument types ("MemoryFormat?"): str(a.type) says Optional[int]


def _declared_types(op):
    if op not in _DECLARED:
        text = str(op._schema)
        inner = text[text.index("(") + 1:text.rindex(") ->")]
        _DECLARED[op] = [p.split()[0] for p in _split_top(inner) if p != "*"]
    return _DECLARED[op]


def _from_literal(v, declared):
    """A literal for an argument declared `declared` (ScalarType?, ...) as FX
    expects it: ATen's enum codes back to torch.dtype and friends."""
    if v is None or isinstance(v, torch.fx.Node) or not isinstance(v, int) or isinstance(v, bool):
        return v
    table = _ENUMS.get(declared.rstrip("?"))
    return table[v] if table is not None else v


def from_ir(text, gm, extra):
    """A GraphModule over gm (for its attributes) from atenaot IR text; the
    inputs after gm's placeholders are read with get_attr (extra)."""
    lines = [l.split("//")[0].strip() for l in text.splitlines()]
    lines = [l for l in lines if l]
    head = lines[0]
    m = re.match(r"graph @\S+\((.*)\) \{$", head)
    if not m:
        raise IRError("not atenaot IR text: %r" % head)
    g = torch.fx.Graph()
    env = {}
    in_names = [p.split(":")[0].strip() for p in _split_top(m.group(1))]
    n_place = len(in_names) - len(extra)
    for k, nm in enumerate(in_names):
        env[nm] = g.placeholder(nm[1:]) if k < n_place else g.get_attr(extra[k - n_place])

    def sub(v):
        if isinstance(v, tuple):
            if v[0] not in env:
                raise IRError("atenaot IR uses %s before defining it" % v[0])
            return env[v[0]]
        if isinstance(v, list):
            return [sub(e) for e in v]
        return v

    for line in lines[1:]:
        if line == "}":
            break
        if line.startswith("weight "):
            raise IRError("atenaot IR has a weight (%s); expected none" % line)
        if line.startswith("return"):
            g.output(_parse_tree(line[len("return"):].strip(), env))
            continue
        m = re.match(r"(.*?) = ([A-Za-z_]+::[A-Za-z0-9_.]+)\((.*)\) : (.*)$", line)
        if not m:
            raise IRError("cannot read atenaot IR line %r" % line)
        results = [r.strip() for r in m.group(1).split(",")]
        op = _resolve_op(m.group(2))
        schema = op._schema
        vals = [sub(v) for v in _parse_args(m.group(3), line)]
        args, kwargs = [], {}
        for a, v, declared in zip(schema.arguments, vals, _declared_types(op)):
            v = _from_literal(v, declared)
            if a.kwarg_only:
                if not (a.has_default_value() and v == a.default_value):
                    kwargs[a.name] = v
            else:
                args.append(v)
        node = g.create_node("call_function", op, tuple(args), kwargs, name=_py_name(results[0]))
        if len(results) == 1 and not m.group(4).startswith("["):
            env[results[0]] = node
        else:
            for i, r in enumerate(results):
                env[r] = g.call_function(operator.getitem, (node, i))
    g.lint()
    return torch.fx.GraphModule(gm, g)


def _py_name(ir_name):
    """atenaot's value name as a node name (FX makes it unique)."""
    n = re.sub(r"[^A-Za-z0-9_]", "_", ir_name.lstrip("%"))
    return n if n and not n[0].isdigit() else "v_" + n


def _parse_tree(s, env):
    s = s.strip()
    if s.startswith("("):
        inner = s[1:-1]
        return tuple(_parse_tree(p, env) for p in _split_top(inner))
    if s.startswith("["):
        return [_parse_tree(p, env) for p in _split_top(s[1:-1])]
    if s not in env:
        raise IRError("atenaot IR returns %s, which it does not define" % s)
    return env[s]
