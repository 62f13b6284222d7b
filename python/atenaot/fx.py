"""atenaot's passes as drop-ins for torch.func.functionalize (on graphs) and
torch.fx.passes.reinplace: they take a GraphModule of ATen ops (what make_fx
produces) and sample inputs, and return a new GraphModule with the same
semantics, computed by atenaot's LibTorch-free passes: in this process
(libatenaot_passes.so), else by `atenaot-passes --stage ...`, else by the CLI
(`atenaot dump --stage ...`), whichever is installed first in that order."""
import contextlib
import gc
import os
import tempfile

from ._cli import find_passes_tool, run_cli
from ._passes_lib import find_passes_lib, run_passes
from .fx_ir import IRError, from_ir, to_ir

__all__ = ["functionalize", "reinplace", "run_stage", "IRError"]

_REMOVE = {"mutations": "functional", "mutations_and_views": "functional-noviews"}


@contextlib.contextmanager
def collector_paused():
    """Python's cyclic collector off inside (as it was after). A call
    creates ~10 objects a node, none garbage until it returns, and with
    torch loaded a full collection (60-100 ms) landed in a third of the
    4,000-node calls."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def run_stage(gm, sample_args, stage):
    """gm through atenaot's pipeline up to `stage` (functional,
    functional-noviews, reinplaced), as a new GraphModule."""
    with collector_paused():
        return _run_stage(gm, sample_args, stage)


def _run_stage(gm, sample_args, stage):
    text, extra = to_ir(gm, sample_args)
    lib = find_passes_lib()
    passes = None if lib else find_passes_tool()
    # The verifier on the input and the result only, not after every pass
    # too: on graphs of thousands of nodes, per call (PipelineOptions).
    if lib:
        out = run_passes(lib, text, stage, verify_ends_only=True)[0]
    elif passes:
        out = run_cli(["--stage", stage, "--verify-ends-only", "-"], stdin=text, tool=passes)
    else:
        with tempfile.TemporaryDirectory(prefix="atenaot_fx_") as d:
            path = os.path.join(d, "graph.ir")
            with open(path, "w") as f:
                f.write(text)
            out = run_cli(["dump", path, "--stage", stage])
    return from_ir(out, gm, extra)


def functionalize(gm, *sample_args, remove="mutations"):
    """No mutation left (the program's own input mutations are restored by a
    final copy_ per input); remove="mutations_and_views" also replaces views
    by their *_copy twins."""
    if remove not in _REMOVE:
        raise ValueError("remove must be 'mutations' or 'mutations_and_views', got %r" % (remove,))
    return run_stage(gm, sample_args, _REMOVE[remove])


def reinplace(gm, *sample_args):
    """Out-of-place ops turned back into in-place ones where safe, and
    {view}_scatter ops replaced by a view and copy_ (as
    torch.fx.passes.reinplace; the graph is functionalized first)."""
    return run_stage(gm, sample_args, "reinplaced")
