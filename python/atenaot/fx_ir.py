"""torch.fx GraphModules of ATen ops <-> atenaot IR text (docs/ir_format.md).

to_ir runs the graph once on sample inputs to learn every value's dtype,
sizes, strides, storage offset and storage (which values share memory), and
prints the graph in atenaot's text format; from_ir parses the text atenaot
prints back into a GraphModule over the same root (for get_attr tensors).

Both run per node, on graphs of thousands of nodes: schema facts are read
once per op, the sample run skips torch.fx.Interpreter's per-node machinery,
and from_ir reads flat argument lists without the tokenizer. from_ir builds a
new graph rather than editing a copy of gm's: copying a graph costs about
what building it does, and most nodes change in reinplace anyway. The new
graph's nodes are appended by _fx_nodes and its Python source is written by
_fx_codegen (FX's state and source, faster). What is left is mostly the
sample run's ATen calls and Python's compile of that source.

The sample run reads get_attr tensors from copies (_aliased_copy) where the
graph has an op that writes: it may write to its constants, and a pass must
not change the caller's module."""
import math
import operator
import re

import torch
import torch.fx

from . import _fx_codegen, _fx_nodes

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


def _storage_key(t, offset):
    """Which storage t (at storage offset `offset`) lies in: its base address
    (a tensor without memory has a storage of its own). data_ptr arithmetic,
    not t.storage(), which builds a Python storage object per call."""
    ptr = t.data_ptr() - offset * t.element_size()
    return ptr if ptr else ("empty", id(t))


class _Types(object):
    """Value types as IR text; storage ids by storage, in order of first
    appearance."""

    def __init__(self):
        self.ids = {}
        self.layouts = {}  # (dtype, sizes, strides, offset) -> "f32[4]{...}+k"

    def type_of(self, t, what):
        if not isinstance(t, torch.Tensor):
            raise IRError("%s is a %s, not a tensor (atenaot IR values are tensors)" % (what, type(t).__name__))
        offset = t.storage_offset()
        key = (t.dtype, t.shape, t.stride(), offset)
        s = self.layouts.get(key)
        if s is None:
            s = self.layouts[key] = _layout(*key, what=what)
        sid = self.ids.setdefault(_storage_key(t, offset), len(self.ids))
        return "%s@s%d" % (s, sid)


def _layout(dtype, sizes, strides, offset, what):
    """dtype[sizes], then {strides} where they are not the contiguous ones
    (ignoring size-1 dimensions) and +offset where it is not 0."""
    if dtype not in _DTYPE_CODE:
        raise IRError("%s has dtype %s, which atenaot IR does not carry" % (what, dtype))
    s = "%s[%s]" % (_DTYPE_CODE[dtype], ",".join(map(str, sizes)))
    step = 1
    for sz, st in zip(reversed(sizes), reversed(strides)):
        if sz != 1 and st != step:
            s += "{%s}" % ",".join(map(str, strides))
            break
        step *= sz
    return s + ("+%d" % offset if offset else "")


def _float_literal(v):
    if math.isnan(v):
        return "nan"
    if math.isinf(v):
        return "inf" if v > 0 else "-inf"
    r = repr(v)
    return r if ("." in r or "e" in r) else r + ".0"


# Exact type -> literal, for the kinds nearly every argument is (one dict
# lookup instead of a chain of isinstance tests).
_SIMPLE_LITERALS = {int: str, float: _float_literal, bool: lambda v: "true" if v else "false",
                    type(None): lambda v: "none"}


def _literal(v, names, what):
    """v as an IR literal; `what` names the user in errors: a string, or the
    node (described only when there is an error)."""
    simple = _SIMPLE_LITERALS.get(type(v))
    if simple is not None:
        return simple(v)
    if isinstance(v, torch.fx.Node):
        if v not in names:
            what = "node " + what.name if isinstance(what, torch.fx.Node) else what
            raise IRError("%s uses %s, which has no atenaot value (a non-tensor result?)" % (what, v.name))
        return names[v]
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        return _float_literal(v)
    if isinstance(what, torch.fx.Node):
        what = "node " + what.name
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


_BAD_IR_CHARS = re.compile(r"[^A-Za-z0-9_.]")


def _ir_name(name):
    if name.isidentifier() and name.isascii():  # letters, digits, _: nothing to replace
        return "%" + name
    return "%" + _BAD_IR_CHARS.sub("_", name)


def _op_name(target):
    return _op_info(target).name


class _OpInfo(object):
    """What to_ir needs of an op's schema, read once per op (schema
    attributes are built anew on every access)."""

    def __init__(self, target):
        schema = target._schema
        ns, op = schema.name.split("::")
        overload = target._overloadname
        self.name = "%s::%s%s" % (ns, op, "" if overload == "default" else "." + overload)
        # (name, kwarg_only, has_default, default) per argument
        self.args = [(a.name, a.kwarg_only, a.has_default_value(), a.default_value if a.has_default_value() else None)
                     for a in schema.arguments]
        # For _schema_args' fast path: the defaults, how many arguments can be
        # positional, and from which position on every argument has a default.
        self.defaults = [d for _, _, _, d in self.args]
        self.positional = sum(1 for _, kwarg_only, _, _ in self.args if not kwarg_only)
        self.defaults_from = len(self.args)
        while self.defaults_from > 0 and self.args[self.defaults_from - 1][2]:
            self.defaults_from -= 1
        self.tensor_args = [k for k, a in enumerate(schema.arguments) if str(a.type) == "Tensor"]
        self.writes = any(a.alias_info is not None and a.alias_info.is_write for a in schema.arguments)
        rets = schema.returns
        self.returns = "none" if not rets else "many" if len(rets) > 1 else \
            "list" if str(rets[0].type) == "List[Tensor]" else "one"


_OP_INFO = {}  # id(op overload) -> (op, _OpInfo): OpOverload's __hash__ is Python code, slow as a key


def _op_info(target):
    hit = _OP_INFO.get(id(target))
    if hit is None:
        if not isinstance(target, torch._ops.OpOverload):
            raise IRError("%s is not an ATen op overload (make_fx graphs call torch.ops.aten.*.*)" % (target,))
        hit = _OP_INFO[id(target)] = (target, _OpInfo(target))  # holding target keeps its id unique
    return hit[1]


def _scalar_overload(target, info, vals):
    """FX passes Python numbers to Tensor arguments (add.Tensor(x, 1));
    atenaot IR does not: the overload of the same op taking a Scalar there."""
    if not info.tensor_args:
        return target, vals
    bad = tuple(k for k in info.tensor_args if k < len(vals) and isinstance(vals[k], (int, float, bool)))
    if not bad:
        return target, vals
    key = (id(target), bad)
    if key not in _SCALAR_OVERLOADS:
        _SCALAR_OVERLOADS[key] = _find_scalar_overload(target, bad, vals)
    return _SCALAR_OVERLOADS[key], vals


_SCALAR_OVERLOADS = {}  # (id(op), argument positions given numbers) -> overload (ops are never freed)


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


def _schema_args(node, info):
    """The node's arguments in schema order; missing ones as their defaults."""
    args, kwargs = node.args, node.kwargs
    if not kwargs and info.defaults_from <= len(args) <= info.positional:
        return list(args) + info.defaults[len(args):]
    out = []
    for k, (name, kwarg_only, has_default, default) in enumerate(info.args):
        if k < len(args) and not kwarg_only:
            out.append(args[k])
        elif name in kwargs:
            out.append(kwargs[name])
        elif has_default:
            out.append(default)
        else:
            raise IRError("%s: argument %s is missing" % (node.name, name))
    return out


def _load(a, env):
    """An FX argument with nodes replaced by their values."""
    if isinstance(a, torch.fx.Node):
        return env[a]
    if isinstance(a, (list, tuple)):
        return type(a)(_load(e, env) for e in a)
    if isinstance(a, dict):
        return {k: _load(e, env) for k, e in a.items()}
    return a


def _sample_run(gm, sample_args, nodes=None):
    """node -> its value on the sample inputs, as torch.fx.Interpreter
    computes it, less its per-node overhead. All values stay alive, so
    distinct values never share a recycled storage. `nodes`: gm's node list,
    where the caller has it."""
    nodes = list(gm.graph.nodes) if nodes is None else nodes
    # Attributes are read from copies where an op may write (a functional
    # graph's weights are not copied).
    overload = torch._ops.OpOverload
    writes = any(n.op == "call_function" and type(n.target) is overload and _op_info(n.target).writes for n in nodes)
    env, copies = {}, {} if writes else None
    # Inference mode: ~10% less per ATen call than no_grad. Every tensor the
    # run writes is made inside it (inputs and attributes are copies), and
    # only the values' layouts and storages are read after it.
    with torch.inference_mode():
        inputs = [a.clone() if isinstance(a, torch.Tensor) else a for a in sample_args]  # the graph may mutate them
        inputs = iter(gm.graph.process_inputs(*inputs))
        for n in nodes:
            try:
                env[n] = _run_node(gm, n, env, inputs, copies)
            except IRError:
                raise
            except Exception as e:  # as the Interpreter: say which node failed
                msg = "While executing %s" % n.format_node()
                e.args = ("%s\n\n%s" % (e.args[0], msg) if e.args else msg,) + e.args[1:]
                if isinstance(e, KeyError):
                    raise RuntimeError(*e.args)
                raise
    return env


_AGGREGATES = (list, tuple, dict)


def _run_node(gm, n, env, inputs, copies):
    if n.op == "call_function":
        args = [env[a] if isinstance(a, torch.fx.Node) else _load(a, env) if isinstance(a, _AGGREGATES) else a
                for a in n.args]
        # An op overload's C++ operator directly, without its Python __call__ frame.
        fn = n.target._op if type(n.target) is torch._ops.OpOverload else n.target
        if not n.kwargs:
            return fn(*args)
        return fn(*args, **{k: _load(v, env) for k, v in n.kwargs.items()})
    if n.op == "placeholder":
        if n.target.startswith("*"):
            return list(inputs)
        try:
            return next(inputs)
        except StopIteration:
            if n.args:
                return n.args[0]  # the placeholder's default value
            raise RuntimeError("Expected positional argument for parameter %s, but one was not passed in!" % n.target)
    if n.op == "get_attr":
        obj = gm
        for part in n.target.split("."):
            obj = getattr(obj, part)
        return _aliased_copy(obj, copies) if copies is not None and isinstance(obj, torch.Tensor) else obj
    if n.op == "output":
        return None
    raise IRError("node %s: %s nodes are not supported (only ATen calls)" % (n.name, n.op))


def _aliased_copy(t, copies):
    """t in a copy of its storage, so that the sample run cannot change the
    module's tensors (a graph may write to its constants and buffers). One
    copy per storage and dtype: attributes sharing memory still share it."""
    key = (_storage_key(t, t.storage_offset()), t.dtype)
    whole = copies.get(key)
    if whole is None:
        whole = copies[key] = t.new_empty(0).set_(t.storage()).clone()  # 1-D over the whole storage
    return whole.as_strided(t.size(), t.stride(), t.storage_offset())


def to_ir(gm, sample_args):
    """(IR text, extra): the graph as atenaot IR. Tensors the graph reads
    with get_attr become extra inputs after the placeholders (extra lists
    their attribute names)."""
    nodes = list(gm.graph.nodes)
    values = _sample_run(gm, sample_args, nodes)
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

    placeholders = [n for n in nodes if n.op == "placeholder"]
    attrs = [n for n in nodes if n.op == "get_attr"]
    for n in placeholders + attrs:
        names[n] = fresh(n.name)
        inputs.append("%s: %s" % (names[n], types.type_of(values[n], "input " + n.name)))
        if n.op == "get_attr":
            extra.append(n.target)
    ret = None
    plans = {}
    tensor_type, layouts, sids = torch.Tensor, types.layouts, types.ids
    sid = sids.setdefault
    # Per node below: locals for what every node looks up, and node
    # arguments named without a call.
    node_type, type_of, literal, op_infos, append = torch.fx.Node, types.type_of, _literal, _OP_INFO, body.append
    for n in nodes:
        op = n.op
        if op == "placeholder" or op == "get_attr":
            continue
        if op == "output":
            ret = _tree(n.args[0], names, "the output")
            continue
        if n.target is operator.getitem:
            src, idx = n.args
            if not isinstance(src, torch.fx.Node) or (src, idx) not in names:
                raise IRError("node %s: getitem of something that is not an op's result list" % n.name)
            names[n] = names[(src, idx)]
            continue
        args = n.args
        # What the node's op and argument types decide (the op written, the
        # arguments kept, the defaults' text) is worked out once per kind.
        key = None if n.kwargs else (id(n.target),) + tuple(map(type, args))
        plan = plans.get(key)
        if plan is None:
            plan = _call_plan(n, key is not None)
            if key is not None and plan[3] is None:
                plans[key] = plan
        info, keep, tail, vals = plan
        if vals is None:
            vals = args if keep is None else args[:keep]
        v = values[n]
        sargs = ", ".join([names[a] if type(a) is node_type and a in names else literal(a, names, n) for a in vals]
                          + tail)
        if info.returns == "one":
            name = n.name
            r = "%" + name  # fresh(name), inlined where _ir_name keeps the name
            if r in used_names or not (name.isidentifier() and name.isascii()):
                r = fresh(name)
            else:
                used_names.add(r)
            rs = [r]
            names[n] = r
            if type(v) is tensor_type:  # type_of, inlined
                offset = v.storage_offset()
                layout = layouts.get((v.dtype, v.shape, v.stride(), offset))
                ptr = v.data_ptr() - offset * v.element_size()
                tys = type_of(v, n.name) if layout is None or not ptr else "%s@s%d" % (layout, sid(ptr, len(sids)))
            else:
                tys = type_of(v, n.name)
        elif info.returns == "none":
            raise IRError("node %s: %s returns nothing" % (n.name, info.name))
        else:
            rs = [fresh("%s_%d" % (n.name, i)) for i in range(len(v))]
            for i, r in enumerate(rs):
                names[(n, i)] = r
            tys = ", ".join(type_of(x, n.name) for x in v)
            if info.returns == "list":
                tys = "[%s]" % tys
        append("  %s = %s(%s) : %s" % (", ".join(rs), info.name, sargs, tys))
    text = "graph @forward(%s) {\n%s\n  return %s\n}\n" % (", ".join(inputs), "\n".join(body), ret)
    return text, extra


def _call_plan(n, plain):
    """(info of the op written, how many of the node's arguments it keeps
    (None: all), the IR text of the defaults after them, None): the same for
    every node of n's op and argument types; or, where that does not hold,
    (info, None, [], n's values in schema order). `plain`: n has no keyword
    arguments."""
    hit = _OP_INFO.get(id(n.target))
    info = hit[1] if hit is not None else _op_info(n.target)
    target, vals = _scalar_overload(n.target, info, _schema_args(n, info))
    args = n.args
    cacheable = plain and info.defaults_from <= len(args) <= info.positional  # _schema_args' fast path
    keep = None
    if target is torch.ops.aten._reshape_alias.default:
        # make_fx's reshape-as-a-view: the strides it carries are what view computes
        # from the sizes, but a *_copy of it (functionalize-noviews) would apply them to
        # a base of another layout.
        target, keep = torch.ops.aten.view.default, 2
    if target is not n.target:
        info = _op_info(target)
    if not cacheable:  # the schema's order, keyword arguments placed
        return info, None, [], vals[:keep]
    tail = [] if keep is not None else [_literal(d, {}, n) for d in vals[len(args):]]
    return info, keep, tail, None


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


def _parse_args(s, what, atoms, env=None):
    """The argument list text (without the parentheses) -> Python values;
    values are ('%name',) tuples, or with `env` (name -> value) the values
    (_defined). Lists, strings and devices go through the tokenizer; the
    common flat list of names and numbers is split at commas and each item
    read once per call (atoms: item text -> value)."""
    if "[" in s or '"' in s:
        vals = _parse_args_full(s, what)
        return vals if env is None else [_defined(v, env) for v in vals]
    out = []
    for item in s.split(","):
        item = item.strip()
        if not item:
            if out or s.strip():
                raise IRError("%s: empty argument in %r" % (what, s))
            continue
        if env is not None and item[0] == "%":
            v = env.get(item)
            if v is None:
                raise IRError("atenaot IR uses %s before defining it" % item)
            out.append(v)
            continue
        v = atoms.get(item, atoms)
        if v is atoms:  # not read yet
            vs = _parse_args_full(item, what)
            if len(vs) != 1:
                raise IRError("%s: cannot read the argument %r" % (what, item))
            v = atoms[item] = vs[0]
        out.append(v)
    return out


def _defined(v, env):
    """A parsed argument with ('%name',) replaced by env's value for it."""
    if isinstance(v, tuple):
        if v[0] not in env:
            raise IRError("atenaot IR uses %s before defining it" % v[0])
        return env[v[0]]
    if isinstance(v, list):
        return [_defined(e, env) for e in v]
    return v


def _parse_args_full(s, what):
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


def _declared_types(op):
    """Declared argument types ("MemoryFormat?"): str(a.type) says Optional[int]."""
    text = str(op._schema)
    inner = text[text.index("(") + 1:text.rindex(") ->")]
    return [p.split()[0] for p in _split_top(inner) if p != "*"]


class _IROp(object):
    """An op atenaot printed, read once per op name: the overload and, per
    schema argument, (name, kwarg_only, has_default, default, enum table):
    how its IR literal becomes FX's argument."""

    def __init__(self, name):
        self.op = _resolve_op(name)
        self.args = [(a.name, a.kwarg_only, a.has_default_value(),
                      a.default_value if a.has_default_value() else None, _ENUMS.get(declared.rstrip("?")))
                     for a, declared in zip(self.op._schema.arguments, _declared_types(self.op))]
        # No enum and no keyword-only argument: FX's args are the IR's as they are.
        self.plain = not any(kwarg_only or enum is not None for _, kwarg_only, _, _, enum in self.args)

    def fx_args(self, vals):
        """(args, kwargs) for FX: ATen's enum codes back to torch.dtype and
        friends; keyword-only arguments given only where not the default."""
        if self.plain and len(vals) == len(self.args):
            return tuple(vals), {}
        args, kwargs = [], {}
        for (name, kwarg_only, has_default, default, enum), v in zip(self.args, vals):
            if enum is not None and isinstance(v, int) and not isinstance(v, bool):
                v = enum[v]
            if not kwarg_only:
                args.append(v)
            elif not (has_default and v == default):
                kwargs[name] = v
        return tuple(args), kwargs


_IR_OPS = {}  # op name as printed -> _IROp


def _ir_op(name):
    op = _IR_OPS.get(name)
    if op is None:
        op = _IR_OPS[name] = _IROp(name)
    return op


_HEAD = re.compile(r"graph @\S+\((.*)\) \{$")
_LINE = re.compile(r"(.*?) = ([A-Za-z_]+::[A-Za-z0-9_.]+)\((.*)\) : (.*)$")


def from_ir(text, gm, extra):
    """A GraphModule over gm (for its attributes) from atenaot IR text; the
    inputs after gm's placeholders are read with get_attr (extra)."""
    lines = [l.split("//")[0].strip() if "//" in l else l.strip() for l in text.splitlines()]
    lines = [l for l in lines if l]
    head = lines[0]
    m = _HEAD.match(head)
    if not m:
        raise IRError("not atenaot IR text: %r" % head)
    g = torch.fx.Graph()
    cg = _fx_codegen.codegen()
    if cg is not None:
        g.set_codegen(cg)
    env = {}
    in_names = [p.split(":")[0].strip() for p in _split_top(m.group(1))]
    n_place = len(in_names) - len(extra)
    for k, nm in enumerate(in_names):
        env[nm] = g.placeholder(nm[1:]) if k < n_place else g.get_attr(extra[k - n_place])

    atoms = {}
    ir_ops = _IR_OPS
    append = _fx_nodes.appender(g)
    for line in lines[1:]:
        if line == "}":
            break
        if line.startswith("weight "):
            raise IRError("atenaot IR has a weight (%s); expected none" % line)
        if line.startswith("return"):
            g.output(_parse_tree(line[len("return"):].strip(), env))
            continue
        # Split with str methods where the op was read before (the regex's
        # groups exactly: the first " = ", the first "(", the last ") : ").
        res, eq, rest = line.partition(" = ")
        call, colon, types = rest.rpartition(") : ")
        op_name, paren, arg_text = call.partition("(")
        if not (eq and colon and paren and op_name in ir_ops):
            m = _LINE.match(line)
            if not m:
                raise IRError("cannot read atenaot IR line %r" % line)
            res, op_name, arg_text, types = m.groups()
        results = [r.strip() for r in res.split(",")] if "," in res else [res]
        op = ir_ops.get(op_name) or _ir_op(op_name)
        args, kwargs = op.fx_args(_parse_args(arg_text, line, atoms, env))
        node = append(op.op, args, kwargs, _py_name(results[0]))
        if len(results) == 1 and not types.startswith("["):
            env[results[0]] = node
        else:
            for i, r in enumerate(results):
                env[r] = g.call_function(operator.getitem, (node, i))
    # No g.lint(): every use is looked up among the values defined above it.
    return torch.fx.GraphModule(gm, g)


_BAD_PY_CHARS = re.compile(r"[^A-Za-z0-9_]")


def _py_name(ir_name):
    """atenaot's value name as a node name (FX makes it unique)."""
    n = ir_name.lstrip("%")
    if n.isidentifier() and n.isascii():  # letters, digits, _, no digit first: nothing to replace
        return n
    n = _BAD_PY_CHARS.sub("_", n)
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
