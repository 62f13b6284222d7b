// What atenaot_library's generated NAME_test and NAME_benchmark share: their
// command line (the sample inputs, expected outputs and weights file, as
// Bazel passes them) and the tensors a compiled model is called with.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "atenaot_model.h"
#include "io/compare.h"  // CompareArrays, as `atenaot compare` compares
#include "io/npy.h"
#include "ir/status.h"

// The compiled model's static entry points, named by the rule with
// -DAOT_UT_MODEL=NAME_model -DAOT_UT_RUN_MSG=NAME_run_msg (C target).
#ifdef AOT_UT_MODEL
extern "C" const aot_compiled_model* AOT_UT_MODEL(void);
#endif
#ifdef AOT_UT_RUN_MSG  // C target only (a CUDA model runs through its table)
extern "C" int AOT_UT_RUN_MSG(const aot_tensor* inputs, size_t num_inputs, aot_tensor* outputs, size_t num_outputs,
                              void* arena, size_t arena_bytes, const void* weights, char* err, size_t err_len);
#endif

namespace atenaot {

struct DriverArgs {
  std::vector<std::string> inputs;    // --input=F.npy, in order
  std::vector<std::string> expected;  // --expected=F.npy or a directory of output_K.npy
  std::string weights;                // --weights=NAME.weights (weights = "file")
};

// Takes the flags above out of argv (leaving the rest for GoogleTest or
// Google Benchmark); unknown --input-like flags are errors.
StatusOr<DriverArgs> ParseDriverArgs(int* argc, char** argv);
// ParseDriverArgs for a main(): false (after printing the error) on bad flags.
bool TakeDriverArgs(int* argc, char** argv, DriverArgs* out);

// Reads .npy files; a directory stands for its output_0.npy, output_1.npy, ...
StatusOr<std::vector<NpyArray>> ReadArrays(const std::vector<std::string>& paths);

// Checks `a` against the model's tensor description and describes it.
StatusOr<aot_tensor> DescribeFor(NpyArray& a, const aot_tensor_info& info, const std::string& what);

// Zero-filled arrays shaped like the model's outputs.
StatusOr<std::vector<NpyArray>> OutputArrays(const aot_compiled_model& m);

// A 64-byte aligned buffer (arenas and weights).
class AlignedBuffer {
 public:
  explicit AlignedBuffer(size_t bytes);
  ~AlignedBuffer();
  AlignedBuffer(const AlignedBuffer&) = delete;
  AlignedBuffer& operator=(const AlignedBuffer&) = delete;
  void* data() const { return p_; }
  size_t size() const { return n_; }

 private:
  void* p_ = nullptr;
  size_t n_ = 0;
};

// The weights file's bytes, 64-byte aligned (empty buffer: no file).
StatusOr<std::unique_ptr<AlignedBuffer>> ReadWeights(const std::string& path);

}  // namespace atenaot
