#include "codegen/build_cuda_library.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "codegen/build_library.h"
#include "codegen/embedded_sources.h"
#include "io/files.h"
#include "io/process.h"

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

namespace {

std::vector<std::string> CudaSourceFiles(const GeneratedCuda& gen, const std::string& name) {
  std::vector<std::string> f = {name + ".h", name + ".cu", "atenaot.h", "atenaot_model.h"};
  if (!gen.weights.empty()) f.push_back(name + ".weights");
  return f;
}

Status WriteCudaSourcesInto(const GeneratedCuda& gen, const std::string& dir, const std::string& name) {
  const std::string base = dir + "/" + name;
  AOT_RETURN_IF_ERROR(WriteFile(base + ".h", gen.header));
  AOT_RETURN_IF_ERROR(WriteFile(base + ".cu", gen.source));
  AOT_RETURN_IF_ERROR(WriteFile(dir + "/atenaot.h", kAtenaotHeader));
  AOT_RETURN_IF_ERROR(WriteFile(dir + "/atenaot_model.h", kAtenaotModelHeader));
  if (!gen.weights.empty())
    AOT_RETURN_IF_ERROR(WriteFile(base + ".weights", std::string(gen.weights.begin(), gen.weights.end())));
  return Status::Ok();
}

}  // namespace

Status WriteCudaSources(const GeneratedCuda& gen, const std::string& dir, const std::string& name) {
  AOT_ASSIGN_OR_RETURN(std::unique_ptr<StagedDir> out, StagedDir::Begin(dir));
  AOT_RETURN_IF_ERROR(WriteCudaSourcesInto(gen, out->path(), name));
  return out->Commit(CudaSourceFiles(gen, name));
}

StatusOr<std::string> WriteAndBuildCuda(const GeneratedCuda& gen, const std::string& dir, const std::string& name,
                                        const CudaBuildOptions& opts) {
  const std::string nvcc = FindNvcc(opts);
  if (nvcc.empty()) return NotFound("nvcc not found (set $NVCC or install the CUDA Toolkit at /usr/local/cuda)");
  AOT_ASSIGN_OR_RETURN(std::string arch, CudaArchFlags(opts.arch));
  AOT_ASSIGN_OR_RETURN(std::unique_ptr<StagedDir> out, StagedDir::Begin(dir));
  AOT_RETURN_IF_ERROR(WriteCudaSourcesInto(gen, out->path(), name));
  std::vector<std::string> cmd = SplitWords(nvcc);
  for (const std::string& f : SplitWords("-O3 " + arch + " -Xcompiler -fPIC -shared -I. " + opts.extra_flags))
    cmd.push_back(f);
  cmd.insert(cmd.end(), {"-o", "lib" + name + ".so", name + ".cu", "-lcublas"});
  AOT_RETURN_IF_ERROR(RunProgram(cmd, "building lib" + name + ".so with nvcc", out->path()));
  AOT_ASSIGN_OR_RETURN(std::string runtime, BuildRuntime(out->path(), opts.cc));
  std::vector<std::string> files = CudaSourceFiles(gen, name);
  files.insert(files.end(), {"atenaot_runtime.c", runtime, "lib" + name + ".so"});
  AOT_RETURN_IF_ERROR(out->Commit(files));
  return dir + "/lib" + name + ".so";
}

}  // namespace atenaot
