// atenaot: the command-line driver. Commands (tools/cli_options.h holds each
// one's options, parser and --help; opt has its own, tools/opt_command.h):
//   dump MODEL [--inputs F...] [--stage S] [-o FILE] [--time-passes]
//   opt  MODEL --passes=P1,P2,... [--inputs F...] [--print-ir-after=P|all] ...
//   run  MODEL --inputs F... --out-dir DIR [--stage S] [--time-passes] [--print]
//        [--plan ALGO] [--schedule memory|none]
//   plan MODEL --inputs F... [--algo NAME|best] [--align B] [--schedule S] [--json FILE]
//        [--svg FILE] [--time-passes] [--quiet] [--embedded] [--target cpu|cuda]
//   compile MODEL --inputs F... -o DIR [--name NAME] [--weights embed|file|c] [--algo NAME]
//           [--schedule S] [--cpu NAME] [--march-native] [--embedded] [--target cpu|cuda]
//           [--cuda-arch sm_XX] [--emit-only] [--quiet] [--time-passes]
//   exec DIR --inputs F... --out-dir D [--name NAME]
//   show F.npy...
//   compare EXPECTED ACTUAL [--rtol R] [--atol A]
// Every command takes --help and --max-file-size BYTES.
// Every failure prints one line "atenaot: error: ..." to stderr and exits 2
// (compare exits 1 when the arrays differ).
// This translation unit stays free of LibTorch headers; the importers and the
// interpreter sit behind LibTorch-free interfaces.
#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
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
#include "tools/cli_options.h"
#include "tools/opt_command.h"
#include "tools/progress.h"

namespace atenaot {
namespace {

constexpr char kVersion[] = "0.1.0";

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

// Loads MODEL and runs the pipeline up to `stage_name`; drops the `none`
// inputs. `command` names the command in messages.
StatusOr<std::unique_ptr<Graph>> LoadAndRunPipeline(const std::string& command, const ModelOptions& m,
                                                    std::vector<NpyArray>& inputs, const std::string& stage_name,
                                                    Progress* progress = nullptr) {
  if (m.path.empty()) return InvalidArgument("no MODEL given (see 'atenaot " + command + " --help')");
  AOT_ASSIGN_OR_RETURN(Stage stage, ParseStage(stage_name));
  if (progress) progress->Stage("import " + m.path);
  const OpTable& ops = LiveOpTable();
  auto t0 = std::chrono::steady_clock::now();
  AOT_ASSIGN_OR_RETURN(std::unique_ptr<Graph> g, LoadModel(m.path, inputs, ops));
  DropNone(inputs);
  // A program without tensor inputs needs no --inputs; any other needs them to compile or plan.
  if (m.inputs.empty() && !g->inputs().empty() && (command == "compile" || command == "plan"))
    return InvalidArgument(command == "plan" ? "plan needs --inputs (sizes and layouts come from a sample run)"
                                             : "compile needs --inputs (the shapes and dtypes to compile for)");
  PipelineOptions popts;
  popts.context = m.path;
  if (m.time_passes) {
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

Status Dump(const DumpOptions& o) {
  AOT_ASSIGN_OR_RETURN(std::vector<NpyArray> inputs, ReadInputs(o.model.inputs));
  AOT_ASSIGN_OR_RETURN(std::unique_ptr<Graph> g, LoadAndRunPipeline("dump", o.model, inputs, o.stage));
  std::string text = PrintGraph(*g);
  if (o.output_file.empty()) {
    std::cout << text;
    return Status::Ok();
  }
  // Weights first: a failure leaves no IR file that points at missing weights.
  if (!g->weight_values().empty()) AOT_RETURN_IF_ERROR(WriteWeightsFile(o.output_file + ".weights", g->weights()));
  return WriteFile(o.output_file, text);
}

Status Run(const RunOptions& o) {
  if (o.out_dir.empty()) return InvalidArgument("run needs --out-dir DIR");
  AOT_ASSIGN_OR_RETURN(std::vector<NpyArray> inputs, ReadInputs(o.model.inputs));
  if (!o.plan_algo.empty() && o.stage != "import" && o.stage != "reinplaced")
    return InvalidArgument("--plan runs the reinplaced graph; it cannot be combined with --stage " + o.stage);
  AOT_ASSIGN_OR_RETURN(std::unique_ptr<Graph> g,
                       LoadAndRunPipeline("run", o.model, inputs, o.plan_algo.empty() ? o.stage : "reinplaced"));
  if (inputs.size() != g->inputs().size())
    return InvalidArgument("run needs --inputs: one .npy file for each of the graph's " +
                           std::to_string(g->inputs().size()) + " input(s)");
  std::optional<MemoryPlan> plan;
  if (!o.plan_algo.empty()) {
    constexpr int64_t kAlignment = 64;  // plan's default --align
    AOT_RETURN_IF_ERROR(AnnotateFromArrays(*g, inputs));
    if (o.schedule) AOT_RETURN_IF_ERROR(ScheduleForMemory(*g, kAlignment, nullptr, nullptr).status());
    AOT_ASSIGN_OR_RETURN(plan, PlanMemory(*g, o.plan_algo, kAlignment));
    std::cerr << "plan: arena " << plan->arena_bytes() << " B (" << plan->placement.algorithm << "), LOAD "
              << plan->lower_bound_bytes << " B\n";
  }
  auto t0 = std::chrono::steady_clock::now();
  AOT_ASSIGN_OR_RETURN(ArrayRunResult r, RunOnArrays(*g, inputs, plan ? &*plan : nullptr));
  if (o.model.time_passes)
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

Status Plan(const PlanOptions& o) {
  AOT_ASSIGN_OR_RETURN(std::vector<NpyArray> inputs, ReadInputs(o.model.inputs));
  Progress progress(!o.quiet && !o.model.time_passes);
  // The program as captured (eager's view of it), then the two later stages.
  AOT_ASSIGN_OR_RETURN(std::unique_ptr<Graph> imported,
                       LoadAndRunPipeline("plan", o.model, inputs, "import", &progress));
  progress.Stage("passes");
  const OpTable& ops = LiveOpTable();
  AOT_ASSIGN_OR_RETURN(std::unique_ptr<Graph> functional, CloneGraph(*imported, ops));
  AOT_RETURN_IF_ERROR(RunPipeline(*functional, Stage::kFunctional, ops, {}));
  AOT_RETURN_IF_ERROR(AnnotateFromArrays(*functional, inputs));
  AOT_ASSIGN_OR_RETURN(std::unique_ptr<Graph> g, CloneGraph(*imported, ops));
  PipelineOptions popts;
  popts.timing = o.model.time_passes ? &std::cerr : progress.timing();
  // The plan the compiled library uses (fusion and kernel reuse included).
  // With --time-passes it prints a line per pass, then "time: decompose",
  // "time: annotate" (the sample run), "time: fusion" and "time: plan" (the
  // placement alone).
  // Its kernel scratch as `compile` with the same flags plans it (none for CUDA).
  CodegenOptions kernels;
  kernels.float_accumulation = o.target.embedded;
  kernels.threads = !o.target.embedded;
  kernels.kernel_library = o.target.target != "cuda";
  kernels.winograd = o.target.winograd;
  AOT_ASSIGN_OR_RETURN(MemoryPlan plan, PlanForCodegen(
                                            *g, ops, [&](Graph& gg) { return AnnotateFromArrays(gg, inputs); }, o.algo,
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
Status CompileCuda(const CompileOptions& o, const std::vector<NpyArray>& inputs, Graph& g) {
  if (o.target.embedded || o.march_native || !o.cpu.empty())
    return InvalidArgument("--embedded, --cpu and --march-native are for the C target, not --target cuda");
  if (o.weights_mode == "c")
    return InvalidArgument("--weights c is for the C target; --target cuda takes embed or file");
  CudaBuildOptions bopts;
  bopts.arch = o.cuda_arch;
  AOT_RETURN_IF_ERROR(CudaArchFlags(o.cuda_arch).status());
  CudaCodegenOptions copts;
  copts.name = o.name;
  copts.embed_weights = o.weights_mode != "file";
  copts.source_note = o.model.path;
  PipelineOptions popts;
  if (o.model.time_passes) popts.timing = &std::cerr;
  AOT_ASSIGN_OR_RETURN(CompiledGraphCuda compiled,
                       CompileGraphCuda(
                           g, LiveOpTable(), [&](Graph& gg) { return AnnotateFromArrays(gg, inputs); }, copts, o.algo,
                           popts, o.schedule));
  const GeneratedCuda& gen = compiled.cuda;
  std::ostringstream what;
  what << gen.kernels << " CUDA kernels, " << gen.gemms << " cuBLAS GEMMs, device arena " << gen.arena_bytes
       << " bytes, LOAD " << compiled.plan.lower_bound_bytes << " bytes";
  const std::string cu = o.output_dir + "/" + o.name + ".cu";
  if (o.emit_only || FindNvcc(bopts).empty()) AOT_RETURN_IF_ERROR(WriteCudaSources(gen, o.output_dir, o.name));
  if (o.emit_only) {
    std::cout << "compiled " << o.model.path << " -> " << cu << " (emit-only: sources only, nothing built; "
              << what.str() << ")\n";
    return Status::Ok();
  }
  if (FindNvcc(bopts).empty()) {
    std::cout << "compiled " << o.model.path << " -> " << cu
              << " (NOT BUILT: nvcc not found at $NVCC or /usr/local/cuda/bin/nvcc; "
              << "sources only, no lib" << o.name << ".so; " << what.str() << ")\n";
    return Status::Ok();
  }
  AOT_ASSIGN_OR_RETURN(std::string lib, WriteAndBuildCuda(gen, o.output_dir, o.name, bopts));
  std::cout << "compiled " << o.model.path << " -> " << lib << " (" << o.cuda_arch << "; " << what.str() << ")\n";
  return Status::Ok();
}

Status Compile(const CompileOptions& o) {
  if (o.output_dir.empty()) return InvalidArgument("compile needs -o DIR");
  AOT_RETURN_IF_ERROR(CheckModelName(o.name).WithContext("--name"));
  if (o.target.embedded && o.march_native)
    return InvalidArgument("--march-native builds for this machine; it cannot be combined with --embedded");
  if (o.target.embedded && !o.cpu.empty() && o.cpu != "cortex-m4")
    return InvalidArgument("--embedded writes sources for the firmware's compiler; --cpu " + o.cpu +
                           " builds a library");
  if (o.march_native && !o.cpu.empty() && o.cpu != "native")
    return InvalidArgument("--march-native and --cpu " + o.cpu + " disagree");
  AOT_ASSIGN_OR_RETURN(std::vector<NpyArray> inputs, ReadInputs(o.model.inputs));
  Progress progress(!o.quiet && !o.model.time_passes && o.target.target != "cuda");
  AOT_ASSIGN_OR_RETURN(std::unique_ptr<Graph> g, LoadAndRunPipeline("compile", o.model, inputs, "import", &progress));
  if (o.target.target == "cuda") return CompileCuda(o, inputs, *g);
  CodegenOptions copts;
  copts.name = o.name;
  copts.embed_weights = o.weights_mode != "file";
  copts.weights_as_c_arrays = o.weights_mode == "c";
  copts.float_accumulation = o.target.embedded;  // single-precision FPUs: no soft-double routines
  copts.threads = !o.target.embedded;            // firmware: no thread code
  copts.winograd = o.target.winograd;
  copts.source_note = o.model.path;
  PipelineOptions popts;
  popts.timing = o.model.time_passes ? &std::cerr : progress.timing();
  progress.Stage("passes");
  AOT_ASSIGN_OR_RETURN(CompiledGraph compiled,
                       CompileGraph(
                           *g, LiveOpTable(), [&](Graph& gg) { return AnnotateFromArrays(gg, inputs); }, copts, o.algo,
                           popts, o.schedule));
  const GeneratedC& gen = compiled.c;
  const MemoryPlan& plan = compiled.plan;
  BuildOptions bopts;
  bopts.march_native = o.march_native;
  bopts.cpu = o.cpu;
  const std::string cpu = BuildCpu(bopts);
  if (o.target.embedded || o.emit_only) {  // sources only: the firmware's toolchain (or Bazel) builds them
    const std::string base = o.output_dir + "/" + o.name;
    progress.Stage("emit " + o.name + ".c");
    AOT_RETURN_IF_ERROR(WriteSources(gen, o.output_dir, o.name));
    progress.Clear();
    std::cout << "compiled " << o.model.path << " -> " << base << ".c ("
              << (o.target.embedded ? "embedded" : "emit-only") << ": sources only; " << gen.kernels
              << " kernels, arena " << gen.arena_bytes << " bytes, LOAD " << plan.lower_bound_bytes << " bytes";
    if (!o.target.embedded) {  // what compile would build them with here (bench/kernel_profile.py reads it)
      AOT_ASSIGN_OR_RETURN(std::vector<std::string> cpu_flags, CpuFlags(cpu));
      std::cout << "; compile's C flags here:";
      for (const std::vector<std::string>& part : {LibraryCFlags(), cpu_flags})
        for (const std::string& f : part) std::cout << " " << f;
    }
    std::cout << ")\n";
    return Status::Ok();
  }
  progress.Stage("emit " + o.name + ".c, build lib" + o.name + ".so/.a and the runtime with cc");
  AOT_ASSIGN_OR_RETURN(std::string lib, WriteAndBuild(gen, o.output_dir, o.name, bopts));
  progress.Clear();
  std::cout << "compiled " << o.model.path << " -> " << lib << " (--cpu " << (cpu.empty() ? "baseline" : cpu) << "; "
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

Status Exec(const ExecOptions& o) {
  if (o.dir.empty()) return InvalidArgument("exec needs DIR (made by atenaot compile)");
  if (o.out_dir.empty()) return InvalidArgument("exec needs --out-dir DIR");
  AOT_ASSIGN_OR_RETURN(std::vector<NpyArray> inputs, ReadInputs(o.inputs));
  DropNone(inputs);  // compiled in: the library has no input for them
  std::string lib = o.dir + "/lib" + o.name + ".so";
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

Status Show(const ShowOptions& o) {
  if (o.files.empty()) return InvalidArgument("show needs at least one .npy file");
  for (const std::string& p : o.files) {
    AOT_ASSIGN_OR_RETURN(NpyArray a, ReadNpy(p));
    PrintArray(p, a);
  }
  return Status::Ok();
}

StatusOr<bool> CompareCommand(const CompareOptions& o) {
  if (o.operands.size() != 2) return InvalidArgument("compare needs EXPECTED and ACTUAL");
  std::vector<std::pair<std::string, std::string>> pairs;
  struct stat st {};
  if (stat(o.operands[0].c_str(), &st) == 0 && S_ISDIR(st.st_mode)) {
    std::vector<std::string> names;
    for (int k = 0;; ++k) {  // output_K / input_K, the layout atenaot run writes
      bool any = false;
      for (const char* stem : {"output_", "input_"}) {
        std::string n = stem + std::to_string(k) + ".npy";
        if (stat((o.operands[0] + "/" + n).c_str(), &st) == 0) {
          names.push_back(n);
          any = true;
        }
      }
      if (!any) break;
    }
    if (names.empty()) return InvalidArgument("no output_K.npy or input_K.npy files in '" + o.operands[0] + "'");
    for (const std::string& n : names) pairs.push_back({o.operands[0] + "/" + n, o.operands[1] + "/" + n});
  } else {
    pairs.push_back({o.operands[0], o.operands[1]});
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

int Exit(const Status& s) { return s.ok() ? 0 : Fail(s); }

// compare: 0 equal, 1 different, 2 error.
int Exit(StatusOr<bool> equal) {
  if (!equal.ok()) return Fail(equal.status());
  return *equal ? 0 : 1;
}

// One command: parses its own options (tools/cli_options.h), prints its help
// for --help, else runs it.
template <typename T, typename Result>
int RunCommand(const CommandArgs& args, Status (*parse)(const CommandArgs&, T*), const char* help,
               Result (*command)(const T&)) {
  T o;
  if (Status s = parse(args, &o); !s.ok()) return Fail(s);
  if (o.help) {
    std::cout << help;
    return 0;
  }
  return Exit(command(o));
}

struct CommandEntry {
  const char* help;
  int (*main)(const CommandArgs& args);
};

int Main(int argc, char** argv) {
  if (argc >= 2 && (std::strcmp(argv[1], "--help") == 0 || std::strcmp(argv[1], "-h") == 0)) {
    std::cout << kMainHelp;
    return 0;
  }
  if (argc >= 2 && std::strcmp(argv[1], "--version") == 0) {
    std::cout << "atenaot " << kVersion << "\n";
    return 0;
  }
  if (argc < 2) return Fail(InvalidArgument("no command given (try 'atenaot --help')"));
  const std::string command = argv[1];
  const CommandArgs args(argv + 2, argv + argc);
  if (command == "opt") return Exit(OptCommand(args));  // its own options (tools/opt_command.h)
  const std::map<std::string, CommandEntry> commands = {
      {"dump", {kDumpHelp, [](const CommandArgs& a) { return RunCommand(a, &ParseDumpArgs, kDumpHelp, &Dump); }}},
      {"run", {kRunHelp, [](const CommandArgs& a) { return RunCommand(a, &ParseRunArgs, kRunHelp, &Run); }}},
      {"plan", {kPlanHelp, [](const CommandArgs& a) { return RunCommand(a, &ParsePlanArgs, kPlanHelp, &Plan); }}},
      {"compile",
       {kCompileHelp, [](const CommandArgs& a) { return RunCommand(a, &ParseCompileArgs, kCompileHelp, &Compile); }}},
      {"exec", {kExecHelp, [](const CommandArgs& a) { return RunCommand(a, &ParseExecArgs, kExecHelp, &Exec); }}},
      {"show", {kShowHelp, [](const CommandArgs& a) { return RunCommand(a, &ParseShowArgs, kShowHelp, &Show); }}},
      {"compare",
       {kCompareHelp,
        [](const CommandArgs& a) { return RunCommand(a, &ParseCompareArgs, kCompareHelp, &CompareCommand); }}},
  };
  if (command == "help") {
    HelpOptions h;
    if (Status s = ParseHelpArgs(args, &h); !s.ok()) return Fail(s);
    if (h.topic.empty()) {
      std::cout << kMainHelp;
      return 0;
    }
    if (h.topic == "opt") {
      std::cout << OptHelp();
      return 0;
    }
    auto it = commands.find(h.topic);
    if (it == commands.end())
      return Fail(InvalidArgument("no help for unknown command '" + h.topic +
                                  "' (commands: dump, opt, run, plan, compile, exec, show, compare)"));
    std::cout << it->second.help;
    return 0;
  }
  auto it = commands.find(command);
  if (it == commands.end())
    return Fail(InvalidArgument("unknown command '" + command +
                                "' (commands: dump, opt, run, plan, compile, exec, show, compare)"));
  return it->second.main(args);
}

}  // namespace
}  // namespace atenaot

int main(int argc, char** argv) { return atenaot::Main(argc, argv); }
