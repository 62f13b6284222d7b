"""atenaot_library: compile a PyTorch model into a C library at build time.

    load("@atenaot//:defs.bzl", "atenaot_library")   # or "//:defs.bzl" inside atenaot

    atenaot_library(
        name = "mlp",
        model = "model.pt",           # TorchScript archive, TorchScript IR or atenaot IR
        inputs = ["input_0.npy"],     # sample inputs: the shapes and dtypes compiled for
        expected = ["expected/output_0.npy"],  # optional; else the reference interpreter's
    )

makes, like tfcompile's tf_library:
  NAME            cc_library: NAME.h (NAME_run, NAME_ARENA_BYTES, ...) and the compiled
                  model; it depends on the C ABI header only (no LibTorch, no C++)
  NAME_test       cc_test (GoogleTest): runs NAME_run on the sample inputs against the
                  expected outputs, and checks misuse statuses (wrong shape, small arena)
  NAME_benchmark  cc_binary (Google Benchmark): latency per run, arena bytes as a counter
  NAME_srcs       filegroup of the generated sources (e.g. for another build system)

The compile step is one action whose inputs are the model, the sample inputs and the
atenaot tool and whose outputs are NAME.h, NAME.c (NAME.cu for target = "cuda") and
the weights, all under NAME_aot/: cacheable and remotely executable. Bazel's own C
toolchain compiles the sources, so --config, --copt and cross toolchains apply.
"""

load("@rules_cc//cc:defs.bzl", "cc_binary", "cc_library", "cc_test")
load("@atenaot_local_config//:config.bzl", "HAS_NVCC", "NVCC")

_WEIGHTS = ("embed", "file", "c")
_TARGETS = ("c", "cuda")

def _gen_dir(name):
    # The action's own output directory; the tool's staging directory goes
    # beside `src`, so still inside it.
    return name + "_aot"

def _generated_files(name, target, weights):
    """The files the compile step writes, relative to the package."""
    src = _gen_dir(name) + "/src/"
    files = [src + name + ".h", src + name + (".cu" if target == "cuda" else ".c"), src + "atenaot.h", src + "atenaot_model.h"]
    if weights == "embed" and target == "c":
        files += [src + name + "_weights.S", src + name + "_weights.bin"]
    elif weights == "file":
        files.append(src + name + ".weights")
    return files

def _compile_impl(ctx):
    outs = ctx.outputs.outs
    out_dir = outs[0].dirname
    args = ctx.actions.args()
    args.add("compile", ctx.file.model)
    args.add_all("--inputs", ctx.files.inputs)
    args.add_all(["-o", out_dir, "--name", ctx.attr.model_name, "--weights", ctx.attr.weights])
    if ctx.attr.target == "cuda":
        args.add_all(["--target", "cuda", "--emit-only"])
    elif ctx.attr.embedded:
        args.add("--embedded")
    else:
        args.add("--emit-only")
    if ctx.attr.cpu and ctx.attr.target == "c":
        args.add_all(["--cpu", ctx.attr.cpu])

    # A model without weights gets no weights files from the tool; the
    # declared ones are then written empty (an empty .S assembles to nothing,
    # and NAME.c refers to no weights symbol).
    ctx.actions.run_shell(
        inputs = [ctx.file.model] + ctx.files.inputs,
        tools = [ctx.executable.tool],
        outputs = outs,
        command = '"$1" "${@:2}" >/dev/null && for f in ' + " ".join(['"%s"' % f.path for f in outs]) +
                  '; do [ -e "$f" ] || : > "$f"; done',
        arguments = [ctx.executable.tool.path, args],
        mnemonic = "AtenaotCompile",
        progress_message = "atenaot: compiling %s for %s" % (ctx.file.model.short_path, ctx.label),
    )
    return [DefaultInfo(files = depset(outs))]

_atenaot_compile = rule(
    implementation = _compile_impl,
    attrs = {
        "model": attr.label(allow_single_file = True, mandatory = True),
        "inputs": attr.label_list(allow_files = [".npy"], mandatory = True),
        "model_name": attr.string(mandatory = True),
        "target": attr.string(default = "c", values = list(_TARGETS)),
        "embedded": attr.bool(default = False),
        "weights": attr.string(default = "embed", values = list(_WEIGHTS)),
        "cpu": attr.string(),
        "outs": attr.output_list(mandatory = True),
        "tool": attr.label(default = Label("//:atenaot"), executable = True, cfg = "host"),
    },
)

# The tool is built in the host configuration: with this repository's
# .bazelrc (--distinct_host_configuration=false) that is the target
# configuration, so //:atenaot (LibTorch-heavy, minutes on 2 cores) is built
# once, not a second time for an exec platform. A workspace that executes
# remotely on other machines sets --distinct_host_configuration=true.
def _reference_impl(ctx):
    out = ctx.actions.declare_directory(ctx.attr.name)
    args = ctx.actions.args()
    args.add("run", ctx.file.model)
    args.add_all("--inputs", ctx.files.inputs)
    args.add_all(["--out-dir", out.path])
    ctx.actions.run(
        executable = ctx.executable.tool,
        arguments = [args],
        inputs = [ctx.file.model] + ctx.files.inputs,
        outputs = [out],
        mnemonic = "AtenaotReference",
        progress_message = "atenaot: reference outputs of %s" % ctx.file.model.short_path,
    )
    return [DefaultInfo(files = depset([out]), runfiles = ctx.runfiles(files = [out]))]

# The reference interpreter's outputs (LibTorch eager semantics), recorded at
# build time as output_K.npy when atenaot_library gets no `expected`.
_atenaot_reference = rule(
    implementation = _reference_impl,
    attrs = {
        "model": attr.label(allow_single_file = True, mandatory = True),
        "inputs": attr.label_list(allow_files = [".npy"], mandatory = True),
        "tool": attr.label(default = Label("//:atenaot"), executable = True, cfg = "host"),
    },
)

def _label(name):
    return str(Label(name))

def atenaot_library(
        name,
        model,
        inputs,
        expected = None,
        target = "c",
        embedded = False,
        weights = "embed",
        cpu = None,
        copts = [],
        gen_test = True,
        gen_benchmark = True,
        visibility = None,
        tags = []):
    """A compiled model as a cc_library, with a generated test and benchmark.

    Args:
      name: the library's name and the model's C prefix (NAME_run, NAME.h).
      model: the model file (TorchScript archive, TorchScript IR or atenaot IR).
      inputs: sample input .npy files, one per model input (shapes and dtypes).
      expected: .npy files of the outputs, in order, for NAME_test; None records
        the reference interpreter's outputs at build time.
      target: "c" (host C) or "cuda" (CUDA kernels + cuBLAS, built with nvcc
        where it exists; elsewhere the library is incompatible and skipped).
      embedded: sources for a microcontroller (float accumulation, no heap);
        NAME is then a static-only library for whatever toolchain builds it.
      weights: "embed" (a linked-in object), "file" (NAME.weights, passed to
        NAME_run; a data dependency of NAME) or "c" (const arrays in NAME.c).
      cpu: passed to `atenaot compile --cpu` when set (C target).
      copts: extra C compiler options for the model's sources.
      gen_test: make NAME_test.
      gen_benchmark: make NAME_benchmark.
      visibility: of NAME and NAME_srcs.
      tags: added to every target.
    """
    if not _is_c_identifier(name):
        fail("atenaot_library: name must be a C identifier (it prefixes NAME_run, NAME.h), got '%s'" % name)
    if target not in _TARGETS:
        fail("atenaot_library: target must be one of %s, got '%s'" % (_TARGETS, target))
    if weights not in _WEIGHTS:
        fail("atenaot_library: weights must be one of %s, got '%s'" % (_WEIGHTS, weights))
    if target == "cuda" and (embedded or weights == "c"):
        fail("atenaot_library: target = \"cuda\" takes neither embedded = True nor weights = \"c\"")
    files = _generated_files(name, target, weights)
    _atenaot_compile(
        name = name + "_aot",
        model = model,
        inputs = inputs,
        model_name = name,
        target = target,
        embedded = embedded,
        weights = weights,
        cpu = cpu,
        outs = files,
        tags = tags,
    )
    hdr, src = files[0], files[1]
    native.filegroup(name = name + "_srcs", srcs = files, visibility = visibility, tags = tags)
    weights_file = [f for f in files if f.endswith(".weights")]
    header = _label("//c_api:atenaot_h")
    gen_include = _gen_dir(name) + "/src"

    if target == "cuda":
        # NAME_test runs where a GPU is; no benchmark (bench/gpu/ times CUDA models).
        _cuda_library(name, model, inputs, expected, src, hdr, gen_include, weights_file, header, copts, gen_test, visibility, tags)
        return

    asm = [f for f in files if f.endswith(".S")]
    bins = [f for f in files if f.endswith(".bin")]
    cc_library(
        name = name,
        srcs = [src] + asm,
        hdrs = [hdr],
        # bins: read by the assembler's .incbin (-I below), not compiled.
        textual_hdrs = bins,
        strip_include_prefix = gen_include,
        copts = ["-std=c99"] + (["-I$(BINDIR)/" + _package_path() + gen_include] if asm else []) + copts,
        data = weights_file,
        linkopts = ["-lm"],
        linkstatic = embedded,
        deps = [header],
        visibility = visibility,
        tags = tags,
    )
    _tests(name, model, inputs, expected, weights_file, gen_test, gen_benchmark, tags)

def _is_c_identifier(s):
    if not s or s[0].isdigit():
        return False
    for c in s.elems():
        if not (c.isalnum() or c == "_"):
            return False
    return True

def _package_path():
    root = native.repository_name()
    pkg = native.package_name()
    prefix = "" if root == "@" else "external/" + root[1:] + "/"
    return prefix + (pkg + "/" if pkg else "")

def _tests(name, model, inputs, expected, weights_file, gen_test, gen_benchmark, tags):
    if not (gen_test or gen_benchmark):
        return
    if expected == None:
        _atenaot_reference(name = name + "_reference", model = model, inputs = inputs, tags = tags)
        expected = [":" + name + "_reference"]
    args = ["--input=$(rootpath %s)" % i for i in inputs]
    args += ["--weights=$(rootpath %s)" % w for w in weights_file]
    defines = ["AOT_UT_MODEL=%s_model" % name, "AOT_UT_RUN_MSG=%s_run_msg" % name]
    driver_deps = [":" + name, _label("//tools/library_rule:model_driver")]
    if gen_test:
        cc_test(
            name = name + "_test",
            size = "small",
            srcs = [_label("//tools/library_rule:model_test.cc")],
            args = args + ["--expected=$(rootpath %s)" % e for e in expected],
            data = inputs + expected + weights_file,
            local_defines = defines,
            deps = driver_deps + [_label("@gtest//:gtest")],
            tags = tags,
        )
    if gen_benchmark:
        cc_binary(
            name = name + "_benchmark",
            srcs = [_label("//tools/library_rule:model_benchmark.cc")],
            args = args,
            data = inputs + weights_file,
            local_defines = defines,
            deps = driver_deps + [_label("@benchmark//:benchmark")],
            tags = tags,
        )

def _cuda_library(name, model, inputs, expected, src, hdr, gen_include, weights_file, header, copts, gen_test, visibility, tags):
    if not HAS_NVCC:
        # No nvcc on this machine: the sources (NAME_srcs) are still made;
        # the library is skipped by `bazel build //...` instead of failing.
        cc_library(
            name = name,
            hdrs = [hdr],
            strip_include_prefix = gen_include,
            deps = [header],
            target_compatible_with = ["@platforms//:incompatible"],
            visibility = visibility,
            tags = tags,
        )
        return
    obj = _gen_dir(name) + "/" + name + "_cuda.pic.o"

    # The files the compile step wrote beside NAME.cu (NAME.h, atenaot.h, ...)
    # are found next to it; the same flags as `atenaot compile --target cuda`.
    native.genrule(
        name = name + "_nvcc",
        srcs = _generated_files(name, "cuda", "embed")[:4],
        outs = [obj],
        cmd = ("%s -O3 -gencode arch=compute_90,code=[sm_90,compute_90] -Xcompiler -fPIC %s -c $(location %s) -o $@" %
               (NVCC, " ".join(copts), src)),
        message = "nvcc: compiling " + name,
        tags = tags,
    )
    cc_library(
        name = name,
        srcs = [obj],
        hdrs = [hdr],
        strip_include_prefix = gen_include,
        data = weights_file,
        deps = [header, "@atenaot_local_config//:cudart"],
        visibility = visibility,
        tags = tags,
    )
    if not gen_test:
        return
    if expected == None:
        _atenaot_reference(name = name + "_reference", model = model, inputs = inputs, tags = tags)
        expected = [":" + name + "_reference"]

    # Builds wherever nvcc is; on a machine without a GPU it reports itself skipped.
    cc_test(
        name = name + "_test",
        size = "small",
        srcs = [_label("//tools/library_rule:model_cuda_test.cc")],
        args = ["--input=$(rootpath %s)" % i for i in inputs] +
               ["--weights=$(rootpath %s)" % w for w in weights_file] +
               ["--expected=$(rootpath %s)" % e for e in expected],
        data = inputs + expected + weights_file,
        local_defines = ["AOT_UT_MODEL=%s_model" % name],
        deps = [":" + name, _label("//tools/library_rule:model_driver"), _label("@gtest//:gtest")],
        tags = tags + ["gpu"],
    )
