#include "tools/library_rule/model_driver.h"

#include <dirent.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>

#include "codegen/c_types.h"
#include "io/files.h"

namespace atenaot {
namespace {

std::string ShapeText(const int64_t* sizes, size_t n) {
  std::string s = "[";
  for (size_t d = 0; d < n; ++d) s += (d ? "," : "") + std::to_string(sizes[d]);
  return s + "]";
}

bool IsDirectory(const std::string& path) {
  struct stat st {};
  return stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

// output_0.npy, output_1.npy, ... of a directory (as `atenaot run` writes them).
std::vector<std::string> OutputFiles(const std::string& dir) {
  std::vector<std::string> files;
  for (int k = 0;; ++k) {
    std::string f = dir + "/output_" + std::to_string(k) + ".npy";
    struct stat st {};
    if (stat(f.c_str(), &st) != 0) break;
    files.push_back(f);
  }
  return files;
}

}  // namespace

bool TakeDriverArgs(int* argc, char** argv, DriverArgs* out) {
  auto args = ParseDriverArgs(argc, argv);
  if (!args.ok()) {
    std::fprintf(stderr, "%s\n", args.status().ToString().c_str());
    return false;
  }
  *out = std::move(args).value();
  return true;
}

StatusOr<DriverArgs> ParseDriverArgs(int* argc, char** argv) {
  DriverArgs a;
  int kept = 1;
  for (int i = 1; i < *argc; ++i) {
    std::string s = argv[i];
    auto value = [&](const char* flag) -> const char* {
      size_t n = std::strlen(flag);
      return s.compare(0, n, flag) == 0 ? argv[i] + n : nullptr;
    };
    if (const char* v = value("--input="))
      a.inputs.push_back(v);
    else if (const char* v = value("--expected="))
      a.expected.push_back(v);
    else if (const char* v = value("--weights="))
      a.weights = v;
    else
      argv[kept++] = argv[i];
  }
  *argc = kept;
  if (a.inputs.empty()) return InvalidArgument("no --input=F.npy given (atenaot_library passes the sample inputs)");
  return a;
}

StatusOr<std::vector<NpyArray>> ReadArrays(const std::vector<std::string>& paths) {
  std::vector<std::string> files;
  for (const std::string& p : paths) {
    if (!IsDirectory(p)) {
      files.push_back(p);
      continue;
    }
    std::vector<std::string> in_dir = OutputFiles(p);
    if (in_dir.empty()) return NotFound("no output_0.npy in directory '" + p + "'");
    files.insert(files.end(), in_dir.begin(), in_dir.end());
  }
  std::vector<NpyArray> arrays;
  for (const std::string& f : files) {
    AOT_ASSIGN_OR_RETURN(NpyArray a, ReadNpy(f));
    if (a.fortran_order && a.shape.size() > 1)
      return InvalidArgument("'" + f + "' is in Fortran order; save it in C order (np.ascontiguousarray)");
    arrays.push_back(std::move(a));
  }
  return arrays;
}

StatusOr<aot_tensor> DescribeFor(NpyArray& a, const aot_tensor_info& info, const std::string& what) {
  AOT_ASSIGN_OR_RETURN(DType want, DTypeOfAbi(info.dtype));
  if (a.dtype != want || static_cast<int32_t>(a.shape.size()) != info.ndim ||
      !std::equal(a.shape.begin(), a.shape.end(), info.sizes))
    return InvalidArgument(what + " is " + DTypeName(a.dtype) + ShapeText(a.shape.data(), a.shape.size()) +
                           ", the model takes " + DTypeName(want) +
                           ShapeText(info.sizes, static_cast<size_t>(info.ndim)));
  aot_tensor t{};
  t.data = a.data.data();
  t.dtype = info.dtype;
  t.ndim = info.ndim;
  t.device = AOT_DEVICE_CPU;
  std::vector<int64_t> strides = a.Strides();
  for (int32_t d = 0; d < info.ndim; ++d) {
    t.sizes[d] = a.shape[d];
    t.strides[d] = strides[d];
  }
  return t;
}

StatusOr<std::vector<NpyArray>> OutputArrays(const aot_compiled_model& m) {
  std::vector<NpyArray> out;
  for (size_t k = 0; k < m.num_outputs; ++k) {
    const aot_tensor_info& info = m.outputs[k];
    NpyArray a;
    AOT_ASSIGN_OR_RETURN(a.dtype, DTypeOfAbi(info.dtype));
    a.shape.assign(info.sizes, info.sizes + info.ndim);
    a.data.assign(static_cast<size_t>(a.numel() * DTypeSize(a.dtype)), 0);
    out.push_back(std::move(a));
  }
  return out;
}

AlignedBuffer::AlignedBuffer(size_t bytes) : n_(bytes) {
  // aligned_alloc needs a size that is a multiple of the alignment.
  p_ = std::aligned_alloc(64, std::max<size_t>(64, (bytes + 63) / 64 * 64));
}

AlignedBuffer::~AlignedBuffer() { std::free(p_); }

StatusOr<std::unique_ptr<AlignedBuffer>> ReadWeights(const std::string& path) {
  if (path.empty()) return std::make_unique<AlignedBuffer>(0);
  AOT_ASSIGN_OR_RETURN(std::string bytes, ReadFileBytes(path, "the weights file"));
  auto buf = std::make_unique<AlignedBuffer>(bytes.size());
  std::memcpy(buf->data(), bytes.data(), bytes.size());
  return buf;
}

}  // namespace atenaot
