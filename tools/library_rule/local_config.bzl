"""atenaot_local_config: what atenaot_library needs to know about this machine.

Whether nvcc exists (and where), and the CUDA runtime as @atenaot_local_config//:cudart: target = "cuda" libraries are built with it,
and are skipped (incompatible) where it is missing, so `bazel build //...` stays
green on machines without CUDA. $NVCC wins over /usr/local/cuda/bin/nvcc, as for
`atenaot compile --target cuda`.
"""

def _impl(rctx):
    nvcc = rctx.os.environ.get("NVCC", "") or "/usr/local/cuda/bin/nvcc"
    has = rctx.path(nvcc).exists
    build = ""
    if has:
        # The CUDA runtime's headers and libraries, for code that calls it.
        cuda = nvcc.rsplit("/bin/", 1)[0]
        rctx.symlink(cuda + "/include", "include")
        build = """cc_library(
    name = "cudart",
    hdrs = glob(["include/*.h", "include/crt/*.h", "include/crt/*.hpp"]),
    includes = ["include"],
    linkopts = ["-L{lib}", "-Wl,-rpath,{lib}", "-lcublas", "-lcudart"],
    visibility = ["//visibility:public"],
)
""".format(lib = cuda + "/lib64")
    rctx.file("BUILD", build)
    rctx.file("config.bzl", "HAS_NVCC = %s\nNVCC = %r\n" % (has, nvcc if has else ""))

atenaot_local_config = repository_rule(
    implementation = _impl,
    environ = ["NVCC"],
    local = True,
)
