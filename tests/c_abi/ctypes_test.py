"""Uses a compiled model from Python through ctypes (standard library only;
numpy is used when installed), like a user with no build step would.
usage: ctypes_test.py DIR NAME INPUT.npy EXPECTED.npy"""
import ctypes
import struct
import sys

AOT_MAX_DIMS = 8


class Tensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("dtype", ctypes.c_int32), ("ndim", ctypes.c_int32),
                ("device", ctypes.c_int32), ("reserved", ctypes.c_int32),
                ("sizes", ctypes.c_int64 * AOT_MAX_DIMS), ("strides", ctypes.c_int64 * AOT_MAX_DIMS)]


class Info(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("dtype", ctypes.c_int32), ("ndim", ctypes.c_int32),
                ("sizes", ctypes.c_int64 * AOT_MAX_DIMS), ("flags", ctypes.c_int32), ("reserved", ctypes.c_int32)]


def read_npy_f32(path):
    with open(path, "rb") as f:
        data = f.read()
    assert data[:6] == b"\x93NUMPY"
    hlen = struct.unpack("<H", data[8:10])[0]
    body = data[10 + hlen:]
    return list(struct.unpack("<%df" % (len(body) // 4), body))


def main():
    d, name, inp, exp = sys.argv[1:5]
    rt = ctypes.CDLL(d + "/libatenaot_runtime.so")
    rt.aot_last_error.restype = ctypes.c_char_p
    model = ctypes.c_void_p()
    st = rt.aot_model_open((d + "/lib" + name + ".so").encode(), ctypes.byref(model))
    assert st == 0, rt.aot_last_error()
    n = ctypes.c_size_t()
    assert rt.aot_model_num_inputs(model, ctypes.byref(n)) == 0 and n.value == 1
    info_in, info_out = Info(), Info()
    assert rt.aot_model_input_info(model, ctypes.c_size_t(0), ctypes.byref(info_in)) == 0
    assert rt.aot_model_output_info(model, ctypes.c_size_t(0), ctypes.byref(info_out)) == 0
    x = read_npy_f32(inp)
    expected = read_npy_f32(exp)
    xbuf = (ctypes.c_float * len(x))(*x)
    ybuf = (ctypes.c_float * len(expected))()

    def describe(buf, info):
        t = Tensor()
        t.data = ctypes.cast(buf, ctypes.c_void_p)
        t.dtype, t.ndim = info.dtype, info.ndim
        stride = 1
        for k in reversed(range(info.ndim)):
            t.sizes[k], t.strides[k] = info.sizes[k], stride
            stride *= info.sizes[k]
        return t

    tin, tout = describe(xbuf, info_in), describe(ybuf, info_out)
    st = rt.aot_model_run(model, ctypes.byref(tin), ctypes.c_size_t(1), ctypes.byref(tout), ctypes.c_size_t(1),
                          None, ctypes.c_size_t(0))
    assert st == 0, rt.aot_last_error()
    worst = max(abs(a - b) for a, b in zip(ybuf, expected))
    for a, b in zip(ybuf, expected):
        assert abs(a - b) <= 1e-6 + 1e-5 * abs(b), (a, b)
    # A wrong count is an error with a message, not a crash.
    st = rt.aot_model_run(model, ctypes.byref(tin), ctypes.c_size_t(2), ctypes.byref(tout), ctypes.c_size_t(1),
                          None, ctypes.c_size_t(0))
    assert st == 2 and b"got 2 inputs; the model takes 1" in rt.aot_last_error(), (st, rt.aot_last_error())
    try:
        import numpy as np  # optional
        assert np.allclose(np.array(ybuf[:]), np.array(expected), rtol=1e-5, atol=1e-6)
    except ImportError:
        pass
    rt.aot_model_free(model)
    print("ctypes_test: ok, %s input %s -> output %s, max abs diff %g" % (
        name, list(info_in.sizes[:info_in.ndim]), list(info_out.sizes[:info_out.ndim]), worst))


if __name__ == "__main__":
    main()
