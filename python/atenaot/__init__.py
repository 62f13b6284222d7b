"""atenaot from Python: compile a PyTorch module into a standalone C library
and call it, and run atenaot's functionalize/reinplace passes on FX graphs.

    import atenaot
    cm = atenaot.compile(model, (x,))      # traces, runs the atenaot CLI
    y = cm(x)                              # torch in, torch out (numpy in, numpy out)

Needs only the standard library; numpy and torch when you pass them in. The
CLI is $ATENAOT, `atenaot` on PATH, or this checkout's bazel-bin/atenaot.
"""
from ._cli import CompileError, find_cli
from ._model import AtenaotError, TensorInfo
from .compiled import CompiledModel, compile, load

__all__ = ["compile", "load", "CompiledModel", "CompileError", "AtenaotError", "TensorInfo", "find_cli", "fx"]


def __getattr__(name):  # atenaot.fx imports torch: only on first use
    if name == "fx":
        import importlib
        return importlib.import_module(".fx", __name__)
    raise AttributeError("module 'atenaot' has no attribute %r" % name)
