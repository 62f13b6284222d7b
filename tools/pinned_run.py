"""Runs a generator script (examples/make_examples.py,
tests/fixtures/make_fixtures.py) so that the files it writes do not depend on
where the checkout lives.

torch.jit.trace stores the whole Python call stack of every traced op, file
names and line numbers included, in model.pt's debug info. run_pinned
compiles the script under a fixed file name (its base name) and calls the
script's own `_thread_main(argv, errors)` in a fresh thread, so the recorded
stack holds only that name, threading.py's frames and the script's lines,
never the checkout path nor this module's frames. Keep `_thread_main` (and
everything above it) where it is in those scripts: its line numbers are part
of the committed archives.

The script runs with PYTHONHASHSEED=0 (re-executed if needed): torch.jit.script
writes a module's constants in set order, which otherwise changes per run.
"""

import os
import sys
import threading


def run_pinned(script_path, argv):
    path = os.path.abspath(script_path)
    if os.environ.get("PYTHONHASHSEED") != "0":
        env = dict(os.environ, PYTHONHASHSEED="0")
        os.execve(sys.executable, [sys.executable, path] + list(argv[1:]), env)
    base = os.path.basename(path)
    with open(path) as f:
        code = compile(f.read(), base, "exec")
    ns = {"__name__": os.path.splitext(base)[0], "__file__": path}
    exec(code, ns)  # noqa: S102 (the script itself)
    errors = []
    t = threading.Thread(target=ns["_thread_main"], args=(argv, errors))
    t.start()
    t.join()
    if errors:
        raise errors[0]
