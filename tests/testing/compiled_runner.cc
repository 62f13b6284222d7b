#include "tests/testing/compiled_runner.h"

#include <ATen/ATen.h>

#include <cstdlib>
#include <cstring>
#include <map>

#include "atenaot.h"
#include "capture/jit_import.h"
#include "capture/tensor_convert.h"
#include "codegen/build_library.h"
#include "codegen/c_codegen.h"
#include "driver/compile_graph.h"
#include "interp/annotate.h"
#include "passes/decompose.h"
#include "passes/pipeline.h"
#include "plan/memory_plan.h"
#include "schema/dispatcher_schemas.h"
#include "tests/testing/eager_compare.h"

namespace atenaot {

aot_tensor DescribeTensor(const at::Tensor& t) {
  aot_tensor d{};
  d.data = t.data_ptr();
  auto dt = DTypeFromAten(t.scalar_type());
  static const std::map<DType, aot_dtype> kMap = {{DType::kFloat32, AOT_FLOAT32}, {DType::kFloat64, AOT_FLOAT64},
                                                  {DType::kInt32, AOT_INT32},     {DType::kInt64, AOT_INT64},
                                                  {DType::kBool, AOT_BOOL},       {DType::kUInt8, AOT_UINT8},
                                                  {DType::kInt8, AOT_INT8},       {DType::kInt16, AOT_INT16}};
  d.dtype = dt.ok() && kMap.count(*dt) ? kMap.at(*dt) : AOT_FLOAT32;
  d.ndim = static_cast<int32_t>(t.dim());
  for (int64_t k = 0; k < t.dim(); ++k) {
    d.sizes[k] = t.size(k);
    d.strides[k] = t.stride(k);
  }
  return d;
}

std::string CompileAndOpen(Graph& g, const std::vector<at::Tensor>& inputs, const std::string& dir, aot_model** model,
                           const std::string& extra_cflags, bool float_accumulation, std::string* source,
                           bool split_all, int winograd) {
  CodegenOptions copts;
  copts.name = "m";
  copts.float_accumulation = float_accumulation;
  copts.winograd = winograd;
  if (split_all) copts.thread_grain = 1;
  auto compiled = CompileGraph(
      g, LiveOpTable(), [&](Graph& gg) { return AnnotateFromRun(gg, inputs); }, copts);
  if (!compiled.ok()) return compiled.status().ToString();
  if (source) *source = compiled->c.source;
  BuildOptions bopts;
  bopts.extra_cflags = "-O1 " + extra_cflags;
  auto lib = WriteAndBuild(compiled->c, dir, "m", bopts);
  if (!lib.ok()) return lib.status().ToString();
  aot_model* m = nullptr;
  if (aot_model_open(lib->c_str(), &m) != AOT_OK) return aot_last_error();
  *model = m;
  return "";
}

CompiledRun CompileAndRun(Graph& g, std::vector<at::Tensor>& inputs, const std::string& dir,
                          const std::string& extra_cflags, bool float_accumulation,
                          const std::vector<int>& thread_counts, int winograd) {
  CompiledRun r;
  // ATENAOT_TEST_THREADS=N: every kernel that can split does (tiny grain), on N threads.
  const char* threads = std::getenv("ATENAOT_TEST_THREADS");
  std::vector<int> counts = thread_counts;
  if (counts.empty() && threads && *threads) counts = {std::atoi(threads)};
  const bool split_all = !counts.empty();
  if (counts.empty()) counts = {-1};  // -1: leave the option alone
  aot_model* m = nullptr;
  r.error = CompileAndOpen(g, inputs, dir, &m, extra_cflags, float_accumulation, &r.source, split_all, winograd);
  if (!r.error.empty()) return r;
  std::vector<aot_tensor> in, out;
  for (size_t i = 0; i < inputs.size(); ++i) {
    in.push_back(DescribeTensor(inputs[i]));
    aot_tensor_info info{};
    if (aot_model_input_info(m, i, &info) != AOT_OK) {
      r.error = aot_last_error();
      aot_model_free(m);
      return r;
    }
    r.mutated.push_back((info.flags & AOT_INFO_MUTATED) != 0);
  }
  for (int n : counts) {
    if (n >= 0 && aot_model_set_option(m, "threads", n) != AOT_OK) {
      r.error = aot_last_error();
      break;
    }
    std::vector<at::Tensor> outs;
    out.clear();
    for (const Value* v : g.outputs()) {
      at::Tensor t = at::empty(v->meta().sizes, at::TensorOptions().dtype(AtenFromDType(v->meta().dtype)));
      outs.push_back(t);
      out.push_back(DescribeTensor(t));
    }
    if (aot_model_run(m, in.data(), in.size(), out.data(), out.size(), nullptr, 0) != AOT_OK) {
      r.error = aot_last_error();
      break;
    }
    if (r.runs.empty()) r.outputs = outs;
    if (!thread_counts.empty()) r.runs.push_back(outs);
  }
  aot_model_free(m);
  return r;
}

namespace {
// Bitwise equality (NaN-safe), for "did this run change the tensor".
bool SameBytes(const at::Tensor& a, const at::Tensor& b) {
  if (a.sizes() != b.sizes() || a.scalar_type() != b.scalar_type()) return false;
  at::Tensor ca = a.contiguous(), cb = b.contiguous();
  return std::memcmp(ca.data_ptr(), cb.data_ptr(), ca.nbytes()) == 0;
}
}  // namespace

const std::vector<std::pair<std::string, std::string>> kKnownUnsupported = {
    {"aten::index_put_", "boolean-mask index_put needs values that broadcast over the masked elements"},
    {"aten::block_diag", "no C lowering for aten::block_diag"},  // PyTorch's test_tensor_list_composite
};

std::string KnownRefusal(const std::string& error) {
  const std::string marker = "the C backend cannot compile:";
  size_t at = error.find(marker);
  if (at == std::string::npos) return "";
  std::string unknown;
  // The message lists each op as " [%v = aten::op: reason]".
  for (size_t start = error.find('[', at); start != std::string::npos; start = error.find(" [", start + 1)) {
    start = error.find('[', start);
    size_t end = error.find(']', start);
    std::string item = error.substr(start + 1, end == std::string::npos ? std::string::npos : end - start - 1);
    bool known = false;
    for (const auto& [op, reason] : kKnownUnsupported)
      known |= item.find("= " + op + ":") != std::string::npos && item.find(reason) != std::string::npos;
    if (!known) unknown += " [" + item + "]";
    if (end == std::string::npos) break;
  }
  if (!unknown.empty()) return "FAIL: the C backend refused ops not on kKnownUnsupported:" + unknown;
  return "known unsupported op(s): " + error.substr(at + marker.size(), 500);
}

std::string RunProgramCompiled(const SuiteProgram& p, const std::string& dir) {
  std::vector<at::Tensor> inputs = p.inputs();
  if (!p.rejected_with.empty()) {
    // Compiling runs the passes that must refuse it, with this message.
    auto g = TraceCpp(p.fn, inputs, LiveOpTable());
    if (!g.ok()) return "import failed: " + g.status().ToString();
    std::vector<at::Tensor> run_in = CloneKeepingAliasing(inputs);
    CompiledRun r = CompileAndRun(**g, run_in, dir);
    if (r.error.empty()) return "expected compile to refuse the program (" + p.rejected_with + "), but it ran";
    if (r.error.find(p.rejected_with) == std::string::npos) return "refused with the wrong message: " + r.error;
    return "";
  }
  auto g = TraceCpp(p.fn, inputs, LiveOpTable());
  if (!g.ok()) return "import failed: " + g.status().ToString();
  std::vector<at::Tensor> eager_in = CloneKeepingAliasing(inputs);
  std::vector<at::Tensor> eager_out = p.fn(eager_in);
  std::vector<at::Tensor> run_in = CloneKeepingAliasing(inputs);
  CompiledRun r = CompileAndRun(**g, run_in, dir);
  if (!r.error.empty()) return r.error;
  std::string diff = CompareTensorLists(eager_out, r.outputs, "output") + CompareInputsAfter(eager_in, run_in);
  // The ABI must tell callers which inputs a run updates.
  for (size_t i = 0; i < inputs.size() && i < r.mutated.size(); ++i)
    if (!r.mutated[i] && !SameBytes(eager_in[i], inputs[i]))
      diff += "input " + std::to_string(i) + " is changed by eager but not flagged AOT_INFO_MUTATED\n";
  if (!diff.empty()) diff += "\n" + r.source;
  return diff;
}

}  // namespace atenaot
