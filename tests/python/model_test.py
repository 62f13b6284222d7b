"""Tests examples/python/atenaot_model.py on a model compiled beforehand.

usage: model_test.py DIR NAME INPUT.npy EXPECTED.npy [--no-numpy]

Checks the outputs against eager's stored outputs with numpy (when installed)
and without it, then reruns itself with numpy made unimportable, so the
module's standard-library-only path is exercised even where numpy exists.
Misuse (wrong shape, dtype, count, short buffers, a missing library, a closed
model) must raise with the ABI's status name and message.
"""
import array
import os
import struct
import subprocess
import sys

NO_NUMPY = "--no-numpy" in sys.argv
if NO_NUMPY:
    sys.modules["numpy"] = None  # `import numpy` now raises ImportError

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "examples", "python"))
import atenaot_model as am  # noqa: E402

RTOL, ATOL = 1e-5, 1e-6  # atenaot compare's defaults
failures = []


def check(cond, what):
    print(("ok    " if cond else "FAIL  ") + what)
    if not cond:
        failures.append(what)


def read_f32_npy(path):
    """An independent minimal reader (float32, C order, header v1)."""
    with open(path, "rb") as f:
        raw = f.read()
    assert raw[:6] == b"\x93NUMPY" and raw[6] == 1, path
    hlen = struct.unpack("<H", raw[8:10])[0]
    header = raw[10:10 + hlen].decode("latin1")
    assert "'<f4'" in header and "'fortran_order': False" in header, header
    shape = tuple(int(s) for s in header.split("'shape': (")[1].split(")")[0].split(",") if s.strip())
    body = raw[10 + hlen:]
    return list(struct.unpack("<%df" % (len(body) // 4), body)), shape


def close_enough(actual, expected):
    if len(actual) != len(expected):
        return False, float("inf")
    worst = max([abs(a - e) for a, e in zip(actual, expected)] or [0.0])
    return all(abs(a - e) <= ATOL + RTOL * abs(e) for a, e in zip(actual, expected)), worst


def expect_error(fn, status_name, fragment, what):
    try:
        fn()
    except am.AtenaotError as e:
        ok = e.status_name == status_name and fragment in e.message and status_name in str(e)
        check(ok, "%s -> %s: %s" % (what, e.status_name, e.message))
        return
    except Exception as e:  # noqa: BLE001
        check(False, "%s raised %s: %s, not AtenaotError %s" % (what, type(e).__name__, e, status_name))
        return
    check(False, "%s did not raise" % what)


def expect_python_error(fn, exc_type, fragment, what):
    try:
        fn()
    except exc_type as e:
        check(fragment in str(e), "%s -> %s: %s" % (what, exc_type.__name__, e))
        return
    except Exception as e:  # noqa: BLE001
        check(False, "%s raised %s: %s, not %s" % (what, type(e).__name__, e, exc_type.__name__))
        return
    check(False, "%s did not raise" % what)


def common_checks(d, name, x_flat, x_shape, exp_flat, exp_shape, use_numpy):
    m = am.Model(d, name, use_numpy=use_numpy)
    check(len(m.inputs) == 1 and m.inputs[0].dtype == "float32" and m.inputs[0].shape == x_shape,
          "input info %s" % (m.inputs,))
    check(len(m.outputs) == 1 and m.outputs[0].dtype == "float32" and m.outputs[0].shape == exp_shape,
          "output info %s" % (m.outputs,))
    check(m.arena_bytes > 0 and m.arena_bytes % 64 == 0, "arena %d bytes" % m.arena_bytes)
    check(m.version.startswith("atenaot "), "runtime version %r" % m.version)
    check(m.device == "cpu" and not m.inputs[0].mutated, "device %s, mutated %s" % (m.device, m.inputs[0].mutated))
    expect_error(lambda: m.set_option("cuda_graph", 1), "AOT_ERR_BAD_OPTION", "unknown option cuda_graph", "option on a CPU model")
    expect_error(lambda: m.set_threads(65), "AOT_ERR_BAD_OPTION", "threads takes 0 (one per CPU) to 64", "65 threads")
    m.set_threads(3)  # then the runs below use the pool wherever a kernel splits
    # Misuse: every case raises with the ABI's status and message, nothing crashes.
    n = len(x_flat)
    wrong = am.Tensor(array.array("f", x_flat), (x_shape[0] * 2, x_shape[1] // 2) if len(x_shape) == 2 else (n,))
    expect_error(lambda: m.run(wrong), "AOT_ERR_BAD_SHAPE", "input 0 (", "wrong shape (no-numpy Tensor)")
    expect_error(lambda: m.run(array.array("f", x_flat)), "AOT_ERR_BAD_SHAPE", "dimensions; the model expects",
                 "flat array.array without a shape")
    expect_error(lambda: m.run(am.Tensor(array.array("d", x_flat), x_shape)), "AOT_ERR_BAD_DTYPE",
                 "has dtype float64; the model expects float32", "float64 data for a float32 input")
    expect_error(lambda: m.run(), "AOT_ERR_BAD_COUNT", "got 0 inputs; the model takes 1", "no inputs")
    t = am.Tensor(array.array("f", x_flat), x_shape)
    expect_error(lambda: m.run(t, t), "AOT_ERR_BAD_COUNT", "got 2 inputs; the model takes 1", "two inputs")
    expect_python_error(lambda: m.run(am.Tensor(array.array("f", x_flat[:-1]), x_shape)), ValueError,
                        "needs %d bytes" % (4 * n), "a buffer one element short")
    expect_python_error(lambda: m.run(object()), TypeError, "expected a numpy array", "an unsupported input type")
    m.close()
    m.close()  # idempotent
    expect_python_error(lambda: m.run(t), ValueError, "closed", "run after close")
    expect_error(lambda: am.Model(d, name + "_missing"), "AOT_ERR_OPEN_FAILED", "cannot load", "a missing library")


def run_numpy(d, name, inp, exp):
    import numpy as np
    x, expected = np.load(inp), np.load(exp)
    with am.Model(d, name) as m:
        (y,) = m.run(x)
        check(isinstance(y, np.ndarray) and y.dtype == np.float32 and y.shape == expected.shape,
              "numpy: output is ndarray %s %s" % (y.dtype, y.shape))
        check(np.allclose(y, expected, rtol=RTOL, atol=ATOL),
              "numpy: matches eager (max abs diff %g)" % float(np.max(np.abs(y - expected))))
        # A Fortran-order (non-contiguous) input is copied, not rejected.
        (y2,) = m.run(np.asfortranarray(x))
        check(np.array_equal(y, y2), "numpy: Fortran-order input gives the same result")
        # A read-only input is fine (copied).
        xr = x.copy()
        xr.setflags(write=False)
        check(np.array_equal(m.run(xr)[0], y), "numpy: read-only input gives the same result")
        expect_error(lambda: m.run(x.reshape(-1)), "AOT_ERR_BAD_SHAPE", "dimensions; the model expects",
                     "numpy: wrong rank")
        expect_error(lambda: m.run(x[:-1]), "AOT_ERR_BAD_SHAPE", "in dimension 0; the model expects", "numpy: wrong shape")
        expect_error(lambda: m.run(x.astype(np.float64)), "AOT_ERR_BAD_DTYPE", "has dtype float64; the model expects float32", "numpy: float64 input")
        expect_python_error(lambda: m.run(x.astype(np.float16)), TypeError, "float16", "numpy: float16 input")
    check(m._handle is None, "numpy: context manager closed the model")


def run_plain(d, name, inp, exp):
    x_flat, x_shape = read_f32_npy(inp)
    exp_flat, exp_shape = read_f32_npy(exp)
    with am.Model(d, name, use_numpy=False) as m:
        x = am.load_npy(inp, use_numpy=False)
        check(isinstance(x, am.Tensor) and x.shape == x_shape and x.dtype == "float32"
              and close_enough(x.flat(), x_flat)[1] == 0, "plain: load_npy reads the input")
        variants = [
            ("Tensor(array('f'), shape)", am.Tensor(array.array("f", x_flat), x_shape)),
            ("Tensor(bytes, shape)", am.Tensor(struct.pack("=%df" % len(x_flat), *x_flat), x_shape)),
            ("Tensor(bytearray, shape, 'float32')",
             am.Tensor(bytearray(struct.pack("=%df" % len(x_flat), *x_flat)), x_shape, "float32")),
            ("Tensor(list, shape)", am.Tensor(list(x_flat), x_shape)),
            ("nested lists", am.Tensor(array.array("f", x_flat), x_shape).tolist()),
            ("load_npy", x),
        ]
        first = None
        for label, v in variants:
            (y,) = m.run(v)
            ok, worst = close_enough(y.flat(), exp_flat)
            check(isinstance(y, am.Tensor) and y.shape == exp_shape and y.dtype == "float32" and ok,
                  "plain: %s matches eager (max abs diff %g)" % (label, worst))
            if first is None:
                first = y.flat()
            check(y.flat() == first, "plain: %s gives bit-identical results" % label)
        check(len(y.tolist()) == exp_shape[0] and len(y.tolist()[0]) == exp_shape[1], "plain: tolist nests by shape")
    common_checks(d, name, x_flat, x_shape, exp_flat, exp_shape, use_numpy=False)


def main():
    args = [a for a in sys.argv[1:] if a != "--no-numpy"]
    if len(args) != 4:
        print(__doc__)
        return 2
    d, name, inp, exp = args
    print("model_test: %s (numpy %s)" % (sys.executable, "blocked" if NO_NUMPY else
                                          ("present" if am.HAVE_NUMPY else "not installed")))
    if NO_NUMPY:
        check(not am.HAVE_NUMPY, "no-numpy: the module imports without numpy")
        run_plain(d, name, inp, exp)
    else:
        if am.HAVE_NUMPY:
            run_numpy(d, name, inp, exp)
            x_flat, x_shape = read_f32_npy(inp)
            exp_flat, exp_shape = read_f32_npy(exp)
            common_checks(d, name, x_flat, x_shape, exp_flat, exp_shape, use_numpy=True)
        else:
            print("note: numpy is not installed; only the standard-library path runs")
        run_plain(d, name, inp, exp)  # use_numpy=False in-process
        rc = subprocess.call([sys.executable, os.path.abspath(__file__), "--no-numpy"] + args)
        check(rc == 0, "no-numpy subprocess (numpy made unimportable) passed")
    if failures:
        print("model_test: %d FAILED" % len(failures))
        return 1
    print("model_test: all passed%s" % (" (numpy blocked)" if NO_NUMPY else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
