// Fused elementwise chains against this machine's copy bandwidth, and
// against LibTorch eager (all its threads), in one process:
//  - memcpy of 64 MB (median of 15): bytes read + written per second;
//  - each chain compiled with the default --cpu (DefaultCpu()), run with one
//    thread and with all (the library's default), and eager (the same ATen
//    calls, op by op); GB/s counts the chain's input and output bytes once,
//    the least any implementation moves, as a fraction of memcpy's.
// Sides take turns in blocks of back-to-back runs (eager, compiled all threads, compiled 1 thread;
// bench_util.h TimeInBlocks); medians.
// Run: bazel run -c opt //bench:elementwise_bandwidth -- [--out FILE.md]
#include <ATen/ATen.h>
#include <ATen/Parallel.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>
#include <thread>
#include <vector>

#include "atenaot.h"
#include "bench/bench_util.h"
#include "capture/cpp_trace.h"
#include "codegen/build_library.h"
#include "codegen/c_codegen.h"
#include "driver/compile_graph.h"
#include "interp/annotate.h"
#include "schema/dispatcher_schemas.h"

namespace atenaot {
namespace {

template <typename F>
double Seconds(F&& f) {
  const auto t0 = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// 64 MB copied, bytes read + written per second (median of 15, after one warm-up).
double MemcpyBytesPerSecond() {
  const size_t n = 64u << 20;
  std::vector<char> a(n, 1), b(n, 2);
  std::memcpy(b.data(), a.data(), n);
  std::vector<double> t;
  for (int i = 0; i < 15; ++i) t.push_back(Seconds([&] { std::memcpy(b.data(), a.data(), n); }));
  if (b[n / 2] != 1) std::abort();
  return 2.0 * static_cast<double>(n) / Median(t);
}

struct Row {
  std::string name;
  int64_t elements = 0;
  int kernels = 0, runs = 0;
  double eager_s = 0, compiled_s = 0, compiled1_s = 0, max_diff = 0;
};

// The chain over one float input of `n` elements.
StatusOr<Row> Measure(const std::string& name, const CppProgram& chain, int64_t n, int runs) {
  Row r;
  r.name = name;
  r.elements = n;
  r.runs = runs;
  at::manual_seed(0);
  std::vector<at::Tensor> in = {at::randn({n})};
  AOT_ASSIGN_OR_RETURN(std::unique_ptr<Graph> g, TraceCpp(chain, in, LiveOpTable()));
  CodegenOptions copts;
  copts.name = "bw_" + name;
  AOT_ASSIGN_OR_RETURN(CompiledGraph compiled,
                       CompileGraph(
                           *g, LiveOpTable(), [&](Graph& gg) { return AnnotateFromRun(gg, in); }, copts));
  r.kernels = compiled.c.kernels;
  // Two copies of the library: the thread pool (and its setting) is per library.
  const std::string dir = "/tmp/atenaot_bench_bw_" + name;
  AOT_ASSIGN_OR_RETURN(std::string lib, WriteAndBuild(compiled.c, dir, copts.name, {}));
  AOT_ASSIGN_OR_RETURN(std::string lib1, WriteAndBuild(compiled.c, dir + "_1t", copts.name, {}));
  aot_model *m = nullptr, *m1 = nullptr;
  if (aot_model_open(lib.c_str(), &m) != AOT_OK) return Internal(aot_last_error());
  if (aot_model_open(lib1.c_str(), &m1) != AOT_OK) return Internal(aot_last_error());
  if (aot_model_set_option(m1, "threads", 1) != AOT_OK) return Internal(aot_last_error());
  at::Tensor out = at::empty({n}), out1 = at::empty({n});
  aot_tensor ti = Describe(in[0]), to = Describe(out), to1 = Describe(out1);
  int failures = 0;
  at::Tensor ref = chain(in)[0];  // also warms up (and starts the pool)
  failures += aot_model_run(m, &ti, 1, &to, 1, nullptr, 0) != AOT_OK;
  failures += aot_model_run(m1, &ti, 1, &to1, 1, nullptr, 0) != AOT_OK;
  r.max_diff = (out - ref).abs().max().item<double>();
  if (!at::equal(out, out1)) return Internal(name + ": 1 thread and all threads differ");
  const std::vector<std::vector<double>> t = TimeInBlocks(
      {[&] { (void)chain(in); }, [&] { failures += aot_model_run(m, &ti, 1, &to, 1, nullptr, 0) != AOT_OK; },
       [&] { failures += aot_model_run(m1, &ti, 1, &to1, 1, nullptr, 0) != AOT_OK; }},
      runs);
  const std::vector<double>&te = t[0], &tc = t[1], &tc1 = t[2];
  aot_model_free(m);
  aot_model_free(m1);
  if (failures) return Internal(name + ": a timed run failed: " + aot_last_error());
  r.eager_s = Median(te);
  r.compiled_s = Median(tc);
  r.compiled1_s = Median(tc1);
  return r;
}

// The default --cpu, chosen by measurement: the chain built for each x86-64
// level (and native), one thread, runs alternating; a level this CPU lacks
// is reported as refused at open.
struct Level {
  std::string cpu, note;
  double seconds = 0;
};
StatusOr<std::vector<Level>> MeasureLevels(const std::string& name, const CppProgram& chain, int64_t n, int runs) {
  at::manual_seed(0);
  std::vector<at::Tensor> in = {at::randn({n})};
  AOT_ASSIGN_OR_RETURN(std::unique_ptr<Graph> g, TraceCpp(chain, in, LiveOpTable()));
  CodegenOptions copts;
  copts.name = "lv_" + name;
  AOT_ASSIGN_OR_RETURN(CompiledGraph compiled,
                       CompileGraph(
                           *g, LiveOpTable(), [&](Graph& gg) { return AnnotateFromRun(gg, in); }, copts));
  std::vector<Level> levels;
  std::vector<aot_model*> models;
  for (const char* cpu : {"x86-64-v2", "x86-64-v3", "x86-64-v4", "native"}) {
    BuildOptions b;
    b.cpu = cpu;
    AOT_ASSIGN_OR_RETURN(std::string lib,
                         WriteAndBuild(compiled.c, "/tmp/atenaot_bench_lv_" + name + "_" + cpu, copts.name, b));
    aot_model* m = nullptr;
    const aot_status s = aot_model_open(lib.c_str(), &m);
    levels.push_back({cpu, s == AOT_OK ? "" : std::string(aot_status_name(s)), 0});
    if (s == AOT_OK && aot_model_set_option(m, "threads", 1) != AOT_OK) return Internal(aot_last_error());
    models.push_back(s == AOT_OK ? m : nullptr);
  }
  at::Tensor out = at::empty({n});
  aot_tensor ti = Describe(in[0]), to = Describe(out);
  std::vector<std::vector<double>> t(models.size());
  for (int i = 0; i <= runs; ++i)
    for (size_t k = 0; k < models.size(); ++k) {
      if (!models[k]) continue;
      const double s = Seconds([&] { (void)aot_model_run(models[k], &ti, 1, &to, 1, nullptr, 0); });
      if (i > 0) t[k].push_back(s);
    }
  for (size_t k = 0; k < models.size(); ++k) {
    if (!models[k]) continue;
    levels[k].seconds = Median(t[k]);
    aot_model_free(models[k]);
  }
  return levels;
}

// Transcendentals: GELU (both forms), SiLU, tanh, exp, log, pow, rsqrt.
std::vector<at::Tensor> Activations(const std::vector<at::Tensor>& in) {
  const at::Tensor& x = in[0];
  at::Tensor a = at::gelu(x) + at::gelu(x, "tanh") * at::silu(x);
  at::Tensor b = at::tanh(a) - at::exp(-x * x);
  at::Tensor c = at::log(b * b + 1.0) + at::pow(at::abs(x) + 0.5, 1.7);
  return {c * at::rsqrt(x * x + 1.0)};
}

// A short memory-bound chain: two ops.
std::vector<at::Tensor> AddMul(const std::vector<at::Tensor>& in) { return {(in[0] + 1.0) * 0.5}; }

int Main(int argc, char** argv) {
  std::string out_path;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--out" && i + 1 < argc)
      out_path = argv[++i];
    else {
      std::cerr << "usage: elementwise_bandwidth [--out FILE.md]\n";
      return 2;
    }
  }
  // Eager with every core, as a user's PyTorch runs; the library's default is one thread per CPU too.
  const int cpus = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  at::set_num_threads(cpus);
  const double copy = MemcpyBytesPerSecond();
  struct Case {
    const char* name;
    CppProgram fn;
    int64_t n;
    int runs;
  };
  const std::vector<Case> cases = {
      {"chain20_1M", Chain20, 1 << 20, 40},         {"chain20_16M", Chain20, 1 << 24, 10},
      {"add_mul_16M", AddMul, 1 << 24, 15},         {"activations_1M", Activations, 1 << 20, 20},
      {"activations_16M", Activations, 1 << 24, 5},
  };
  std::vector<Row> rows;
  for (const Case& c : cases) {
    StatusOr<Row> r = Measure(c.name, c.fn, c.n, c.runs);
    if (!r.ok()) {
      std::cerr << r.status().ToString() << "\n";
      return 1;
    }
    rows.push_back(*r);
  }
  std::ostringstream md;
  const std::string cpu = DefaultCpu();
  char copy_gbs[32];
  std::snprintf(copy_gbs, sizeof(copy_gbs), "%.1f", copy / 1e9);
  md << "Command: `bazel run -c opt //bench:elementwise_bandwidth`. Machine: " << cpus << " CPUs; LibTorch "
     << at::get_num_threads() << " threads; the library's default threads: one per CPU; --cpu "
     << (cpu.empty() ? "baseline" : cpu) << " (the default here); memcpy of 64 MB: " << copy_gbs
     << " GB/s (read + written).\n\n";
  md << "| chain | elements | kernels | runs | eager ms | compiled ms (all threads) | compiled ms (1 thread) | "
        "speed-up vs "
        "eager | threads speed-up | GB/s (in + out) | of memcpy | max abs diff |\n"
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n";
  for (const Row& r : rows) {
    const double bytes = 2.0 * 4.0 * static_cast<double>(r.elements);
    char line[512];
    std::snprintf(line, sizeof(line),
                  "| %s | %lld | %d | %d | %.3f | %.3f | %.3f | %.2fx | %.2fx | %.1f | %.2f | %.2g |\n", r.name.c_str(),
                  static_cast<long long>(r.elements), r.kernels, r.runs, r.eager_s * 1e3, r.compiled_s * 1e3,
                  r.compiled1_s * 1e3, r.eager_s / r.compiled_s, r.compiled1_s / r.compiled_s,
                  bytes / r.compiled_s / 1e9, bytes / r.compiled_s / copy, r.max_diff);
    md << line;
  }
  StatusOr<std::vector<Level>> levels = MeasureLevels("chain20_1M", Chain20, 1 << 20, 30);
  if (!levels.ok()) {
    std::cerr << levels.status().ToString() << "\n";
    return 1;
  }
  md << "\nThe default --cpu by measurement: chain20_1M built for each level, one thread, 30 alternating runs "
        "(medians).\n\n| chain | --cpu | compiled ms (1 thread) | vs x86-64-v2 |\n|---|---|---:|---:|\n";
  for (const Level& l : *levels) {
    char line[256];
    if (!l.note.empty())
      std::snprintf(line, sizeof(line), "| chain20_1M | %s | refused at open: %s | |\n", l.cpu.c_str(), l.note.c_str());
    else
      std::snprintf(line, sizeof(line), "| chain20_1M | %s%s | %.3f | %.2fx |\n", l.cpu.c_str(),
                    l.cpu == cpu ? " (default)" : "", l.seconds * 1e3, (*levels)[0].seconds / l.seconds);
    md << line;
  }
  std::cout << md.str();
  if (!out_path.empty()) std::ofstream(out_path) << md.str();
  return 0;
}

}  // namespace
}  // namespace atenaot

int main(int argc, char** argv) { return atenaot::Main(argc, argv); }
