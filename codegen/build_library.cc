#include "codegen/build_library.h"

#include <cstdlib>

#include "codegen/embedded_sources.h"
#include "io/files.h"
#include "io/process.h"

namespace atenaot {
namespace {

// The files WriteSourcesInto writes, in order.
std::vector<std::string> SourceFiles(const GeneratedC& gen, const std::string& name) {
  std::vector<std::string> f = {name + ".h", name + ".c", "atenaot.h", "atenaot_model.h"};
  if (!gen.weights_asm.empty()) {
    f.push_back(name + "_weights.S");
    f.push_back(name + "_weights.bin");
  } else if (!gen.weights.empty()) {
    f.push_back(name + ".weights");
  }
  return f;
}

Status WriteSourcesInto(const GeneratedC& gen, const std::string& dir, const std::string& name) {
  const std::string base = dir + "/" + name;
  AOT_RETURN_IF_ERROR(WriteFile(base + ".h", gen.header));
  AOT_RETURN_IF_ERROR(WriteFile(base + ".c", gen.source));
  AOT_RETURN_IF_ERROR(WriteFile(dir + "/atenaot.h", kAtenaotHeader));
  AOT_RETURN_IF_ERROR(WriteFile(dir + "/atenaot_model.h", kAtenaotModelHeader));
  const std::string bytes(gen.weights.begin(), gen.weights.end());
  if (!gen.weights_asm.empty()) {
    AOT_RETURN_IF_ERROR(WriteFile(base + "_weights.S", gen.weights_asm));
    AOT_RETURN_IF_ERROR(WriteFile(base + "_weights.bin", bytes));
  } else if (!gen.weights.empty()) {
    AOT_RETURN_IF_ERROR(WriteFile(base + ".weights", bytes));
  }
  return Status::Ok();
}

}  // namespace

std::string DefaultCpu() {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  __builtin_cpu_init();
  const bool v2 =
      __builtin_cpu_supports("sse4.2") && __builtin_cpu_supports("popcnt") && __builtin_cpu_supports("ssse3");
  const bool v3 = v2 && __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") &&
                  __builtin_cpu_supports("bmi") && __builtin_cpu_supports("bmi2");
  const bool v4 = v3 && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
                  __builtin_cpu_supports("avx512cd") && __builtin_cpu_supports("avx512dq") &&
                  __builtin_cpu_supports("avx512vl");
  return v4 ? "x86-64-v4" : v3 ? "x86-64-v3" : v2 ? "x86-64-v2" : "";
#else
  return "";
#endif
}

std::string BuildCpu(const BuildOptions& opts) {
  return opts.march_native ? "native" : opts.cpu.empty() ? DefaultCpu() : opts.cpu;
}

StatusOr<std::vector<std::string>> CpuFlags(const std::string& cpu) {
  if (cpu.empty()) return std::vector<std::string>{};
  if (cpu == "native") {
    std::vector<std::string> flags = {"-march=native"};
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
    // GCC tunes recent Xeons (Sapphire Rapids) for 256-bit vectors: chain20
    // over 1M floats took 3.64 ms with -march=native alone, 2.59 with 512-bit
    // ones (x86-64-v4: 2.65), on the host whose -march=native this is.
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f")) flags.push_back("-mprefer-vector-width=512");
#endif
    return flags;
  }
  if (cpu == "x86-64-v2" || cpu == "x86-64-v3" || cpu == "x86-64-v4" || cpu == "armv8-a")
    return std::vector<std::string>{"-march=" + cpu};
  return InvalidArgument(
      "--cpu must be native, x86-64-v2, x86-64-v3, x86-64-v4, armv8-a or cortex-m4 (with --embedded), got '" + cpu +
      "'");
}

std::vector<std::string> LibraryCFlags() {
  return {"-std=c99", "-O3", "-fno-math-errno", "-fno-trapping-math", "-fPIC"};
}

std::vector<std::string> CompilerCommand(const std::string& cc) {
  std::string c = cc;
  if (const char* env = std::getenv("CC"); env && *env && c == "cc") c = env;
  return SplitWords(c);
}

StatusOr<std::string> BuildRuntime(const std::string& dir, const std::string& cc) {
  AOT_RETURN_IF_ERROR(WriteFile(dir + "/atenaot_runtime.c", kRuntimeSource));
  std::vector<std::string> cmd = CompilerCommand(cc);
  if (cmd.empty()) return InvalidArgument("the C compiler command ($CC) is empty");
  cmd.insert(cmd.end(), {"-std=c99", "-O2", "-fPIC", "-shared", "-I.", "-o", "libatenaot_runtime.so",
                         "atenaot_runtime.c", "-ldl"});
  AOT_RETURN_IF_ERROR(RunProgram(cmd, "building libatenaot_runtime.so", dir));
  return std::string("libatenaot_runtime.so");
}

Status WriteSources(const GeneratedC& gen, const std::string& dir, const std::string& name) {
  AOT_ASSIGN_OR_RETURN(std::unique_ptr<StagedDir> out, StagedDir::Begin(dir));
  AOT_RETURN_IF_ERROR(WriteSourcesInto(gen, out->path(), name));
  return out->Commit(SourceFiles(gen, name));
}

StatusOr<std::string> WriteAndBuild(const GeneratedC& gen, const std::string& dir, const std::string& name,
                                    const BuildOptions& opts) {
  AOT_ASSIGN_OR_RETURN(std::unique_ptr<StagedDir> out, StagedDir::Begin(dir));
  const std::string& tmp = out->path();
  AOT_RETURN_IF_ERROR(WriteSourcesInto(gen, tmp, name));
  const std::vector<std::string> cc = CompilerCommand(opts.cc);
  if (cc.empty()) return InvalidArgument("the C compiler command ($CC) is empty");
  // Run inside the staging directory with relative names (see RunProgram).
  auto run = [&](std::vector<std::string> args, const std::string& what) {
    std::vector<std::string> c = cc;
    c.insert(c.end(), args.begin(), args.end());
    return RunProgram(c, what, tmp);
  };
  std::vector<std::string> flags = LibraryCFlags();
  flags.insert(flags.end(), {"-pthread", "-I."});
  const std::string cpu_name = BuildCpu(opts);
  AOT_ASSIGN_OR_RETURN(std::vector<std::string> cpu, CpuFlags(cpu_name));
  flags.insert(flags.end(), cpu.begin(), cpu.end());
  if (!cpu.empty()) flags.push_back("-DAOT_CPU_NAME=\"--cpu " + cpu_name + "\"");  // for the open check's message
  for (const std::string& f : SplitWords(opts.extra_cflags)) flags.push_back(f);
  std::vector<std::string> wobj;  // the weights object (data only)
  if (!gen.weights_asm.empty()) {
    wobj.push_back(name + "_weights.o");
    AOT_RETURN_IF_ERROR(run({"-c", "-o", wobj[0], name + "_weights.S"}, "assembling " + name + "_weights.S"));
  }
  std::vector<std::string> so = flags;
  so.insert(so.end(), {"-shared", "-DAOT_SHARED_ENTRY", "-o", "lib" + name + ".so", name + ".c"});
  so.insert(so.end(), wobj.begin(), wobj.end());
  so.push_back("-lm");
  AOT_RETURN_IF_ERROR(run(so, "building lib" + name + ".so"));
  std::vector<std::string> obj = flags;
  obj.insert(obj.end(), {"-c", "-o", name + ".o", name + ".c"});
  AOT_RETURN_IF_ERROR(run(obj, "compiling " + name + ".c"));
  std::vector<std::string> ar = {"ar", "rcs", "lib" + name + ".a", name + ".o"};
  ar.insert(ar.end(), wobj.begin(), wobj.end());
  AOT_RETURN_IF_ERROR(RunProgram(ar, "building lib" + name + ".a", tmp));
  AOT_ASSIGN_OR_RETURN(std::string runtime, BuildRuntime(tmp, opts.cc));
  std::vector<std::string> files = SourceFiles(gen, name);
  files.insert(files.end(), {"atenaot_runtime.c", runtime, "lib" + name + ".a", "lib" + name + ".so"});
  AOT_RETURN_IF_ERROR(out->Commit(files));
  return dir + "/lib" + name + ".so";
}

}  // namespace atenaot
