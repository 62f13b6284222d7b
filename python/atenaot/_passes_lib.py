"""atenaot's passes in this process: libatenaot_passes.so (//tools/passes_tool,
LibTorch-free) loaded with ctypes. atenaot.fx calls it instead of starting
`atenaot-passes` per call: process start, pipe I/O and the op table's
parsing (done once per process here) cost more than the passes themselves on
graphs of thousands of nodes."""
import ctypes
import os

from ._cli import CompileError, _error_line, find_passes_tool

_LIB_NAME = "libatenaot_passes.so"
_loaded = {}  # path -> CDLL


def find_passes_lib():
    """The library to load: $ATENAOT_PASSES_LIB, else next to the
    atenaot-passes that find_passes_tool picks (or in ../lib from it, as
    tools/install.sh lays them out); None when there is none."""
    env = os.environ.get("ATENAOT_PASSES_LIB")
    if env:
        if not os.path.isfile(env):
            raise CompileError("$ATENAOT_PASSES_LIB is %s, which is not a file" % env)
        return env
    tool = find_passes_tool()
    if not tool:
        return None
    dirs = []
    for d in (os.path.dirname(os.path.abspath(tool)), os.path.dirname(os.path.realpath(tool))):
        dirs += [d, os.path.join(os.path.dirname(d), "lib")]
    for d in dirs:
        c = os.path.join(d, _LIB_NAME)
        if os.path.isfile(c):
            return c
    return None


def _lib(path):
    lib = _loaded.get(path)
    if lib is None:
        try:
            lib = ctypes.CDLL(path)
        except OSError as e:
            raise CompileError("cannot load %s: %s" % (path, e))
        p = ctypes.POINTER(ctypes.c_void_p)
        lib.atenaot_passes_run.argtypes = [ctypes.c_char_p, ctypes.c_size_t, ctypes.c_char_p, ctypes.c_int, p, p]
        lib.atenaot_passes_run.restype = ctypes.c_int
        lib.atenaot_passes_free.argtypes = [ctypes.c_void_p]
        lib.atenaot_passes_free.restype = None
        _loaded[path] = lib
    return lib


_TIME, _VERIFY_ENDS_ONLY = 1, 2  # atenaot_passes_run's flags (passes_lib.cc)


def run_passes(path, text, stage, time_passes=False, verify_ends_only=False):
    """(IR text, what the tool would print on stderr): `atenaot-passes --stage
    STAGE [--time-passes] [--verify-ends-only] -` on text, in this process.
    Raises CompileError with the tool's one-line message where it fails."""
    lib = _lib(path)
    data = text.encode()
    out, err = ctypes.c_void_p(), ctypes.c_void_p()
    flags = (_TIME if time_passes else 0) | (_VERIFY_ENDS_ONLY if verify_ends_only else 0)
    code = lib.atenaot_passes_run(data, len(data), stage.encode(), flags, ctypes.byref(out), ctypes.byref(err))
    try:
        result = ctypes.string_at(out.value).decode() if out.value else ""
        log = ctypes.string_at(err.value).decode() if err.value else ""
    finally:
        lib.atenaot_passes_free(out)
        lib.atenaot_passes_free(err)
    if code != 0:
        line = _error_line(log) or ("atenaot-passes failed with status %d" % code)
        raise CompileError(line, [path, "--stage", stage] + ["--verify-ends-only"] * verify_ends_only + ["-"], log)
    return result, log
