"""atenaot.compile and atenaot.load: a model compiled by the CLI, called
from Python with torch tensors or numpy arrays."""
import json
import os
import sys
import tempfile

from . import _model
from ._cli import CompileError, run_cli

META_FILE = "atenaot_python.json"  # what compile() knew, for load()
PLAN_TEXT, PLAN_JSON = "plan.txt", "plan.json"
_TARGETS = {"c": "cpu", "cpu": "cpu", "cuda": "cuda"}


def _torch():
    """torch if the caller has imported it (never imported on our own)."""
    return sys.modules.get("torch")


def _is_torch_tensor(x):
    t = _torch()
    return t is not None and isinstance(x, t.Tensor)


def _as_tuple(example_inputs):
    if isinstance(example_inputs, (tuple, list)):
        return tuple(example_inputs)
    return (example_inputs,)


def _save_inputs(inputs, work):
    import numpy as np
    paths = []
    for k, x in enumerate(inputs):
        if _is_torch_tensor(x):
            x = x.detach().cpu().numpy()
        elif not isinstance(x, np.ndarray):
            raise TypeError("example input %d: expected a torch tensor or numpy array, got %s" % (k, type(x).__name__))
        paths.append(os.path.join(work, "input_%d.npy" % k))
        np.save(paths[-1], x)
    return paths


def _save_module(fn, inputs, path):
    """Saves fn as a TorchScript archive: scripted/traced modules as they are,
    other modules and functions traced on the example inputs."""
    import torch
    if isinstance(fn, torch.jit.ScriptModule):
        fn.save(path)
        return
    if not isinstance(fn, torch.nn.Module):
        if not callable(fn):
            raise TypeError("atenaot.compile takes an nn.Module, a ScriptModule or a function, got %s"
                            % type(fn).__name__)

        func = fn

        class _Fn(torch.nn.Module):  # torch.jit.save needs a module, not a function
            def forward(self, *args):
                return func(*args)
        fn = _Fn()
    args = tuple(torch.from_numpy(x.copy()) if not isinstance(x, torch.Tensor) else x.clone() for x in inputs)
    with torch.no_grad():
        traced = torch.jit.trace(fn, args, check_trace=False)
    traced.save(path)


def compile(module_or_function, example_inputs, *, out_dir=None, name=None, target="c", embedded=False,
            weights="embed"):
    """Traces (or takes a scripted/traced module), compiles through the
    atenaot CLI into out_dir (a new temporary directory by default) and
    returns the CompiledModel. Raises CompileError with atenaot's message."""
    if target not in _TARGETS:
        raise ValueError("target must be one of %s, got %r" % (", ".join(sorted(_TARGETS)), target))
    inputs = _as_tuple(example_inputs)
    name = name or "model"
    out_dir = os.path.abspath(os.fspath(out_dir)) if out_dir is not None else tempfile.mkdtemp(prefix="atenaot_")
    with tempfile.TemporaryDirectory(prefix="atenaot_trace_") as work:
        npys = _save_inputs(inputs, work)  # before tracing: the model may update its inputs
        pt = os.path.join(work, "model.pt")
        _save_module(module_or_function, inputs, pt)
        args = ["compile", pt, "--inputs"] + npys + ["-o", out_dir, "--name", name, "--weights", weights,
                                                     "--target", _TARGETS[target]]
        if embedded:
            args.append("--embedded")
        run_cli(args)
        report = run_cli(["plan", pt, "--inputs"] + npys + ["--json", os.path.join(out_dir, PLAN_JSON)])
    with open(os.path.join(out_dir, PLAN_TEXT), "w") as f:
        f.write(report)
    with open(os.path.join(out_dir, META_FILE), "w") as f:
        json.dump({"name": name, "target": _TARGETS[target], "embedded": bool(embedded), "weights": weights}, f)
    return CompiledModel(out_dir, name)


def load(directory, name=None):
    """Reopens a directory written by atenaot.compile (or `atenaot compile`:
    then the name is the one libNAME.so there, or pass it)."""
    directory = os.path.abspath(os.fspath(directory))
    return CompiledModel(directory, name)


class _Model(_model.Model):
    """The ctypes binding, remembering the data pointers of the last run."""

    def run(self, *inputs):
        self.last_pointers = []
        return super().run(*inputs)

    def _input(self, k, x, keep):
        t = super()._input(k, x, keep)
        self.last_pointers.append(t.data or 0)
        return t


class CompiledModel(object):
    """A compiled model: call it like the module (torch tensors in, torch
    tensors out; numpy in, numpy out). Inputs whose dtype and layout already
    match are passed without a copy; the others are copied (and, for inputs
    the model updates in place, copied back).

    path, name, inputs/outputs (TensorInfo: name, dtype, shape, mutated),
    arena_bytes, eager_peak_bytes (LibTorch eager's peak on the example
    inputs), plan() (atenaot plan's report), last_input_copied (per input of
    the last call: whether it had to be copied)."""

    def __init__(self, path, name=None):
        self.path = path
        meta = {}
        mp = os.path.join(path, META_FILE)
        if os.path.isfile(mp):
            with open(mp) as f:
                meta = json.load(f)
        self.name = name or meta.get("name") or self._only_library(path)
        self.target = meta.get("target", "cpu")
        self.embedded = bool(meta.get("embedded", False))
        self._plan_json = {}
        pj = os.path.join(path, PLAN_JSON)
        if os.path.isfile(pj):
            with open(pj) as f:
                self._plan_json = json.load(f)
        self.eager_peak_bytes = self._plan_json.get("eager_peak_bytes")
        self.last_input_copied = []
        self._m = None
        if self.embedded:  # sources only: nothing to load
            self.inputs = self.outputs = None
            self.arena_bytes = self._plan_json.get("arena_bytes")
            return
        self._m = _Model(path, self.name)
        self.inputs, self.outputs = self._m.inputs, self._m.outputs
        self.arena_bytes = self._m.arena_bytes

    @staticmethod
    def _only_library(path):
        try:
            libs = sorted(f[3:-3] for f in os.listdir(path)
                          if f.startswith("lib") and f.endswith(".so") and f != "libatenaot_runtime.so")
        except OSError as e:
            raise CompileError("cannot read %s: %s" % (path, e))
        if len(libs) != 1:
            raise CompileError("%s holds %s compiled libraries; pass name=" % (path, len(libs) or "no"))
        return libs[0]

    def plan(self):
        """atenaot plan's report for the example inputs (buffers, arena, LOAD, eager peak)."""
        p = os.path.join(self.path, PLAN_TEXT)
        if not os.path.isfile(p):
            raise CompileError("%s has no plan report (compiled outside atenaot.compile)" % self.path)
        with open(p) as f:
            return f.read()

    def _prepare(self, k, x, torch_mod):
        """(array to pass, original or None, copied) for input k."""
        import numpy as np
        orig = x
        if torch_mod is not None and isinstance(x, torch_mod.Tensor):
            if x.device.type != "cpu":
                raise TypeError("input %d is on %s; pass CPU tensors" % (k, x.device))
            ptr = x.data_ptr()
            x = x.detach().resolve_conj().resolve_neg().numpy()  # a view: same memory
        elif isinstance(x, np.ndarray):
            ptr = x.ctypes.data
        else:
            return x, None, False  # lists, Tensor, array.array: the binding's rules
        a = x if x.dtype.isnative else x.astype(x.dtype.newbyteorder("="))
        a = np.require(a, requirements=["C", "A", "W"])
        copied = a.ctypes.data != ptr or a.strides != x.strides
        return a, orig, copied

    def __call__(self, *args):
        if self._m is None:
            raise CompileError("%s was compiled with embedded=True: sources only, nothing to run" % self.path)
        torch_mod = _torch()
        as_torch = any(_is_torch_tensor(a) for a in args)
        prepared = [self._prepare(k, x, torch_mod) for k, x in enumerate(args)]
        outs = self._m.run(*[p[0] for p in prepared])
        self.last_input_copied = [p[2] for p in prepared]
        for k, (a, orig, copied) in enumerate(prepared):
            if copied and k < len(self.inputs) and self.inputs[k].mutated:  # the model wrote the copy
                if as_torch and isinstance(orig, torch_mod.Tensor):
                    with torch_mod.no_grad():
                        orig.copy_(torch_mod.from_numpy(a))
                else:
                    orig[...] = a
        if as_torch:
            outs = [torch_mod.from_numpy(o) for o in outs]
        return outs[0] if len(outs) == 1 else tuple(outs)

    @property
    def last_input_pointers(self):
        """The data pointers handed to the C ABI on the last call."""
        return list(getattr(self._m, "last_pointers", []))

    def close(self):
        if self._m is not None:
            self._m.close()

    def __repr__(self):
        return "CompiledModel(%r, name=%r, inputs=%s, outputs=%s, arena_bytes=%s)" % (
            self.path, self.name, self.inputs, self.outputs, self.arena_bytes)
