"""What the bench/ scripts share: the machine and git lines of their report
headers, tracing a program or model to a .pt with its .npy inputs, and
torchvision's MobileNetV2 / ResNet-18 with random weights.

Import from a script in bench/ (its directory is on sys.path when it runs):

    import _common
"""

import os
import platform
import subprocess
import warnings

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TORCHVISION = ["mobilenet_v2", "resnet18"]
TORCHVISION_SEED = 0


def read(path, default=""):
    try:
        with open(path) as f:
            return f.read()
    except OSError:
        return default


def machine():
    """'x86_64, <cpu model name>, N CPUs' (plus the usable count when the
    process is restricted to fewer)."""
    cpu = platform.processor() or platform.machine()
    for line in read("/proc/cpuinfo").splitlines():
        if line.startswith("model name"):
            cpu = line.split(":", 1)[1].strip()
            break
    n = os.cpu_count() or 0
    usable = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else n
    return "%s, %s, %d CPUs%s" % (platform.machine(), cpu, n,
                                   "" if usable == n else " (%d usable)" % usable)


def git_rev():
    """Short HEAD, with '(plus uncommitted changes)' when tracked files differ."""
    try:
        rev = subprocess.run(["git", "-C", REPO, "rev-parse", "--short", "HEAD"],
                             capture_output=True, text=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", REPO, "status", "--porcelain",
                                "--untracked-files=no"], capture_output=True,
                               text=True).stdout.strip()
        return (rev or "unknown") + (" (plus uncommitted changes)" if dirty else "")
    except OSError:
        return "unknown"


def last_error(proc):
    """The most telling line of a failed subprocess.run(capture_output=True, text=True)."""
    lines = [l for l in (proc.stderr + proc.stdout).splitlines() if l.strip()]
    errs = [l for l in lines if "error" in l.lower()]
    return " ".join((errs[-1] if errs else (lines[-1] if lines else
                     "exit %d, no output" % proc.returncode)).split())[:300]


def trace_and_save(fn, inputs, model_path, input_paths=None, check_trace=False):
    """torch.jit.trace(fn, inputs) saved to model_path (warnings silenced),
    and inputs[k] saved to input_paths[k] as .npy. Inputs are cloned, so
    in-place programs do not change the caller's tensors."""
    import numpy as np
    import torch
    for t, path in zip(inputs, input_paths or []):
        np.save(path, t.detach().contiguous().numpy())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        traced = torch.jit.trace(fn, tuple(t.clone() for t in inputs),
                                 check_trace=check_trace)
    traced.save(model_path)
    return traced


def torchvision_model(name, out_dir):
    """torchvision.models.NAME() with random weights (seeded, no download),
    eval mode, batch 1 x 3 x 224 x 224, traced into OUT_DIR/NAME/: model.pt,
    input_0.npy and expected/output_0.npy (eager). Returns that directory;
    raises when torchvision is missing or tracing fails."""
    import numpy as np
    import torch
    import torchvision
    d = os.path.join(out_dir, name)
    os.makedirs(os.path.join(d, "expected"), exist_ok=True)
    torch.manual_seed(TORCHVISION_SEED)
    m = getattr(torchvision.models, name)().eval()  # random weights
    inp = torch.randn(1, 3, 224, 224,
                      generator=torch.Generator().manual_seed(TORCHVISION_SEED))
    with torch.no_grad():
        y = m(inp.clone())
        trace_and_save(m, [inp], os.path.join(d, "model.pt"),
                       [os.path.join(d, "input_0.npy")], check_trace=True)
    np.save(os.path.join(d, "expected", "output_0.npy"), y.contiguous().numpy())
    return d
