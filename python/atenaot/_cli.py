"""Finding and running the `atenaot` command-line tool."""
import os
import shutil
import subprocess


class CompileError(RuntimeError):
    """The atenaot CLI refused a model or failed: `.message` is its one-line
    error (what `atenaot: error: ...` printed), `.command` the command run."""

    def __init__(self, message, command=None, output=""):
        super().__init__(message)
        self.message = message
        self.command = command
        self.output = output


def find_cli():
    """The CLI to run: $ATENAOT, else `atenaot` on PATH, else the checkout's
    bazel-bin/atenaot (this package at python/atenaot/ of a repository)."""
    env = os.environ.get("ATENAOT")
    if env:
        if not (os.path.isfile(env) and os.access(env, os.X_OK)):
            raise CompileError("$ATENAOT is %s, which is not an executable file" % env)
        return env
    on_path = shutil.which("atenaot")
    if on_path:
        return on_path
    repo = os.path.dirname(os.path.dirname(os.path.dirname(os.path.realpath(__file__))))
    built = os.path.join(repo, "bazel-bin", "atenaot")
    if os.path.isfile(built) and os.access(built, os.X_OK):
        return built
    raise CompileError("cannot find the atenaot CLI: set $ATENAOT, put atenaot on PATH "
                       "(bash tools/install.sh) or build it (bazel build //:atenaot)")


def find_passes_tool():
    """The LibTorch-free `atenaot-passes` (IR text through the passes, in
    milliseconds where the CLI spends seconds loading LibTorch): $ATENAOT_PASSES,
    else next to the CLI that find_cli picks, else on PATH, else the
    checkout's bazel-bin; None when there is none (callers then use the CLI)."""
    env = os.environ.get("ATENAOT_PASSES")
    if env:
        if not (os.path.isfile(env) and os.access(env, os.X_OK)):
            raise CompileError("$ATENAOT_PASSES is %s, which is not an executable file" % env)
        return env
    try:
        cli = find_cli()
    except CompileError:
        cli = None
    candidates = []
    if cli:
        d = os.path.dirname(os.path.realpath(cli))
        candidates += [os.path.join(d, "atenaot-passes"), os.path.join(d, "tools", "passes_tool", "atenaot-passes")]
    on_path = shutil.which("atenaot-passes")
    if on_path:
        candidates.append(on_path)
    repo = os.path.dirname(os.path.dirname(os.path.dirname(os.path.realpath(__file__))))
    candidates.append(os.path.join(repo, "bazel-bin", "tools", "passes_tool", "atenaot-passes"))
    for c in candidates:
        if os.path.isfile(c) and os.access(c, os.X_OK):
            return c
    return None


def _error_line(stderr):
    """The CLI's one-line error: the last `atenaot: error:` line, else the
    last non-empty line."""
    lines = [l.strip() for l in stderr.splitlines() if l.strip()]
    for l in reversed(lines):
        if l.startswith("atenaot: error:"):
            return l
    return lines[-1] if lines else ""


def run_cli(args, stdin=None, tool=None):
    """Runs `atenaot ARGS...` (or TOOL ARGS...); returns its stdout, raises
    CompileError with the one-line message on a non-zero exit."""
    cmd = [tool or find_cli()] + [os.fspath(a) for a in args]
    try:
        p = subprocess.run(cmd, input=stdin, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, universal_newlines=True)
    except OSError as e:
        raise CompileError("cannot run %s: %s" % (cmd[0], e), cmd)
    if p.returncode != 0:
        err = p.stderr or ""
        line = _error_line(err) or ("atenaot exited with status %d" % p.returncode)
        raise CompileError(line, cmd, err)
    return p.stdout
