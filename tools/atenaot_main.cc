// atenaot: the command-line driver. Commands:
//   dump MODEL [--inputs F...] [--stage S] [-o FILE] [--time-passes]
//   run  MODEL --inputs F... --out-dir DIR [--stage S] [--time-passes] [--print]
//   plan MODEL --inputs F... [--algo NAME|best] [--json FILE] [--svg FILE]
//   compile MODEL --inputs F... -o DIR [--name NAME] [--weights embed|file|c] [--embedded]
//           [--target cpu|cuda] [--cuda-arch sm_XX] [--emit-only]
//   exec DIR --inputs F... --out-dir D [--name NAME]
//   show F.npy...
//   compare EXPECTED ACTUAL [--rtol R] [--atol A]
// Every failure prints one line "atenaot: error: ..." to stderr and exits 2
// (compare exits 1 when the arrays differ).
// This translation unit stays free of LibTorch headers; the importers and the
// interpreter sit behind LibTorch-free interfaces.
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <unordered_set>
#include <vector>

#include "atenaot.h"
#include "capture/load_model.h"
#include "codegen/build_cuda_library.h"
#include "codegen/build_library.h"
#include "codegen/c_codegen.h"
#include "codegen/c_text.h"
#include "codegen/c_types.h"
#include "driver/compile_graph.h"
#include "interp/run_arrays.h"
#include "io/compare.h"
#include "io/files.h"
#include "io/npy.h"
#include "io/weights_file.h"
#include "ir/clone.h"
#include "ir/printer.h"
#include "passes/decompose.h"
#include "passes/pipeline.h"
#include "plan/memory_plan.h"
#include "schema/dispatcher_schemas.h"
#include "tools/opt_command.h"
#include "tools/progress.h"

namespace atenaot {
namespace {

constexpr char kVersion[] = "0.1.0";

constexpr char kMainHelp[] = R"(atenaot: ahead-of-time compiler for PyTorch ATen graphs

usage: atenaot <command> [options]

commands:
  dump   print a model's IR at a pipeline stage
  opt    run a list of registered passes on a model and print its IR
  run    run a model with the reference interpreter and write .npy results
  plan   plan the model's memory into one arena and report it against the
         lower bound, no reuse and LibTorch eager's peak
  compile  compile the model into a standalone C library with the C ABI
  exec   run a compiled library through the C ABI and write .npy results
  show   print .npy files (dtype, shape, first values)
  compare  compare .npy files pairwise: exact for integers, allclose for floats
  help   show help for a command (atenaot help run), same as <command> --help

MODEL is a TorchScript archive (.pt from torch.jit.trace(...).save), TorchScript
IR text (what str(traced.graph) prints) or atenaot IR text (docs/ir_format.md);
the format is detected from the file's content.

Every command reads regular files and pipes only (no devices), at most
--max-file-size BYTES each (default 17179869184, 16 GiB).
)";

constexpr char kDumpHelp[] = R"(usage: atenaot dump MODEL [--inputs F.npy...] [--stage STAGE] [-o FILE] [--time-passes]

Prints MODEL's atenaot IR at STAGE (default: import) to stdout.

  --inputs F...   sample inputs (.npy), one per graph input, giving shapes and
                  dtypes; required for TorchScript archives (unless forward
                  takes no tensors). The word none gives None to an
                  Optional[Tensor] argument (the same in every command)
  --stage STAGE   import | functional | functional-noviews | reinplaced
  -o FILE         write the IR to FILE instead of stdout, and the weights (if
                  any) to FILE.weights, so that FILE can be loaded again
  --time-passes   print each pass's wall time to stderr
)";

constexpr char kRunHelp[] =
    R"(usage: atenaot run MODEL --inputs F.npy... --out-dir DIR [--stage STAGE] [--time-passes] [--print]

Runs MODEL at STAGE (default: import) with the reference interpreter (LibTorch
eager semantics) and writes DIR/output_K.npy for each flattened output and
DIR/input_K.npy for each input after the run, so input mutations are visible.

  --inputs F...   one .npy file per graph input
  --out-dir DIR   created if missing
  --stage STAGE   import | functional | functional-noviews | reinplaced
  --time-passes   print each pass's wall time to stderr
  --print         also print every output (dtype, shape, first values)
  --plan ALGO     plan-checked run: reinplace, order the ops for memory
                  (unless --schedule none), plan memory with ALGO (or best)
                  and run with every intermediate at its arena offset
)";

constexpr char kPlanHelp[] = R"(usage: atenaot plan MODEL --inputs F.npy... [--algo NAME|best] [--align BYTES]
                    [--schedule memory|none] [--json FILE] [--svg FILE] [--time-passes] [--quiet]

Reinplaces MODEL, runs it once on the inputs to learn exact layouts and which
results share memory, and places every intermediate buffer in one arena, as
`atenaot compile` does (fused elementwise values need no buffer; kernels may
write over an input that dies there).
Prints one row per buffer (home, size, live op range, arena offset) and the
totals: the arena, the liveness lower bound (LOAD: the most bytes live at
once; arena == LOAD means optimal), naive (no reuse), LibTorch eager's peak
on the same inputs, LOAD before reinplace (what reinplacing saved) and LOAD
before scheduling (what reordering the ops saved).
Every plan is checked for overlaps before it is reported.

  --algo NAME     greedy_by_size | greedy_by_conflicts | hill_climb | best
                  (default best: all of them, smallest arena wins)
  --align BYTES   buffer alignment, a power of two up to 4096 (default 64)
  --schedule S    memory (default): reorder the ops, within their
                  dependences, to lower the most bytes live at once (exact
                  search on small graphs, a beam on large ones, within 1 s);
                  none: keep the traced order
  --json FILE     write arena_bytes, lower_bound_bytes, naive_bytes,
                  eager_peak_bytes, lower_bound_before_reinplace_bytes,
                  lower_bound_unscheduled_bytes and the buffer list
  --svg FILE      draw the plan (x: op index, y: arena offset; hover a
                  buffer for its name, size and range; red: live bytes;
                  blue dashed: live bytes in the traced op order)
  --time-passes   print to stderr the time of each pass, then of decompose,
                  annotate (the sample run), fusion, schedule (the op order)
                  and plan (the placement alone: buffers, LOAD, placement,
                  overlap check)
  --quiet         no stage display (shown on stderr only when it is a
                  terminal: stage and elapsed time, one line, cleared)
)";

constexpr char kCompileHelp[] =
    R"(usage: atenaot compile MODEL --inputs F.npy... -o DIR [--name NAME] [--weights embed|file|c]
                       [--algo NAME] [--schedule memory|none] [--cpu NAME] [--embedded]
                       [--target cpu|cuda] [--cuda-arch sm_XX] [--emit-only] [--quiet]

Compiles MODEL for the shapes and dtypes of the sample inputs into DIR:
  NAME.c, NAME.h        readable C99: one function per fused kernel
  libNAME.so            shared library (loaded by aot_model_open)
  libNAME.a             static library (link NAME_run into firmware)
  NAME_weights.S        the weights (--weights embed, the default): one
  NAME_weights.bin      read-only object, `.incbin` of the raw bytes, linked
                        into both libraries (fast to build at any size)
  NAME.weights          the weights, with --weights file: read once at open
                        (or, with --weights c, const arrays in NAME.c: one
                        self-contained file, slow to compile once large)
  atenaot.h             the C ABI header (atenaot_model.h: its loader contract)
  libatenaot_runtime.so the C ABI loader (aot_model_open, aot_model_run, ...)
The library needs no LibTorch, no C++ runtime and no malloc while running:
intermediates live in one arena of the planned size.

  --name NAME      C identifier prefix (default: model)
  --algo NAME      placement algorithm (default best)
  --schedule S     memory (default) or none: as for `atenaot plan`
  --cpu NAME       the instruction set to build for ($CC or cc compiles):
                   native, x86-64-v2, x86-64-v3, x86-64-v4, armv8-a (with an
                   AArch64 $CC) or cortex-m4 (= --embedded). Default: the
                   highest x86-64 level this machine has (this machine's
                   speed; libraries check the CPU at open and fail with
                   AOT_ERR_UNSUPPORTED_CPU, never SIGILL, on older ones)
  --march-native   the same as --cpu native
  --embedded       write only the sources (NAME.c, NAME.h, atenaot.h,
                   atenaot_model.h and the weights files) and build nothing:
                   for cross-compiling into firmware, which calls NAME_run
                   with a static arena of NAME_arena_bytes() bytes
                   (examples/embedded/README.md). float32 reductions, norms,
                   softmax and pools accumulate in float (compensated), so
                   a single-precision FPU needs no soft-double routines
  --target cpu|cuda  cuda: the same plan as CUDA kernels (NAME.cu, NAME.h,
                   atenaot.h, atenaot_model.h, NAME.weights with --weights
                   file) built by nvcc ($NVCC or /usr/local/cuda/bin/nvcc)
                   into libNAME.so (cuBLAS for matmuls) and
                   libatenaot_runtime.so; one device arena allocated and
                   weights uploaded at open; `exec` stages host tensors
  --cuda-arch sm_XX  GPU architecture for --target cuda (default sm_90):
                   its SASS plus compute_XX PTX for newer GPUs
  --emit-only      write the sources, build nothing (host C: the files of
                   --embedded with host double accumulation, for build
                   systems such as Bazel's atenaot_library; --target cuda:
                   without nvcc the sources are written and compile says
                   that it did not build)
  --quiet          no stage display (shown on stderr only when it is a
                   terminal: import, passes, emit, C build, elapsed time)
)";

constexpr char kExecHelp[] = R"(usage: atenaot exec DIR --inputs F.npy... --out-dir OUT [--name NAME]

Runs a library made by `atenaot compile` through the C ABI and writes
OUT/output_K.npy and OUT/input_K.npy (inputs after the run), like run.
)";

constexpr char kShowHelp[] = R"(usage: atenaot show F.npy...

Prints each .npy file's dtype, shape and first 16 values.
)";

constexpr char kCompareHelp[] = R"(usage: atenaot compare EXPECTED ACTUAL [--rtol R] [--atol A]

EXPECTED and ACTUAL are .npy files or directories (then every *.npy in
EXPECTED is compared with the file of the same name in ACTUAL). Integer and
bool arrays must be equal; floating-point arrays must satisfy, per element,
  |actual - expected| <= atol * scale + rtol * |expected|
where scale is the array's largest finite |expected| (1 when that is 0), so
the tolerance follows the output's magnitude: logits of 100 may differ by
1e-3, logits of 1e-9 by 1e-14. Defaults are torch.testing's per dtype:
float32 rtol=1.3e-6 atol=1e-5, float64 rtol=1e-7 atol=1e-7, float16
rtol=1e-3 atol=1e-5. NaN equals NaN; infinities must match. A difference
reports the largest |actual - expected| over all elements and where it is.
Exit status: 0 equal, 1 different, 2 error.
)";

struct Options {
  std::string command;
  std::string model;
  std::vector<std::string> inputs;
  std::string stage = "import";
  std::string out_dir;
  std::string output_file;
  bool time_passes = false;
  bool quiet = false;  // compile/plan: no stage display on a terminal
  bool print = false;
  bool help = false;
  std::vector<std::string> positional;  // show / compare operands
  double rtol = -1, atol = -1;          // compare: negative means the dtype's default
  std::string algo;                     // plan --algo, run --plan
  int64_t align = 64;
  bool schedule = true;  // plan/compile --schedule memory|none
  std::string json_file, svg_file;
  std::string name = "model";
  std::string weights_mode = "embed";
  bool march_native = false;
  std::string cpu;                  // compile --cpu ("" = DefaultCpu())
  bool embedded = false;            // compile: sources only, no host build
  std::string target = "cpu";       // compile: cpu (C) or cuda
  std::string cuda_arch = "sm_90";  // compile --target cuda
  bool emit_only = false;           // compile --target cuda: sources only
};

Status ParseArgs(int argc, char** argv, Options* o) {
  if (argc < 2) return InvalidArgument("no command given (try 'atenaot --help')");
  o->command = argv[1];
  for (int i = 2; i < argc; ++i) {
    std::string a = argv[i];
    auto need_value = [&](const char* flag) -> StatusOr<std::string> {
      if (i + 1 >= argc) return InvalidArgument(std::string(flag) + " needs a value");
      return std::string(argv[++i]);
    };
    if (a == "--help" || a == "-h")
      o->help = true;
    else if (a == "--inputs") {
      while (i + 1 < argc && std::strncmp(argv[i + 1], "-", 1) != 0) o->inputs.push_back(argv[++i]);
      if (o->inputs.empty())
        return InvalidArgument(
            "--inputs needs at least one .npy file ('none' stands for an Optional[Tensor] argument; "
            "leave --inputs out for a program without tensor inputs)");
    } else if (a == "--stage") {
      AOT_ASSIGN_OR_RETURN(o->stage, need_value("--stage"));
    } else if (a == "--out-dir") {
      AOT_ASSIGN_OR_RETURN(o->out_dir, need_value("--out-dir"));
    } else if (a == "-o") {
      AOT_ASSIGN_OR_RETURN(o->output_file, need_value("-o"));
    } else if (a == "--time-passes")
      o->time_passes = true;
    else if (a == "--quiet")
      o->quiet = true;
    else if (a == "--algo" || a == "--plan") {
      AOT_ASSIGN_OR_RETURN(o->algo, need_value(a.c_str()));
    } else if (a == "--json") {
      AOT_ASSIGN_OR_RETURN(o->json_file, need_value("--json"));
    } else if (a == "--name") {
      AOT_ASSIGN_OR_RETURN(o->name, need_value("--name"));
    } else if (a == "--weights") {
      AOT_ASSIGN_OR_RETURN(o->weights_mode, need_value("--weights"));
      if (o->weights_mode != "embed" && o->weights_mode != "file" && o->weights_mode != "c")
        return InvalidArgument("--weights must be embed, file or c, got '" + o->weights_mode + "'");
    } else if (a == "--march-native")
      o->march_native = true;
    else if (a == "--cpu") {
      AOT_ASSIGN_OR_RETURN(o->cpu, need_value("--cpu"));
      if (o->cpu == "cortex-m4")
        o->embedded = true;  // firmware: sources for arm-none-eabi-gcc
      else
        AOT_RETURN_IF_ERROR(CpuFlags(o->cpu).status());
    } else if (a == "--embedded")
      o->embedded = true;
    else if (a == "--target") {
      AOT_ASSIGN_OR_RETURN(o->target, need_value("--target"));
      if (o->target != "cpu" && o->target != "cuda")
        return InvalidArgument("--target must be cpu or cuda, got '" + o->target + "'");
    } else if (a == "--cuda-arch") {
      AOT_ASSIGN_OR_RETURN(o->cuda_arch, need_value("--cuda-arch"));
    } else if (a == "--emit-only")
      o->emit_only = true;
    else if (a == "--svg") {
      AOT_ASSIGN_OR_RETURN(o->svg_file, need_value("--svg"));
    } else if (a == "--schedule") {
      AOT_ASSIGN_OR_RETURN(std::string v, need_value("--schedule"));
      if (v != "memory" && v != "none") return InvalidArgument("--schedule takes memory or none, got '" + v + "'");
      o->schedule = v == "memory";
    } else if (a == "--align") {
      AOT_ASSIGN_OR_RETURN(std::string v, need_value("--align"));
      char* end = nullptr;
      long long n = std::strtoll(v.c_str(), &end, 10);
      if (v.empty() || *end || n <= 0 || n > kMaxAlignment || (n & (n - 1)) != 0)
        return InvalidArgument("--align needs a power of two from 1 to " + std::to_string(kMaxAlignment) + ", got '" +
                               v + "'");
      o->align = n;
    } else if (a == "--print")
      o->print = true;
    else if (a == "--max-file-size") {
      AOT_ASSIGN_OR_RETURN(std::string v, need_value("--max-file-size"));
      char* end = nullptr;
      errno = 0;
      long long n = std::strtoll(v.c_str(), &end, 10);
      if (v.empty() || *end || n <= 0 || errno == ERANGE)
        return InvalidArgument("--max-file-size needs a positive number of bytes, got '" + v + "'");
      SetMaxFileBytes(n);
    } else if (a == "--rtol" || a == "--atol") {
      AOT_ASSIGN_OR_RETURN(std::string v, need_value(a.c_str()));
      char* end = nullptr;
      double d = std::strtod(v.c_str(), &end);
      if (v.empty() || *end || !(d >= 0) || std::isinf(d))
        return InvalidArgument(a + " needs a finite non-negative number, got '" + v + "'");
      (a == "--rtol" ? o->rtol : o->atol) = d;
    } else if (!a.empty() && a[0] == '-')
      return InvalidArgument("unknown option '" + a + "' for '" + o->command + "'");
    else if (o->command == "show" || o->command == "compare")
      o->positional.push_back(a);
    else if (o->model.empty())
      o->model = a;
    else
      return InvalidArgument("unexpected argument '" + a + "'");
  }
  return Status::Ok();
}

// The word `none` stands for None, given to an Optional[Tensor] argument.
StatusOr<std::vector<NpyArray>> ReadInputs(const std::vector<std::string>& paths) {
  std::vector<NpyArray> out;
  for (const std::string& p : paths) {
    if (p == "none") {
      out.emplace_back().none = true;
      continue;
    }
    AOT_ASSIGN_OR_RETURN(NpyArray a, ReadNpy(p));
    out.push_back(std::move(a));
  }
  return out;
}

// The inputs the loaded graph takes: those given as `none` were folded into it.
void DropNone(std::vector<NpyArray>& inputs) {
  inputs.erase(std::remove_if(inputs.begin(), inputs.end(), [](const NpyArray& a) { return a.none; }), inputs.end());
}

// Loads MODEL and runs the pipeline up to `stage_name`; drops the `none` inputs.
StatusOr<std::unique_ptr<Graph>> Compile(const Options& o, std::vector<NpyArray>& inputs, const std::string& stage_name,
                                         Progress* progress = nullptr) {
  if (o.model.empty()) return InvalidArgument("no MODEL given (see 'atenaot " + o.command + " --help')");
  AOT_ASSIGN_OR_RETURN(Stage stage, ParseStage(stage_name));
  if (progress) progress->Stage("import " + o.model);
  const OpTable& ops = LiveOpTable();
  auto t0 = std::chrono::steady_clock::now();
  AOT_ASSIGN_OR_RETURN(std::unique_ptr<Graph> g, LoadModel(o.model, inputs, ops));
  DropNone(inputs);
  // A program without tensor inputs needs no --inputs; any other needs them to compile or plan.
  if (o.inputs.empty() && !g->inputs().empty() && (o.command == "compile" || o.command == "plan"))
    return InvalidArgument(o.command == "plan" ? "plan needs --inputs (sizes and layouts come from a sample run)"
                                               : "compile needs --inputs (the shapes and dtypes to compile for)");
  PipelineOptions popts;
  popts.context = o.model;
  if (o.time_passes) {
    double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    std::cerr << "time: import " << ms << " ms\n";
    popts.timing = &std::cerr;
  }
  AOT_RETURN_IF_ERROR(RunPipeline(*g, stage, ops, popts));
  return g;
}

void PrintArray(const std::string& label, const NpyArray& a) {
  std::cout << label << ": " << DTypeName(a.dtype) << "[";
  for (size_t i = 0; i < a.shape.size(); ++i) std::cout << (i ? "," : "") << a.shape[i];
  std::cout << "] =";
  int64_t n = a.numel(), shown = std::min<int64_t>(n, 16);
  for (int64_t k = 0; k < shown; ++k) {
    double v = 0;
    if (ElementAsDouble(a, k, &v))
      std::cout << " " << v;
    else
      std::cout << " ?";
  }
  if (n > shown) std::cout << " ... (" << n << " values)";
  std::cout << "\n";
}

Status Dump(const Options& o) {
  AOT_ASSIGN_OR_RETURN(std::vector<NpyArray> inputs, ReadInputs(o.inputs));
  AOT_ASSIGN_OR_RETURN(std::unique_ptr<Graph> g, Compile(o, inputs, o.stage));
  std::string text = PrintGraph(*g);
  if (o.output_file.empty()) {
    std::cout << text;
    return Status::Ok();
  }
  // Weights first: a failure leaves no IR file that points at missing weights.
  if (!g->weight_values().empty()) AOT_RETURN_IF_ERROR(WriteWeightsFile(o.output_file + ".weights", g->weights()));
  return WriteFile(o.output_file, text);
}

Status Run(const Options& o) {
  if (o.out_dir.empty()) return InvalidArgument("run needs --out-dir DIR");
  AOT_ASSIGN_OR_RETURN(std::vector<NpyArray> inputs, ReadInputs(o.inputs));
  if (!o.algo.empty() && o.stage != "import" && o.stage != "reinplaced")
    return InvalidArgument("--plan runs the reinplaced graph; it cannot be combined with --stage " + o.stage);
  AOT_ASSIGN_OR_RETURN(std::unique_ptr<Graph> g, Compile(o, inputs, o.algo.empty() ? o.stage : "reinplaced"));
  if (inputs.size() != g->inputs().size())
    return InvalidArgument("run needs --inputs: one .npy file for each of the graph's " +
                           std::to_string(g->inputs().size()) + " input(s)");
  std::optional<MemoryPlan> plan;
  if (!o.algo.empty()) {
    AOT_RETURN_IF_ERROR(AnnotateFromArrays(*g, inputs));
    if (o.schedule) ScheduleForMemory(*g, o.align, nullptr, nullptr);
    AOT_ASSIGN_OR_RETURN(plan, PlanMemory(*g, o.algo, o.align));
    std::cerr << "plan: arena " << plan->arena_bytes() << " B (" << plan->placement.algorithm << "), LOAD "
              << plan->lower_bound_bytes << " B\n";
  }
  auto t0 = std::chrono::steady_clock::now();
  AOT_ASSIGN_OR_RETURN(ArrayRunResult r, RunOnArrays(*g, inputs, plan ? &*plan : nullptr));
  if (o.time_passes)
    std::cerr << "time: run "
              << std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count() << " ms\n";
  AOT_RETURN_IF_ERROR(MakeDirs(o.out_dir));
  for (size_t k = 0; k < r.outputs.size(); ++k) {
    AOT_RETURN_IF_ERROR(WriteNpy(o.out_dir + "/output_" + std::to_string(k) + ".npy", r.outputs[k]));
    if (o.print) PrintArray("output_" + std::to_string(k), r.outputs[k]);
  }
  for (size_t k = 0; k < r.inputs_after.size(); ++k)
    AOT_RETURN_IF_ERROR(WriteNpy(o.out_dir + "/input_" + std::to_string(k) + ".npy", r.inputs_after[k]));
  std::cout << "wrote " << r.outputs.size() << " outputs and " << r.inputs_after.size() << " inputs to " << o.out_dir
            << "\n";
  return Status::Ok();
}

Status Plan(const Options& o) {
  AOT_ASSIGN_OR_RETURN(std::vector<NpyArray> inputs, ReadInputs(o.inputs));
  const std::string algo = o.algo.empty() ? "best" : o.algo;
  Progress progress(!o.quiet && !o.time_passes);
  // The program as captured (eager's view of it), then the two later stages.
  AOT_ASSIGN_OR_RETURN(std::unique_ptr<Graph> imported, Compile(o, inputs, "import", &progress));
  progress.Stage("passes");
  const OpTable& ops = LiveOpTable();
  AOT_ASSIGN_OR_RETURN(std::unique_ptr<Graph> functional, CloneGraph(*imported, ops));
  AOT_RETURN_IF_ERROR(RunPipeline(*functional, Stage::kFunctional, ops, {}));
  AOT_RETURN_IF_ERROR(AnnotateFromArrays(*functional, inputs));
  AOT_ASSIGN_OR_RETURN(std::unique_ptr<Graph> g, CloneGraph(*imported, ops));
  PipelineOptions popts;
  popts.timing = o.time_passes ? &std::cerr : progress.timing();
  // The plan the compiled library uses (fusion and kernel reuse included).
  // With --time-passes it prints a line per pass, then "time: decompose",
  // "time: annotate" (the sample run), "time: fusion" and "time: plan" (the
  // placement alone).
  // Its kernel scratch as `compile` with the same flags plans it (none for CUDA).
  CodegenOptions kernels;
  kernels.float_accumulation = o.embedded;
  kernels.threads = !o.embedded;
  kernels.kernel_library = o.target != "cuda";
  AOT_ASSIGN_OR_RETURN(MemoryPlan plan, PlanForCodegen(
                                            *g, ops, [&](Graph& gg) { return AnnotateFromArrays(gg, inputs); }, algo,
                                            popts, o.align, o.schedule, kernels));
  PlanTotals totals;
  progress.Stage("eager peak (LibTorch reference run)");
  AOT_ASSIGN_OR_RETURN(totals.eager_peak_bytes, MeasureEagerPeak(*imported, inputs));
  progress.Clear();
  totals.lower_bound_before_reinplace_bytes = LiveBytesLowerBound(ArenaRequests(AnalyzeBuffers(*functional, o.align)));
  std::cout << PlanTable(plan, totals);
  if (!o.json_file.empty()) AOT_RETURN_IF_ERROR(WriteFile(o.json_file, PlanJson(plan, totals)));
  if (!o.svg_file.empty()) AOT_RETURN_IF_ERROR(WriteFile(o.svg_file, PlanSvg(plan)));
  return Status::Ok();
}

// compile --target cuda: the same plan, as CUDA (codegen/cuda_codegen.h).
Status CompileCuda(const Options& o, const std::vector<NpyArray>& inputs, Graph& g) {
  if (o.embedded || o.march_native || !o.cpu.empty())
    return InvalidArgument("--embedded, --cpu and --march-native are for the C target, not --target cuda");
  if (o.weights_mode == "c")
    return InvalidArgument("--weights c is for the C target; --target cuda takes embed or file");
  CudaBuildOptions bopts;
  bopts.arch = o.cuda_arch;
  AOT_RETURN_IF_ERROR(CudaArchFlags(o.cuda_arch).status());
  CudaCodegenOptions copts;
  copts.name = o.name;
  copts.embed_weights = o.weights_mode != "file";
  copts.source_note = o.model;
  PipelineOptions popts;
  if (o.time_passes) popts.timing = &std::cerr;
  AOT_ASSIGN_OR_RETURN(CompiledGraphCuda compiled,
                       CompileGraphCuda(
                           g, LiveOpTable(), [&](Graph& gg) { return AnnotateFromArrays(gg, inputs); }, copts,
                           o.algo.empty() ? "best" : o.algo, popts, o.schedule));
  const GeneratedCuda& gen = compiled.cuda;
  std::ostringstream what;
  what << gen.kernels << " CUDA kernels, " << gen.gemms << " cuBLAS GEMMs, device arena " << gen.arena_bytes
       << " bytes, LOAD " << compiled.plan.lower_bound_bytes << " bytes";
  const std::string cu = o.output_file + "/" + o.name + ".cu";
  if (o.emit_only || FindNvcc(bopts).empty()) AOT_RETURN_IF_ERROR(WriteCudaSources(gen, o.output_file, o.name));
  if (o.emit_only) {
    std::cout << "compiled " << o.model << " -> " << cu << " (emit-only: sources only, nothing built; " << what.str()
              << ")\n";
    return Status::Ok();
  }
  if (FindNvcc(bopts).empty()) {
    std::cout << "compiled " << o.model << " -> " << cu
              << " (NOT BUILT: nvcc not found at $NVCC or /usr/local/cuda/bin/nvcc; "
              << "sources only, no lib" << o.name << ".so; " << what.str() << ")\n";
    return Status::Ok();
  }
  AOT_ASSIGN_OR_RETURN(std::string lib, WriteAndBuildCuda(gen, o.output_file, o.name, bopts));
  std::cout << "compiled " << o.model << " -> " << lib << " (" << o.cuda_arch << "; " << what.str() << ")\n";
  return Status::Ok();
}

Status Compile(const Options& o) {
  if (o.output_file.empty()) return InvalidArgument("compile needs -o DIR");
  AOT_RETURN_IF_ERROR(CheckModelName(o.name).WithContext("--name"));
  if (o.embedded && o.march_native)
    return InvalidArgument("--march-native builds for this machine; it cannot be combined with --embedded");
  if (o.embedded && !o.cpu.empty() && o.cpu != "cortex-m4")
    return InvalidArgument("--embedded writes sources for the firmware's compiler; --cpu " + o.cpu +
                           " builds a library");
  if (o.march_native && !o.cpu.empty() && o.cpu != "native")
    return InvalidArgument("--march-native and --cpu " + o.cpu + " disagree");
  AOT_ASSIGN_OR_RETURN(std::vector<NpyArray> inputs, ReadInputs(o.inputs));
  Progress progress(!o.quiet && !o.time_passes && o.target != "cuda");
  AOT_ASSIGN_OR_RETURN(std::unique_ptr<Graph> g, Compile(o, inputs, "import", &progress));
  if (o.target == "cuda") return CompileCuda(o, inputs, *g);
  CodegenOptions copts;
  copts.name = o.name;
  copts.embed_weights = o.weights_mode != "file";
  copts.weights_as_c_arrays = o.weights_mode == "c";
  copts.float_accumulation = o.embedded;  // single-precision FPUs: no soft-double routines
  copts.threads = !o.embedded;            // firmware: no thread code
  copts.source_note = o.model;
  PipelineOptions popts;
  popts.timing = o.time_passes ? &std::cerr : progress.timing();
  progress.Stage("passes");
  AOT_ASSIGN_OR_RETURN(CompiledGraph compiled,
                       CompileGraph(
                           *g, LiveOpTable(), [&](Graph& gg) { return AnnotateFromArrays(gg, inputs); }, copts,
                           o.algo.empty() ? "best" : o.algo, popts, o.schedule));
  const GeneratedC& gen = compiled.c;
  const MemoryPlan& plan = compiled.plan;
  if (o.embedded || o.emit_only) {  // sources only: the firmware's toolchain (or Bazel) builds them
    const std::string base = o.output_file + "/" + o.name;
    progress.Stage("emit " + o.name + ".c");
    AOT_RETURN_IF_ERROR(WriteSources(gen, o.output_file, o.name));
    progress.Clear();
    std::cout << "compiled " << o.model << " -> " << base << ".c (" << (o.embedded ? "embedded" : "emit-only")
              << ": sources only; " << gen.kernels << " kernels, arena " << gen.arena_bytes << " bytes, LOAD "
              << plan.lower_bound_bytes << " bytes)\n";
    return Status::Ok();
  }
  BuildOptions bopts;
  bopts.march_native = o.march_native;
  bopts.cpu = o.cpu;
  progress.Stage("emit " + o.name + ".c, build lib" + o.name + ".so/.a and the runtime with cc");
  AOT_ASSIGN_OR_RETURN(std::string lib, WriteAndBuild(gen, o.output_file, o.name, bopts));
  progress.Clear();
  const std::string cpu = o.march_native ? "native" : o.cpu.empty() ? DefaultCpu() : o.cpu;
  std::cout << "compiled " << o.model << " -> " << lib << " (--cpu " << (cpu.empty() ? "baseline" : cpu) << "; "
            << gen.kernels << " kernels, arena " << gen.arena_bytes << " bytes, LOAD " << plan.lower_bound_bytes
            << " bytes)\n";
  return Status::Ok();
}

// The C ABI's status and message as a Status.
Status AbiCheck(aot_status s, const char* what) {
  if (s == AOT_OK) return Status::Ok();
  return InvalidArgument(std::string(what) + ": " + aot_status_name(s) + ": " + aot_last_error());
}

aot_tensor Describe(NpyArray& a, aot_dtype dt) {
  aot_tensor t{};
  t.data = a.data.data();
  t.dtype = dt;
  t.ndim = static_cast<int32_t>(a.shape.size());
  std::vector<int64_t> st = ContiguousStrides(a.shape);
  for (size_t d = 0; d < a.shape.size() && d < AOT_MAX_DIMS; ++d) {
    t.sizes[d] = a.shape[d];
    t.strides[d] = st[d];
  }
  return t;
}

Status Exec(const Options& o) {
  if (o.model.empty()) return InvalidArgument("exec needs DIR (made by atenaot compile)");
  if (o.out_dir.empty()) return InvalidArgument("exec needs --out-dir DIR");
  AOT_ASSIGN_OR_RETURN(std::vector<NpyArray> inputs, ReadInputs(o.inputs));
  DropNone(inputs);  // compiled in: the library has no input for them
  std::string lib = o.model + "/lib" + o.name + ".so";
  aot_model* m = nullptr;
  AOT_RETURN_IF_ERROR(AbiCheck(aot_model_open(lib.c_str(), &m), "opening the model"));
  std::unique_ptr<aot_model, void (*)(aot_model*)> guard(m, aot_model_free);
  size_t nin = 0, nout = 0;
  AOT_RETURN_IF_ERROR(AbiCheck(aot_model_num_inputs(m, &nin), "aot_model_num_inputs"));
  AOT_RETURN_IF_ERROR(AbiCheck(aot_model_num_outputs(m, &nout), "aot_model_num_outputs"));
  if (inputs.size() != nin)
    return InvalidArgument("the model takes " + std::to_string(nin) + " input(s), got " +
                           std::to_string(inputs.size()));
  std::vector<aot_tensor> in, out;
  for (NpyArray& a : inputs) {
    if (a.fortran_order) return Unsupported("exec takes C-order .npy inputs");
    AOT_ASSIGN_OR_RETURN(aot_dtype dt, AbiDTypeOf(a.dtype));
    in.push_back(Describe(a, dt));
  }
  std::vector<NpyArray> results(nout);
  for (size_t k = 0; k < nout; ++k) {
    aot_tensor_info info{};
    AOT_RETURN_IF_ERROR(AbiCheck(aot_model_output_info(m, k, &info), "aot_model_output_info"));
    AOT_ASSIGN_OR_RETURN(results[k].dtype, DTypeOfAbi(info.dtype));
    results[k].shape.assign(info.sizes, info.sizes + info.ndim);
    results[k].data.resize(static_cast<size_t>(results[k].numel() * DTypeSize(results[k].dtype)));
    out.push_back(Describe(results[k], info.dtype));
  }
  AOT_RETURN_IF_ERROR(
      AbiCheck(aot_model_run(m, in.data(), in.size(), out.data(), out.size(), nullptr, 0), "running the model"));
  AOT_RETURN_IF_ERROR(MakeDirs(o.out_dir));
  for (size_t k = 0; k < nout; ++k)
    AOT_RETURN_IF_ERROR(WriteNpy(o.out_dir + "/output_" + std::to_string(k) + ".npy", results[k]));
  for (size_t k = 0; k < inputs.size(); ++k)
    AOT_RETURN_IF_ERROR(WriteNpy(o.out_dir + "/input_" + std::to_string(k) + ".npy", inputs[k]));
  std::cout << "wrote " << nout << " outputs and " << inputs.size() << " inputs to " << o.out_dir << "\n";
  return Status::Ok();
}

Status Show(const Options& o) {
  if (o.positional.empty()) return InvalidArgument("show needs at least one .npy file");
  for (const std::string& p : o.positional) {
    AOT_ASSIGN_OR_RETURN(NpyArray a, ReadNpy(p));
    PrintArray(p, a);
  }
  return Status::Ok();
}

StatusOr<bool> CompareCommand(const Options& o) {
  if (o.positional.size() != 2) return InvalidArgument("compare needs EXPECTED and ACTUAL");
  std::vector<std::pair<std::string, std::string>> pairs;
  struct stat st {};
  if (stat(o.positional[0].c_str(), &st) == 0 && S_ISDIR(st.st_mode)) {
    std::vector<std::string> names;
    for (int k = 0;; ++k) {  // output_K / input_K, the layout atenaot run writes
      bool any = false;
      for (const char* stem : {"output_", "input_"}) {
        std::string n = stem + std::to_string(k) + ".npy";
        if (stat((o.positional[0] + "/" + n).c_str(), &st) == 0) {
          names.push_back(n);
          any = true;
        }
      }
      if (!any) break;
    }
    if (names.empty()) return InvalidArgument("no output_K.npy or input_K.npy files in '" + o.positional[0] + "'");
    for (const std::string& n : names) pairs.push_back({o.positional[0] + "/" + n, o.positional[1] + "/" + n});
  } else {
    pairs.push_back({o.positional[0], o.positional[1]});
  }
  bool all_equal = true;
  for (const auto& [ep, ap] : pairs) {
    AOT_ASSIGN_OR_RETURN(NpyArray e, ReadNpy(ep));
    AOT_ASSIGN_OR_RETURN(NpyArray a, ReadNpy(ap));
    std::string why = CompareArrays(e, a, o.rtol, o.atol);
    std::cout << (why.empty() ? "equal   " : "DIFFERS ") << ap << (why.empty() ? "" : ": " + why) << "\n";
    all_equal &= why.empty();
  }
  return all_equal;
}

int Fail(const Status& s) {
  std::string m = s.ToString();
  for (char& c : m)
    if (c == '\n') c = ' ';
  std::cerr << "atenaot: error: " << m << "\n";
  return 2;
}

int Main(int argc, char** argv) {
  Options o;
  if (argc >= 2 && (std::strcmp(argv[1], "--help") == 0 || std::strcmp(argv[1], "-h") == 0)) {
    std::cout << kMainHelp;
    return 0;
  }
  if (argc >= 2 && std::strcmp(argv[1], "--version") == 0) {
    std::cout << "atenaot " << kVersion << "\n";
    return 0;
  }
  if (argc >= 2 && std::strcmp(argv[1], "opt") == 0) {  // its own options (tools/opt_command.h)
    Status opt = OptCommand(std::vector<std::string>(argv + 2, argv + argc));
    return opt.ok() ? 0 : Fail(opt);
  }
  Status s = ParseArgs(argc, argv, &o);
  if (!s.ok()) return Fail(s);
  const std::map<std::string, std::pair<const char*, Status (*)(const Options&)>> commands = {
      {"dump", {kDumpHelp, &Dump}},          {"run", {kRunHelp, &Run}},    {"plan", {kPlanHelp, &Plan}},
      {"compile", {kCompileHelp, &Compile}}, {"exec", {kExecHelp, &Exec}}, {"show", {kShowHelp, &Show}},
      {"compare", {kCompareHelp, nullptr}}};
  if (o.command == "help") {
    std::string topic = o.positional.empty() ? o.model : o.positional[0];
    if (topic.empty()) {
      std::cout << kMainHelp;
      return 0;
    }
    if (topic == "opt") {
      std::cout << OptHelp();
      return 0;
    }
    auto it = commands.find(topic);
    if (it == commands.end())
      return Fail(InvalidArgument("no help for unknown command '" + topic +
                                  "' (commands: dump, opt, run, plan, compile, exec, show, compare)"));
    std::cout << it->second.first;
    return 0;
  }
  auto it = commands.find(o.command);
  if (it == commands.end())
    return Fail(InvalidArgument("unknown command '" + o.command +
                                "' (commands: dump, opt, run, plan, compile, exec, show, compare)"));
  if (o.help) {
    std::cout << it->second.first;
    return 0;
  }
  if (o.command == "compare") {
    StatusOr<bool> equal = CompareCommand(o);
    if (!equal.ok()) return Fail(equal.status());
    return *equal ? 0 : 1;
  }
  s = it->second.second(o);
  return s.ok() ? 0 : Fail(s);
}

}  // namespace
}  // namespace atenaot

int main(int argc, char** argv) { return atenaot::Main(argc, argv); }
