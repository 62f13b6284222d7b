#include "tests/testing/compiled_runner.h"

#include <ATen/ATen.h>

#include <cstdlib>
#include <cstring>

#include "atenaot.h"
#include "capture/jit_import.h"
#include "capture/tensor_convert.h"
#include "codegen/build_library.h"
#include "codegen/c_codegen.h"
#include "codegen/compile_graph.h"
#include "interp/annotate.h"
#include "passes/decompose.h"
#include "passes/pipeline.h"
#include "plan/memory_plan.h"
#include "schema/dispatcher_schemas.h"
#include "tests/testing/eager_compare.h"

namespace atenaot {

CompiledRun CompileAndRun(Graph& g, std::vector<at::Tensor>& inputs, const std::string& dir,
                          const std::string& extra_cflags, bool float_accumulation) {
  CompiledRun r;
  CodegenOptions copts;
  copts.name = "m";
  copts.float_accumulation = float_accumulation;
  // ATENAOT_TEST_THREADS=N: every kernel that can split does (tiny grain), on N threads.
  const char* threads = std::getenv("ATENAOT_TEST_THREADS");
  if (threads && *threads) copts.thread_grain = 1;
  auto compiled = CompileGraph(g, LiveOpTable(), [&](Graph& gg) { return AnnotateFromRun(gg, inputs); }, copts);
  if (!compiled.ok()) { r.error = compiled.status().ToString(); return r; }
  const GeneratedC* gen = &compiled->c;
  r.source = gen->source;
  BuildOptions bopts;
  bopts.extra_cflags = "-O1 " + extra_cflags;
  auto lib = WriteAndBuild(*gen, dir, "m", bopts);
  if (!lib.ok()) { r.error = lib.status().ToString(); return r; }
  aot_model* m = nullptr;
  if (aot_model_open(lib->c_str(), &m) != AOT_OK) { r.error = aot_last_error(); return r; }
  if (threads && *threads && aot_model_set_option(m, "threads", std::atoi(threads)) != AOT_OK) {
    r.error = aot_last_error();
    aot_model_free(m);
    return r;
  }
  std::vector<aot_tensor> in, out;
  auto describe = [](const at::Tensor& t) {
    aot_tensor d{};
    d.data = t.data_ptr();
    auto dt = DTypeFromAten(t.scalar_type());
    static const std::map<DType, aot_dtype> kMap = {{DType::kFloat32, AOT_FLOAT32}, {DType::kFloat64, AOT_FLOAT64},
                                                   {DType::kInt32, AOT_INT32},     {DType::kInt64, AOT_INT64},
                                                   {DType::kBool, AOT_BOOL},       {DType::kUInt8, AOT_UINT8},
                                                   {DType::kInt8, AOT_INT8},       {DType::kInt16, AOT_INT16}};
    d.dtype = dt.ok() && kMap.count(*dt) ? kMap.at(*dt) : AOT_FLOAT32;
    d.ndim = static_cast<int32_t>(t.dim());
    for (int64_t k = 0; k < t.dim(); ++k) { d.sizes[k] = t.size(k); d.strides[k] = t.stride(k); }
    return d;
  };
  for (size_t i = 0; i < inputs.size(); ++i) {
    at::Tensor& t = inputs[i];
    if (!t.is_contiguous()) { r.error = "non-contiguous sample input"; aot_model_free(m); return r; }
    in.push_back(describe(t));
    aot_tensor_info info{};
    if (aot_model_input_info(m, i, &info) != AOT_OK) { r.error = aot_last_error(); aot_model_free(m); return r; }
    r.mutated.push_back((info.flags & AOT_INFO_MUTATED) != 0);
  }
  for (const Value* v : g.outputs()) {
    at::Tensor t = at::empty(v->meta().sizes, at::TensorOptions().dtype(AtenFromDType(v->meta().dtype)));
    r.outputs.push_back(t);
    out.push_back(describe(t));
  }
  if (aot_model_run(m, in.data(), in.size(), out.data(), out.size(), nullptr, 0) != AOT_OK) r.error = aot_last_error();
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
    {"aten::index_put_", "boolean-mask index_put needs a single value"},
    {"aten::index_put_", "index_put with several index tensors"},
    {"aten::topk", "no C lowering for aten::topk"},
    {"aten::sort", "no C lowering for aten::sort"},
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
  for (size_t i = 0; i < inputs.size(); ++i) {
    // The C ABI takes separate contiguous inputs.
    if (!inputs[i].is_contiguous() || inputs[i].storage_offset() != 0)
      return kSkipPrefix + "input " + std::to_string(i) +
             " is non-contiguous or at a storage offset; the C ABI takes contiguous inputs";
    for (size_t j = 0; j < i; ++j)
      if (inputs[i].storage().unsafeGetStorageImpl() == inputs[j].storage().unsafeGetStorageImpl())
        return kSkipPrefix + "inputs " + std::to_string(j) + " and " + std::to_string(i) +
               " share memory; the C ABI takes separate inputs";
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
