// Compiled C (atenaot compile) against LibTorch eager in one process: the
// three examples, a 20-op elementwise chain and any models named with
// --model NAME=DIR (DIR/model.pt + DIR/input_K.npy; bench/make_results.sh
// passes the model zoo's models traced by bench/trace_models.py), with all
// threads and with one. Eager is what a LibTorch user runs: the model.pt
// module's forward under NoGradGuard (the default graph executor, warmed up);
// the chain, which has no module, runs its captured program op by op through
// the LibTorch dispatcher. The compiled library runs through the C ABI. Runs alternate; medians of
// many. Peak memory: eager's measured allocator peak vs the compiled model's
// arena plus its outputs (everything it needs beyond inputs and weights).
// Weights are embedded as a binary object (NAME_weights.S), so even
// ResNet-18's 47 MB build in seconds.
// Run: bazel run -c opt //bench:compiled_vs_eager -- [--out bench/compiled_vs_eager.md] [--model NAME=DIR]...
#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <torch/script.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <iostream>
#include <sstream>
#include <thread>

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
  double eager_us = 0, eager1_us = 0, compiled_us = 0, compiled1_us = 0;  // all threads, and one
  int64_t eager_peak = 0, compiled_bytes = 0, arena = 0;
  double max_diff = 0, max_ref = 0;
  double build_s = 0;  // writing and building the library (cc -O3, the default --cpu)
  int kernels = 0, nodes = 0, runs = 0;
  const char* eager_is = "graph";  // "module": model.pt's forward; "graph": the captured program op by op
};

// model.pt's forward as a LibTorch C++ user calls it: loaded once, eval,
// NoGradGuard, the default (profiling) graph executor after warm-up runs.
// The inputs are the timed runs' own tensors.
std::function<void()> ModuleForward(const std::string& path, const std::vector<at::Tensor>& inputs) {
  auto mod = std::make_shared<torch::jit::Module>(torch::jit::load(path));
  mod->eval();
  auto args = std::make_shared<std::vector<c10::IValue>>(inputs.begin(), inputs.end());
  auto run = [mod, args] {
    torch::NoGradGuard no_grad;
    (void)mod->forward(*args);
  };
  for (int i = 0; i < 3; ++i) run();  // the profiling executor optimizes after its first runs
  return run;
}

int Cpus() { return static_cast<int>(std::max(1u, std::thread::hardware_concurrency())); }

double Seconds(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

template <typename F>
double TimeUs(F&& f) {
  const auto t0 = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
}

// iters > 0: that many alternating rounds; iters <= 0: as many as fit in
// about -iters seconds (at least 15, at most 300), after one untimed round.
// `module_forward`: the eager side to time (else the captured program op by
// op); the error column always compares with the op-by-op run.
StatusOr<Row> Measure(const std::string& name, std::unique_ptr<Graph> imported, const std::vector<at::Tensor>& inputs,
                      int iters, std::function<void()> module_forward = nullptr) {
  Row r;
  r.name = name;
  if (module_forward) r.eager_is = "module";
  r.nodes = static_cast<int>(imported->num_nodes());
  const OpTable& ops = LiveOpTable();
  AOT_ASSIGN_OR_RETURN(std::unique_ptr<Graph> g, CloneGraph(*imported, ops));
  CodegenOptions copts;
  copts.name = "bench_" + name;
  AOT_ASSIGN_OR_RETURN(CompiledGraph compiled,
                       CompileGraph(
                           *g, ops, [&](Graph& gg) { return AnnotateFromRun(gg, inputs); }, copts));
  const GeneratedC& gen = compiled.c;
  std::string dir = "/tmp/atenaot_bench_" + name;
  const auto build0 = std::chrono::steady_clock::now();
  AOT_ASSIGN_OR_RETURN(std::string lib, WriteAndBuild(gen, dir, copts.name, {}));
  r.build_s = Seconds(build0);
  r.kernels = gen.kernels;
  r.arena = gen.arena_bytes;
  aot_model* m = nullptr;
  if (aot_model_open(lib.c_str(), &m) != AOT_OK) return Internal(aot_last_error());
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
  // Two phases, each alternating eager and compiled rounds so both see the
  // same machine state: one thread per CPU on both sides, then one thread.
  // (Set explicitly: LibTorch's own default follows OpenMP's, which is 1 on
  // some VMs; the library's default is one per CPU.)
  const int threads = Cpus();
  int run_failures = 0;
  auto phase = [&](int n_threads, int n, std::vector<double>* te, std::vector<double>* tc) -> Status {
    SetEagerThreads(n_threads);
    if (aot_model_set_option(m, "threads", n_threads) != AOT_OK) return Internal(aot_last_error());
    for (int i = 0; i < n; ++i) {
      te->push_back(TimeUs([&] {
        if (module_forward)
          module_forward();
        else
          (void)RunReference(*imported, inputs, eager);
      }));
      aot_status sc = AOT_OK;
      tc->push_back(
          TimeUs([&] { sc = aot_model_run(m, in_d.data(), in_d.size(), out_d.data(), out_d.size(), nullptr, 0); }));
      run_failures += sc != AOT_OK;
    }
    return Status::Ok();
  };
  std::vector<double> te, tc, te1, tc1;
  if (iters <= 0) {  // one untimed round sizes the run
    const auto t0 = std::chrono::steady_clock::now();
    AOT_RETURN_IF_ERROR(phase(threads, 1, &te, &tc));
    te.clear();
    tc.clear();
    iters = std::clamp(static_cast<int>(-iters / 2 / std::max(Seconds(t0), 1e-6)), 10, 300);
  }
  Status st = phase(threads, iters, &te, &tc);
  if (st.ok()) st = phase(1, iters, &te1, &tc1);
  SetEagerThreads(threads);
  aot_model_free(m);
  AOT_RETURN_IF_ERROR(st);
  if (run_failures) return Internal(std::to_string(run_failures) + " timed runs failed");
  r.runs = iters;
  r.eager_us = Median(te);
  r.compiled_us = Median(tc);
  r.eager1_us = Median(te1);
  r.compiled1_us = Median(tc1);
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
    if ((a == "--out" || a == "--model") && i + 1 >= argc) {
      std::cerr << a << " needs a value\n";
      return 2;
    }
    if (a == "--out")
      out_path = argv[++i];
    else if (a == "--model") {
      const std::string v = argv[++i];
      const size_t eq = v.find('=');
      if (eq == std::string::npos || eq == 0) {
        std::cerr << "--model wants NAME=DIR, got '" << v << "'\n";
        return 2;
      }
      models.emplace_back(v.substr(0, eq), v.substr(eq + 1));
    } else {
      std::cerr << "unknown argument '" << a << "'\n";
      return 2;
    }
  }
  std::vector<Row> rows;
  auto measure_dir = [&](const std::string& name, const std::string& dir, int iters) {
    std::vector<at::Tensor> ins = Inputs(dir);
    std::vector<NpyArray> arrays;
    for (const at::Tensor& t : ins) arrays.push_back(*NpyFromTensor(t));
    auto g = LoadModel(dir + "/model.pt", arrays, LiveOpTable());
    if (!g.ok()) {
      std::cerr << name << ": " << g.status().ToString() << "\n";
      return false;
    }
    std::function<void()> forward;
    try {
      forward = ModuleForward(dir + "/model.pt", ins);
    } catch (const std::exception& e) {
      std::cerr << name << ": LibTorch could not run " << dir << "/model.pt: " << e.what() << "\n";
      return false;
    }
    auto r = Measure(name, std::move(g).value(), ins, iters, forward);
    if (!r.ok()) {
      std::cerr << name << ": " << r.status().ToString() << "\n";
      return false;
    }
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
  if (!cg.ok()) {
    std::cerr << cg.status().ToString() << "\n";
    return 1;
  }
  auto cr = Measure("chain20", std::move(cg).value(), cin, 40);
  if (!cr.ok()) {
    std::cerr << cr.status().ToString() << "\n";
    return 1;
  }
  rows.push_back(*cr);
  for (const auto& [name, dir] : models)
    if (!measure_dir(name, dir, -40)) return 1;  // about 40 s of alternating rounds each (20 s per phase)

  std::ostringstream md;
  md << "# Compiled C vs LibTorch eager\n\n";
  std::string args;
  for (int i = 1; i < argc; ++i) args += std::string(" ") + argv[i];
  md << "Command: `bazel run -c opt //bench:compiled_vs_eager --" << args
     << "` "
        "(run from the repository root; CC=cc -O3).\n";
  md << "Machine: " << Cpus() << " CPUs (all threads = " << Cpus()
     << " on both sides); LibTorch 1.13 CPU (oneDNN, OpenBLAS behind "
        "libblas.so.3); the library built for the default --cpu ("
     << (DefaultCpu().empty() ? std::string("baseline") : DefaultCpu()) << ").\n";
  md << "Eager (`eager is` module): the model.pt module's forward as a LibTorch C++ user runs it (torch::jit::load, "
        "eval, NoGradGuard, the default graph executor after 3 warm-up runs); (graph, the chain, which has no module): "
        "the captured program op by op through the LibTorch dispatcher, each value freed after its last use. "
        "Compiled: the generated C library through the C ABI. OpenBLAS's idle threads sleep at once "
        "(OPENBLAS_THREAD_TIMEOUT=4: spinning, they took a CPU from the library's threads); LibTorch's OpenMP "
        "workers still spin for milliseconds after eager's parallel regions, so on short runs the compiled "
        "all-threads column is pessimistic (chain20: about 2.8 ms here, 1.3 ms in elementwise_bandwidth's "
        "blocks). Two phases of `runs` "
        "alternating rounds each: one "
        "thread per CPU on both sides, then one thread (eager: at::set_num_threads and "
     << (SetEagerThreads(Cpus()) ? "OpenBLAS's openblas_set_num_threads, which the former leaves alone"
                                 : "not the BLAS's threads: this BLAS has no openblas_set_num_threads")
     << "; the library: its threads option). "
        "Medians, in ms. `build s`: writing the sources and building libNAME.so and libNAME.a. `memory`: eager's "
        "allocator peak / the compiled arena + outputs. `err / scale`: max |compiled - eager| / max |eager|.\n\n";
  md << "| model | eager is | ops | runs | build s | eager 1T | compiled 1T | speed-up 1T | eager | compiled | "
        "speed-up | memory | err / scale |\n"
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n";
  for (const Row& r : rows) {
    char line[640];
    std::snprintf(line, sizeof(line),
                  "| %s | %s | %d | %d | %.1f | %.3f | %.3f | %.2fx | %.3f | %.3f | %.2fx | %.2fx | %.1e |\n",
                  r.name.c_str(), r.eager_is, r.nodes, r.runs, r.build_s, r.eager1_us / 1e3, r.compiled1_us / 1e3,
                  r.eager1_us / r.compiled1_us, r.eager_us / 1e3, r.compiled_us / 1e3, r.eager_us / r.compiled_us,
                  static_cast<double>(r.eager_peak) / static_cast<double>(std::max<int64_t>(r.compiled_bytes, 1)),
                  r.max_diff / std::max(r.max_ref, 1e-30));
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

int main(int argc, char** argv) {
  // OpenBLAS (eager's matmuls and linears) keeps its idle workers spinning
  // for 2^28 cycles after each call: in one process with the compiled
  // library they took the second CPU from the library's threads (ResNet-50
  // on 2 threads: 69 ms after eager's rounds, 41 ms with them left out).
  // With 2^4 cycles they sleep at once, and eager's own times stayed the
  // same (ResNet-50 49.2 vs 50.0 ms, GPT block and transformer encoder within
  // noise). OpenBLAS reads the variable when it loads: set it and start again.
  if (!std::getenv("OPENBLAS_THREAD_TIMEOUT")) {
    setenv("OPENBLAS_THREAD_TIMEOUT", "4", 1);
    execv("/proc/self/exe", argv);  // returns only on failure: then run as we are
  }
  return atenaot::Main(argc, argv);
}
