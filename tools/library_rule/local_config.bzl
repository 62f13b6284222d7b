"""atenaot_local_config: what atenaot_library needs to know about this machine.

Only whether nvcc exists (and where): target = "cuda" libraries are built with it,
and are skipped (incompatible) where it is missing, so `bazel build //...` stays
green on machines without CUDA. $NVCC wins over /usr/local/cuda/bin/nvcc, as for
`atenaot compile --target cuda`.
"""

def _impl(rctx):
    nvcc = rctx.os.environ.get("NVCC", "") or "/usr/local/cuda/bin/nvcc"
    has = rctx.path(nvcc).exists
    rctx.file("BUILD", "")
    rctx.file("config.bzl", "HAS_NVCC = %s\nNVCC = %r\n" % (has, nvcc if has else ""))

atenaot_local_config = repository_rule(
    implementation = _impl,
    environ = ["NVCC"],
    local = True,
)
