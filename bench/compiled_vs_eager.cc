// Compiled C (atenaot compile) against LibTorch eager in one process: the
// three examples, a 20-op elementwise chain and any models named with
// --model NAME=DIR (DIR/model.pt + DIR/input_0.npy; bench/make_results.sh
// passes torchvision's MobileNetV2 and ResNet-18 from
// bench/torchvision_models.py). Eager runs the captured
// program op by op through the LibTorch dispatcher (OpenBLAS behind
// libblas.so.3), freeing each value after its last use, as eager PyTorch does;
// the compiled library runs through the C ABI. Runs alternate; medians of
// many. Peak memory: eager's measured allocator peak vs the compiled model's
// arena plus its outputs (everything it needs beyond inputs and weights).
// Weights are embedded as a binary object (NAME_weights.S), so even
// ResNet-18's 47 MB build in seconds.
// Run: bazel run -c opt //bench:compiled_vs_eager -- [--out bench/compiled_vs_eager.md] [--model NAME=DIR]...
#include <ATen/ATen.h>
#include <ATen/Parallel.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>

#include "atenaot.h"
#include "bench/bench_util.h"
#include "capture/cpp_trace.h"
#include "capture/jit_import.h"
#include "capture/load_model.h"
#include "capture/tensor_convert.h"
#include "codegen/build_library.h"
#include "codegen/c_codegen.h"
#include "driver/compile_graph.h"
#include "interp/annotate.h"
#include "interp/reference_interpreter.h"
#include "io/npy.h"
#include "ir/clone.h"
#include "passes/decompose.h"
#include "passes/pipeline.h"
#include "plan/memory_plan.h"
#include "schema/dispatcher_schemas.h"

namespace atenaot {
namespace {

struct Row {
  std::string name;
  double eager_us = 0, eager1_us = 0, compiled_us = 0, native_us = 0;
  int64_t eager_peak = 0, compiled_bytes = 0, arena = 0;
  double max_diff = 0, max_ref = 0;
  double build_s = 0;  // writing and building the portable library (cc -O3)
  int kernels = 0, nodes = 0, runs = 0;
};

double Seconds(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// iters > 0: that many alternating rounds; iters <= 0: as many as fit in
// about -iters seconds (at least 15, at most 300), after one untimed round.
StatusOr<Row> Measure(const std::string& name, std::unique_ptr<Graph> imported, const std::vector<at::Tensor>& inputs,
                      int iters) {
  Row r;
  r.name = name;
  r.nodes = static_cast<int>(imported->num_nodes());
  const OpTable& ops = LiveOpTable();
  AOT_ASSIGN_OR_RETURN(std::unique_ptr<Graph> g, CloneGraph(*imported, ops));
  CodegenOptions copts;
  copts.name = "bench_" + name;
  AOT_ASSIGN_OR_RETURN(CompiledGraph compiled,
                       CompileGraph(*g, ops, [&](Graph& gg) { return AnnotateFromRun(gg, inputs); }, copts));
  const GeneratedC& gen = compiled.c;
  std::string dir = "/tmp/atenaot_bench_" + name;
  const auto build0 = std::chrono::steady_clock::now();
  AOT_ASSIGN_OR_RETURN(std::string lib, WriteAndBuild(gen, dir, copts.name, {}));
  r.build_s = Seconds(build0);
  BuildOptions native;
  native.march_native = true;
  AOT_ASSIGN_OR_RETURN(std::string lib_native, WriteAndBuild(gen, dir + "_native", copts.name, native));
  r.kernels = gen.kernels;
  r.arena = gen.arena_bytes;
  aot_model* m = nullptr;
  aot_model* mn = nullptr;
  if (aot_model_open(lib.c_str(), &m) != AOT_OK) return Internal(aot_last_error());
  if (aot_model_open(lib_native.c_str(), &mn) != AOT_OK) return Internal(aot_last_error());
  std::vector<at::Tensor> outs;
  for (const Value* v : g->outputs()) outs.push_back(at::empty(v->meta().sizes));
  int64_t out_bytes = 0;
  for (const at::Tensor& t : outs) out_bytes += t.numel() * 4;
  r.compiled_bytes = r.arena + out_bytes;
  std::vector<aot_tensor> in_d, out_d;
  std::vector<at::Tensor> ins = CloneKeepingAliasing(inputs);
  for (const at::Tensor& t : ins) in_d.push_back(Describe(t));
  for (const at::Tensor& t : outs) out_d.push_back(Describe(t));
  RunOptions eager;
  eager.free_dead_values = true;
  int64_t peak = 0;
  RunOptions eager_peak = eager;
  eager_peak.peak_bytes = &peak;
  AOT_ASSIGN_OR_RETURN(std::vector<at::Tensor> ref, RunReference(*imported, CloneKeepingAliasing(inputs), eager_peak));
  r.eager_peak = peak;
  if (aot_model_run(m, in_d.data(), in_d.size(), out_d.data(), out_d.size(), nullptr, 0) != AOT_OK)
    return Internal(aot_last_error());
  for (size_t k = 0; k < outs.size(); ++k) {
    r.max_diff = std::max(r.max_diff, (outs[k] - ref[k]).abs().max().item<double>());
    r.max_ref = std::max(r.max_ref, ref[k].abs().max().item<double>());
  }
  auto time_us = [](auto&& f) {
    auto t0 = std::chrono::steady_clock::now();
    f();
    return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
  };
  std::vector<double> te, tc, te1, tn;
  const int threads = at::get_num_threads();
  int run_failures = 0;
  auto round = [&] {  // alternate: both see the same machine state
    te.push_back(time_us([&] { (void)RunReference(*imported, inputs, eager); }));
    aot_status sc = AOT_OK, sn = AOT_OK;  // checked once above; a failure here would show as absurd times
    tc.push_back(time_us([&] { sc = aot_model_run(m, in_d.data(), in_d.size(), out_d.data(), out_d.size(), nullptr, 0); }));
    tn.push_back(time_us([&] { sn = aot_model_run(mn, in_d.data(), in_d.size(), out_d.data(), out_d.size(), nullptr, 0); }));
    run_failures += (sc != AOT_OK) + (sn != AOT_OK);
  };
  if (iters <= 0) {
    const auto t0 = std::chrono::steady_clock::now();
    round();
    te.clear(); tc.clear(); tn.clear();
    iters = std::clamp(static_cast<int>(-iters / std::max(Seconds(t0), 1e-6)), 15, 300);
  }
  for (int i = 0; i < iters; ++i) round();
  if (run_failures) return Internal(std::to_string(run_failures) + " timed runs failed: " + aot_last_error());
  r.runs = iters;
  at::set_num_threads(1);
  for (int i = 0; i < iters; ++i) te1.push_back(time_us([&] { (void)RunReference(*imported, inputs, eager); }));
  at::set_num_threads(threads);
  r.eager_us = Median(te);
  r.compiled_us = Median(tc);
  r.eager1_us = Median(te1);
  r.native_us = Median(tn);
  aot_model_free(m);
  aot_model_free(mn);
  return r;
}

std::vector<at::Tensor> Inputs(const std::string& dir) {
  std::vector<at::Tensor> ts;
  for (int k = 0;; ++k) {
    auto a = ReadNpy(dir + "/input_" + std::to_string(k) + ".npy");
    if (!a.ok()) break;
    ts.push_back(TensorFromNpy(*a));
  }
  return ts;
}

int Main(int argc, char** argv) {
  std::string out_path;
  std::vector<std::pair<std::string, std::string>> models;  // --model NAME=DIR
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if ((a == "--out" || a == "--model") && i + 1 >= argc) { std::cerr << a << " needs a value\n"; return 2; }
    if (a == "--out") out_path = argv[++i];
    else if (a == "--model") {
      const std::string v = argv[++i];
      const size_t eq = v.find('=');
      if (eq == std::string::npos || eq == 0) { std::cerr << "--model wants NAME=DIR, got '" << v << "'\n"; return 2; }
      models.emplace_back(v.substr(0, eq), v.substr(eq + 1));
    } else { std::cerr << "unknown argument '" << a << "'\n"; return 2; }
  }
  std::vector<Row> rows;
  auto measure_dir = [&](const std::string& name, const std::string& dir, int iters) {
    std::vector<at::Tensor> ins = Inputs(dir);
    std::vector<NpyArray> arrays;
    for (const at::Tensor& t : ins) arrays.push_back(*NpyFromTensor(t));
    auto g = LoadModel(dir + "/model.pt", arrays, LiveOpTable());
    if (!g.ok()) { std::cerr << name << ": " << g.status().ToString() << "\n"; return false; }
    auto r = Measure(name, std::move(g).value(), ins, iters);
    if (!r.ok()) { std::cerr << name << ": " << r.status().ToString() << "\n"; return false; }
    rows.push_back(*r);
    return true;
  };
  for (const char* ex : {"mlp", "cnn", "transformer"})
    if (!measure_dir(ex, std::string("examples/") + ex, 300)) return 1;
  // The 20-op elementwise chain over 1M floats.
  CppProgram chain = Chain20;
  at::manual_seed(0);
  std::vector<at::Tensor> cin = {at::randn({1 << 20})};
  auto cg = TraceCpp(chain, cin, LiveOpTable());
  if (!cg.ok()) { std::cerr << cg.status().ToString() << "\n"; return 1; }
  auto cr = Measure("chain20", std::move(cg).value(), cin, 40);
  if (!cr.ok()) { std::cerr << cr.status().ToString() << "\n"; return 1; }
  rows.push_back(*cr);
  for (const auto& [name, dir] : models)
    if (!measure_dir(name, dir, -40)) return 1;  // about 40 s of alternating rounds each

  std::ostringstream md;
  md << "# Compiled C vs LibTorch eager\n\n";
  std::string args;
  for (int i = 1; i < argc; ++i) args += std::string(" ") + argv[i];
  md << "Command: `bazel run -c opt //bench:compiled_vs_eager --" << args << "` "
        "(run from the repository root; CC=cc -O3).\n";
  md << "Machine: " << at::get_num_threads() << " LibTorch threads; LibTorch 1.13 CPU with OpenBLAS behind libblas.so.3.\n";
  md << "Eager: the captured program op by op through the LibTorch dispatcher, each value freed after its last use. "
        "Compiled: the generated C library through the C ABI (its default threads: one per CPU). Latency is the median of `runs` "
        "alternating rounds (eager, compiled, native; 300 per example, 40 for the chain, as many as fit in about 40 s "
        "(15 to 300) for `--model` models); `eager 1T` is eager with one thread, timed after them.\n\n";
  md << "`compiled` is the default build (`atenaot compile` without --cpu: this machine's x86-64 level, " +
            (DefaultCpu().empty() ? std::string("baseline") : DefaultCpu()) +
            "); `native` is --cpu native (-march=native). "
        "`build s`: writing the sources and building the default libNAME.so and libNAME.a (weights as a binary "
        "object). `max abs diff`: compiled vs eager outputs of the same inputs in this process (`max |eager|` "
        "for scale).\n\n";
  md << "| model | ops | kernels | runs | build s | eager us | eager 1T us | compiled us | native us | speed-up (native) | "
        "eager peak B | compiled B (arena+outputs) | memory ratio | max abs diff | max \\|eager\\| |\n"
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n";
  for (const Row& r : rows) {
    char line[640];
    std::snprintf(line, sizeof(line),
                  "| %s | %d | %d | %d | %.1f | %.1f | %.1f | %.1f | %.1f | %.2fx (%.2fx) | %lld | %lld | %.2fx | %.2g | %.3g |\n",
                  r.name.c_str(), r.nodes, r.kernels, r.runs, r.build_s, r.eager_us, r.eager1_us, r.compiled_us,
                  r.native_us, r.eager_us / r.compiled_us, r.eager_us / r.native_us,
                  static_cast<long long>(r.eager_peak), static_cast<long long>(r.compiled_bytes),
                  static_cast<double>(r.eager_peak) / static_cast<double>(std::max<int64_t>(r.compiled_bytes, 1)),
                  r.max_diff, r.max_ref);
    md << line;
  }
  std::cout << md.str();
  if (!out_path.empty()) {
    std::ofstream f(out_path);
    f << md.str();
  }
  return 0;
}

}  // namespace
}  // namespace atenaot

int main(int argc, char** argv) { return atenaot::Main(argc, argv); }
