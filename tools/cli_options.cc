#include "tools/cli_options.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <initializer_list>
#include <string>
#include <vector>

#include "codegen/build_library.h"
#include "io/files.h"
#include "plan/memory_plan.h"

namespace atenaot {

const char kMainHelp[] = R"(atenaot: ahead-of-time compiler for PyTorch ATen graphs

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

const char kDumpHelp[] = R"(usage: atenaot dump MODEL [--inputs F.npy...] [--stage STAGE] [-o FILE] [--time-passes]

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

const char kRunHelp[] =
    R"(usage: atenaot run MODEL --inputs F.npy... --out-dir DIR [--stage STAGE] [--time-passes] [--print]
                   [--plan ALGO] [--schedule memory|none]

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
  --schedule S    with --plan: memory (default) or none, as for `atenaot plan`
)";

const char kPlanHelp[] = R"(usage: atenaot plan MODEL --inputs F.npy... [--algo NAME|best] [--align BYTES]
                    [--schedule memory|none] [--json FILE] [--svg FILE] [--time-passes] [--quiet]
                    [--embedded] [--target cpu|cuda] [--winograd 2|4|off]

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
                  search on small graphs, a beam on large ones, within 0.5 s);
                  none: keep the traced order
  --json FILE     write arena_bytes, lower_bound_bytes, naive_bytes,
                  eager_peak_bytes, lower_bound_before_reinplace_bytes,
                  lower_bound_unscheduled_bytes and the buffer list
  --svg FILE      draw the plan (x: op index, y: arena offset; hover a
                  buffer for its name, size and range; red: live bytes;
                  blue dashed: live bytes in the traced op order)
  --time-passes   print to stderr the time of each pass, then of decompose,
                  annotate (the sample run), fold batch_norm, fold weight
                  views, cat in place (with a line of what it moved),
                  winograd (a line: convolutions kept on im2col GEMM
                  because Winograd's scratch raised the peak), fusion,
                  schedule (the op order) and plan (the placement
                  alone: buffers, LOAD, placement, overlap check)
  --quiet         no stage display (shown on stderr only when it is a
                  terminal: stage and elapsed time, one line, cleared)
  --embedded      plan the kernel scratch of `compile --embedded` (float
                  accumulation, no threads)
  --winograd M    plan the kernel scratch of `compile --winograd M`
  --target T      cpu (default) or cuda: plan for `compile --target T` (the
                  CUDA kernels need no kernel scratch)
)";

const char kCompileHelp[] =
    R"(usage: atenaot compile MODEL --inputs F.npy... -o DIR [--name NAME] [--weights embed|file|c]
                       [--algo NAME] [--schedule memory|none] [--cpu NAME] [--embedded]
                       [--target cpu|cuda] [--cuda-arch sm_XX] [--emit-only] [--quiet]
                       [--march-native] [--winograd 2|4|off] [--time-passes]

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
  --winograd M     2 (default), 4 or off: the 3x3 stride-1 convolutions
                   with 64+ input channels on maps 28+ wide as Winograd
                   F(2x2, 3x3) (error from float64 as eager's; 1.0-1.2x
                   im2col GEMM's speed), F(4x4, 3x3) (~1.5x; a layer's
                   error up to ~35x eager's, ResNet-18's logits 2.8x) or
                   im2col GEMM only (bench/accuracy.py)
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
                   systems such as Bazel's atenaot_library, and the C flags
                   compile would build them with here; --target cuda:
                   without nvcc the sources are written and compile says
                   that it did not build)
  --quiet          no stage display (shown on stderr only when it is a
                   terminal: import, passes, emit, C build, elapsed time)
  --time-passes    print the import time and each pass's wall time to stderr
                   (no stage display)
)";

const char kExecHelp[] = R"(usage: atenaot exec DIR --inputs F.npy... --out-dir OUT [--name NAME]

Runs a library made by `atenaot compile` through the C ABI and writes
OUT/output_K.npy and OUT/input_K.npy (inputs after the run), like run.
)";

const char kShowHelp[] = R"(usage: atenaot show F.npy...

Prints each .npy file's dtype, shape and first 16 values.
)";

const char kCompareHelp[] = R"(usage: atenaot compare EXPECTED ACTUAL [--rtol R] [--atol A]

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

namespace {

// What a flag takes from the command line after its name.
enum class Takes {
  kNothing,  // a switch: --print
  kValue,    // the next argument, whatever it is: --stage STAGE
  kList,     // the arguments up to the next one starting with '-': --inputs F...
};

// One row of a command's flag table. `store` validates the flag's values
// (none, one or the list, as `takes` says) and stores them in T.
template <typename T>
struct Flag {
  const char* name;
  Takes takes;
  Status (*store)(T& o, const CommandArgs& values);
};

template <typename T>
using FlagTable = std::vector<Flag<T>>;

// The stores: plain ones, then validating ones shared by several commands.

Status Set(bool& flag) {
  flag = true;
  return Status::Ok();
}

Status Set(std::string& to, const std::string& value) {
  to = value;
  return Status::Ok();
}

Status Set(std::vector<std::string>& to, const std::string& value) {  // appends an operand
  to.push_back(value);
  return Status::Ok();
}

Status StoreInputs(std::vector<std::string>& inputs, const CommandArgs& values) {
  inputs.insert(inputs.end(), values.begin(), values.end());
  if (inputs.empty())
    return InvalidArgument(
        "--inputs needs at least one .npy file ('none' stands for an Optional[Tensor] argument; "
        "leave --inputs out for a program without tensor inputs)");
  return Status::Ok();
}

Status StoreSchedule(bool& schedule, const std::string& v) {
  if (v != "memory" && v != "none") return InvalidArgument("--schedule takes memory or none, got '" + v + "'");
  schedule = v == "memory";
  return Status::Ok();
}

Status StoreTarget(std::string& target, const std::string& v) {
  if (v != "cpu" && v != "cuda") return InvalidArgument("--target must be cpu or cuda, got '" + v + "'");
  target = v;
  return Status::Ok();
}

Status StoreWinograd(int& m, const std::string& v) {
  if (v != "2" && v != "4" && v != "off") return InvalidArgument("--winograd must be 2, 4 or off, got '" + v + "'");
  m = v == "off" ? 0 : std::stoi(v);
  return Status::Ok();
}

Status StoreAlgo(std::string& algo, const std::string& v) {
  algo = v.empty() ? "best" : v;
  return Status::Ok();
}

Status StoreMaxFileSize(const std::string& v) {
  char* end = nullptr;
  errno = 0;
  long long n = std::strtoll(v.c_str(), &end, 10);
  if (v.empty() || *end || n <= 0 || errno == ERANGE)
    return InvalidArgument("--max-file-size needs a positive number of bytes, got '" + v + "'");
  SetMaxFileBytes(n);
  return Status::Ok();
}

Status StoreAlign(int64_t& align, const std::string& v) {
  char* end = nullptr;
  long long n = std::strtoll(v.c_str(), &end, 10);
  if (v.empty() || *end || n <= 0 || n > kMaxAlignment || (n & (n - 1)) != 0)
    return InvalidArgument("--align needs a power of two from 1 to " + std::to_string(kMaxAlignment) + ", got '" + v +
                           "'");
  align = n;
  return Status::Ok();
}

Status StoreTolerance(double& tol, const char* flag, const std::string& v) {
  char* end = nullptr;
  double d = std::strtod(v.c_str(), &end);
  if (v.empty() || *end || !(d >= 0) || std::isinf(d))
    return InvalidArgument(std::string(flag) + " needs a finite non-negative number, got '" + v + "'");
  tol = d;
  return Status::Ok();
}

Status StoreCpu(CompileOptions& o, const std::string& v) {
  o.cpu = v;
  if (v == "cortex-m4") {
    o.target.embedded = true;  // firmware: sources for arm-none-eabi-gcc
    return Status::Ok();
  }
  return CpuFlags(v).status();
}

Status StoreWeights(std::string& mode, const std::string& v) {
  mode = v;
  if (v != "embed" && v != "file" && v != "c")
    return InvalidArgument("--weights must be embed, file or c, got '" + v + "'");
  return Status::Ok();
}

// Rows shared by several tables (T has the member each row stores into).

// Every command: --help, -h and --max-file-size.
template <typename T>
FlagTable<T> WithCommonFlags(FlagTable<T> own) {
  own.insert(own.begin(),
             {{"--help", Takes::kNothing, [](T& o, const CommandArgs&) { return Set(o.help); }},
              {"-h", Takes::kNothing, [](T& o, const CommandArgs&) { return Set(o.help); }},
              {"--max-file-size", Takes::kValue, [](T&, const CommandArgs& v) { return StoreMaxFileSize(v[0]); }}});
  return own;
}

template <typename T>
Flag<T> InputsFlag() {  // dump, run, plan, compile
  return {"--inputs", Takes::kList, [](T& o, const CommandArgs& v) { return StoreInputs(o.model.inputs, v); }};
}

template <typename T>
Flag<T> TimePassesFlag() {  // dump, run, plan, compile
  return {"--time-passes", Takes::kNothing, [](T& o, const CommandArgs&) { return Set(o.model.time_passes); }};
}

template <typename T>
Flag<T> StageFlag() {
  return {"--stage", Takes::kValue, [](T& o, const CommandArgs& v) { return Set(o.stage, v[0]); }};
}

template <typename T>
Flag<T> OutDirFlag() {
  return {"--out-dir", Takes::kValue, [](T& o, const CommandArgs& v) { return Set(o.out_dir, v[0]); }};
}

template <typename T>
Flag<T> NameFlag() {
  return {"--name", Takes::kValue, [](T& o, const CommandArgs& v) { return Set(o.name, v[0]); }};
}

template <typename T>
Flag<T> ScheduleFlag() {
  return {"--schedule", Takes::kValue, [](T& o, const CommandArgs& v) { return StoreSchedule(o.schedule, v[0]); }};
}

template <typename T>
Flag<T> AlgoFlag() {
  return {"--algo", Takes::kValue, [](T& o, const CommandArgs& v) { return StoreAlgo(o.algo, v[0]); }};
}

template <typename T>
Flag<T> QuietFlag() {
  return {"--quiet", Takes::kNothing, [](T& o, const CommandArgs&) { return Set(o.quiet); }};
}

template <typename T>
Flag<T> TargetFlag() {  // plan, compile
  return {"--target", Takes::kValue, [](T& o, const CommandArgs& v) { return StoreTarget(o.target.target, v[0]); }};
}

template <typename T>
Flag<T> WinogradFlag() {  // plan, compile
  return {"--winograd", Takes::kValue,
          [](T& o, const CommandArgs& v) { return StoreWinograd(o.target.winograd, v[0]); }};
}

template <typename T>
Flag<T> EmbeddedFlag() {  // plan, compile
  return {"--embedded", Takes::kNothing, [](T& o, const CommandArgs&) { return Set(o.target.embedded); }};
}

// The tables: what each command takes, as its --help documents it.

FlagTable<DumpOptions> DumpFlags() {
  using O = DumpOptions;
  return WithCommonFlags<O>({
      InputsFlag<O>(),
      StageFlag<O>(),
      {"-o", Takes::kValue, [](O& o, const CommandArgs& v) { return Set(o.output_file, v[0]); }},
      TimePassesFlag<O>(),
  });
}

FlagTable<RunOptions> RunFlags() {
  using O = RunOptions;
  return WithCommonFlags<O>({
      InputsFlag<O>(),
      OutDirFlag<O>(),
      StageFlag<O>(),
      TimePassesFlag<O>(),
      {"--print", Takes::kNothing, [](O& o, const CommandArgs&) { return Set(o.print); }},
      {"--plan", Takes::kValue, [](O& o, const CommandArgs& v) { return Set(o.plan_algo, v[0]); }},
      ScheduleFlag<O>(),
  });
}

FlagTable<PlanOptions> PlanFlags() {
  using O = PlanOptions;
  return WithCommonFlags<O>({
      InputsFlag<O>(),
      AlgoFlag<O>(),
      {"--align", Takes::kValue, [](O& o, const CommandArgs& v) { return StoreAlign(o.align, v[0]); }},
      ScheduleFlag<O>(),
      {"--json", Takes::kValue, [](O& o, const CommandArgs& v) { return Set(o.json_file, v[0]); }},
      {"--svg", Takes::kValue, [](O& o, const CommandArgs& v) { return Set(o.svg_file, v[0]); }},
      TimePassesFlag<O>(),
      QuietFlag<O>(),
      EmbeddedFlag<O>(),
      TargetFlag<O>(),
      WinogradFlag<O>(),
  });
}

FlagTable<CompileOptions> CompileFlags() {
  using O = CompileOptions;
  return WithCommonFlags<O>({
      InputsFlag<O>(),
      {"-o", Takes::kValue, [](O& o, const CommandArgs& v) { return Set(o.output_dir, v[0]); }},
      NameFlag<O>(),
      {"--weights", Takes::kValue, [](O& o, const CommandArgs& v) { return StoreWeights(o.weights_mode, v[0]); }},
      AlgoFlag<O>(),
      ScheduleFlag<O>(),
      {"--cpu", Takes::kValue, [](O& o, const CommandArgs& v) { return StoreCpu(o, v[0]); }},
      {"--march-native", Takes::kNothing, [](O& o, const CommandArgs&) { return Set(o.march_native); }},
      EmbeddedFlag<O>(),
      TargetFlag<O>(),
      WinogradFlag<O>(),
      {"--cuda-arch", Takes::kValue, [](O& o, const CommandArgs& v) { return Set(o.cuda_arch, v[0]); }},
      {"--emit-only", Takes::kNothing, [](O& o, const CommandArgs&) { return Set(o.emit_only); }},
      QuietFlag<O>(),
      TimePassesFlag<O>(),
  });
}

FlagTable<ExecOptions> ExecFlags() {
  using O = ExecOptions;
  return WithCommonFlags<O>({
      {"--inputs", Takes::kList, [](O& o, const CommandArgs& v) { return StoreInputs(o.inputs, v); }},
      OutDirFlag<O>(),
      NameFlag<O>(),
  });
}

FlagTable<ShowOptions> ShowFlags() { return WithCommonFlags<ShowOptions>({}); }

FlagTable<CompareOptions> CompareFlags() {
  using O = CompareOptions;
  return WithCommonFlags<O>({
      {"--rtol", Takes::kValue, [](O& o, const CommandArgs& v) { return StoreTolerance(o.rtol, "--rtol", v[0]); }},
      {"--atol", Takes::kValue, [](O& o, const CommandArgs& v) { return StoreTolerance(o.atol, "--atol", v[0]); }},
  });
}

// help reads no files: --help and -h only.
FlagTable<HelpOptions> HelpFlags() {
  using O = HelpOptions;
  return {
      {"--help", Takes::kNothing, [](O& o, const CommandArgs&) { return Set(o.help); }},
      {"-h", Takes::kNothing, [](O& o, const CommandArgs&) { return Set(o.help); }},
  };
}

template <typename T>
bool InTable(const FlagTable<T>& table, const std::string& flag) {
  return std::any_of(table.begin(), table.end(), [&](const Flag<T>& f) { return flag == f.name; });
}

// Whether some command (other than opt) takes `flag`.
bool SomeCommandTakes(const std::string& flag) {
  return InTable(DumpFlags(), flag) || InTable(RunFlags(), flag) || InTable(PlanFlags(), flag) ||
         InTable(CompileFlags(), flag) || InTable(ExecFlags(), flag) || InTable(CompareFlags(), flag);
}

// The operands: the one MODEL of dump, run, plan and compile.
template <typename T>
Status StoreModel(T& o, const std::string& a) {
  if (!o.model.path.empty()) return InvalidArgument("unexpected argument '" + a + "'");
  o.model.path = a;
  return Status::Ok();
}

// Parses `args` with `command`'s flag table; `operand` stores each argument
// that is not a flag.
template <typename T>
Status ParseCommandArgs(const std::string& command, const FlagTable<T>& flags,
                        Status (*operand)(T& o, const std::string& a), const CommandArgs& args, T* o) {
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    auto flag = std::find_if(flags.begin(), flags.end(), [&](const Flag<T>& f) { return a == f.name; });
    if (flag == flags.end()) {
      if (a.empty() || a[0] != '-') {
        AOT_RETURN_IF_ERROR(operand(*o, a));
        continue;
      }
      if (SomeCommandTakes(a))
        return InvalidArgument("'" + command + "' does not take " + a + " (see 'atenaot " + command + " --help')");
      return InvalidArgument("unknown option '" + a + "' for '" + command + "'");
    }
    CommandArgs values;
    if (flag->takes == Takes::kValue) {
      if (i + 1 >= args.size()) return InvalidArgument(a + " needs a value");
      values.push_back(args[++i]);
    } else if (flag->takes == Takes::kList) {
      while (i + 1 < args.size() && args[i + 1].rfind('-', 0) != 0) values.push_back(args[++i]);
    }
    AOT_RETURN_IF_ERROR(flag->store(*o, values));
  }
  return Status::Ok();
}

}  // namespace

Status ParseDumpArgs(const CommandArgs& args, DumpOptions* o) {
  return ParseCommandArgs("dump", DumpFlags(), &StoreModel<DumpOptions>, args, o);
}

Status ParseRunArgs(const CommandArgs& args, RunOptions* o) {
  return ParseCommandArgs("run", RunFlags(), &StoreModel<RunOptions>, args, o);
}

Status ParsePlanArgs(const CommandArgs& args, PlanOptions* o) {
  return ParseCommandArgs("plan", PlanFlags(), &StoreModel<PlanOptions>, args, o);
}

Status ParseCompileArgs(const CommandArgs& args, CompileOptions* o) {
  return ParseCommandArgs("compile", CompileFlags(), &StoreModel<CompileOptions>, args, o);
}

Status ParseExecArgs(const CommandArgs& args, ExecOptions* o) {
  return ParseCommandArgs<ExecOptions>(
      "exec", ExecFlags(),
      [](ExecOptions& e, const std::string& a) {
        if (!e.dir.empty()) return InvalidArgument("unexpected argument '" + a + "'");
        e.dir = a;
        return Status::Ok();
      },
      args, o);
}

Status ParseShowArgs(const CommandArgs& args, ShowOptions* o) {
  return ParseCommandArgs<ShowOptions>(
      "show", ShowFlags(), [](ShowOptions& s, const std::string& a) { return Set(s.files, a); }, args, o);
}

Status ParseCompareArgs(const CommandArgs& args, CompareOptions* o) {
  return ParseCommandArgs<CompareOptions>(
      "compare", CompareFlags(), [](CompareOptions& c, const std::string& a) { return Set(c.operands, a); }, args, o);
}

Status ParseHelpArgs(const CommandArgs& args, HelpOptions* o) {
  return ParseCommandArgs<HelpOptions>(
      "help", HelpFlags(),
      [](HelpOptions& h, const std::string& a) {
        if (!h.topic.empty()) return InvalidArgument("unexpected argument '" + a + "'");
        h.topic = a;
        return Status::Ok();
      },
      args, o);
}

}  // namespace atenaot
