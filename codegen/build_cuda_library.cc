#include "codegen/build_cuda_library.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "codegen/build_library.h"
#include "codegen/embedded_sources.h"

namespace atenaot {

std::string FindNvcc(const CudaBuildOptions& opts) {
  std::string nvcc = opts.nvcc;
  if (nvcc.empty())
    if (const char* env = std::getenv("NVCC"); env && *env) nvcc = env;
  if (nvcc.empty()) nvcc = "/usr/local/cuda/bin/nvcc";
  return access(nvcc.c_str(), X_OK) == 0 ? nvcc : "";
}

StatusOr<std::string> CudaArchFlags(const std::string& arch) {
  bool ok = arch.size() > 3 && arch.compare(0, 3, "sm_") == 0;
  for (size_t i = 3; ok && i < arch.size(); ++i) ok = std::isdigit(static_cast<unsigned char>(arch[i])) != 0;
  if (!ok) return InvalidArgument("--cuda-arch must look like sm_90, got '" + arch + "'");
  const std::string num = arch.substr(3);
  return "-gencode arch=compute_" + num + ",code=[sm_" + num + ",compute_" + num + "]";
}

Status WriteCudaSources(const GeneratedCuda& gen, const std::string& dir, const std::string& name) {
  if (mkdir(dir.c_str(), 0755) != 0 && errno != EEXIST)
    return IoError("cannot create directory '" + dir + "': " + std::strerror(errno));
  const std::string base = dir + "/" + name;
  AOT_RETURN_IF_ERROR(WriteTextFile(base + ".h", gen.header));
  AOT_RETURN_IF_ERROR(WriteTextFile(base + ".cu", gen.source));
  AOT_RETURN_IF_ERROR(WriteTextFile(dir + "/atenaot.h", kAtenaotHeader));
  AOT_RETURN_IF_ERROR(WriteTextFile(dir + "/atenaot_model.h", kAtenaotModelHeader));
  if (!gen.weights.empty())
    AOT_RETURN_IF_ERROR(WriteTextFile(base + ".weights", std::string(gen.weights.begin(), gen.weights.end())));
  return Status::Ok();
}

StatusOr<std::string> BuildCudaLibrary(const std::string& dir, const std::string& name, const CudaBuildOptions& opts) {
  const std::string nvcc = FindNvcc(opts);
  if (nvcc.empty())
    return NotFound("nvcc not found (set $NVCC or install the CUDA Toolkit at /usr/local/cuda)");
  AOT_ASSIGN_OR_RETURN(std::string arch, CudaArchFlags(opts.arch));
  const std::string base = dir + "/" + name;
  const std::string lib = dir + "/lib" + name + ".so";
  AOT_RETURN_IF_ERROR(RunShell(ShellQuote(nvcc) + " -O3 " + arch + " -Xcompiler -fPIC -shared -I" + ShellQuote(dir) + " " +
                                   opts.extra_flags + " -o " + ShellQuote(lib) + " " + ShellQuote(base + ".cu") + " -lcublas",
                               "building lib" + name + ".so with nvcc"));
  std::string cc = opts.cc;
  if (const char* env = std::getenv("CC"); env && *env && cc == "cc") cc = env;
  AOT_RETURN_IF_ERROR(WriteTextFile(dir + "/atenaot_runtime.c", kRuntimeSource));
  AOT_RETURN_IF_ERROR(RunShell(cc + " -std=c99 -O2 -fPIC -shared -I" + ShellQuote(dir) + " -o " +
                                   ShellQuote(dir + "/libatenaot_runtime.so") + " " + ShellQuote(dir + "/atenaot_runtime.c") + " -ldl",
                               "building libatenaot_runtime.so"));
  return lib;
}

}  // namespace atenaot
