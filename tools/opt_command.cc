#include "tools/opt_command.h"

#include <cerrno>
#include <cstdlib>
#include <iostream>
#include <memory>

#include "capture/load_model.h"
#include "io/files.h"
#include "io/npy.h"
#include "ir/parser.h"
#include "ir/printer.h"
#include "passes/pipeline.h"
#include "schema/dispatcher_schemas.h"

namespace atenaot {
namespace {

// The separator of --split-input-file (MLIR's), on a line of its own.
constexpr char kSplitMarker[] = "// -----";

struct OptOptions {
  std::string model;
  std::vector<std::string> inputs;
  std::string passes;
  bool passes_given = false;
  std::string print_after;  // "", "all" or a comma-separated pass list
  bool stats = false;
  bool split = false;
  bool time_passes = false;
  bool help = false;
};

Status ParseOptArgs(const std::vector<std::string>& args, OptOptions* o) {
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    // --flag=VALUE or --flag VALUE
    auto value_of = [&](const std::string& flag, std::string* out) -> StatusOr<bool> {
      if (a.rfind(flag + "=", 0) == 0) {
        *out = a.substr(flag.size() + 1);
        return true;
      }
      if (a != flag) return false;
      if (i + 1 >= args.size()) return InvalidArgument(flag + " needs a value");
      *out = args[++i];
      return true;
    };
    std::string v;
    AOT_ASSIGN_OR_RETURN(bool is_passes, value_of("--passes", &v));
    if (is_passes) {
      o->passes = v;
      o->passes_given = true;
      continue;
    }
    AOT_ASSIGN_OR_RETURN(bool is_print, value_of("--print-ir-after", &v));
    if (is_print) {
      if (v.empty()) return InvalidArgument("--print-ir-after needs a pass name or 'all'");
      o->print_after = v;
      continue;
    }
    AOT_ASSIGN_OR_RETURN(bool is_max, value_of("--max-file-size", &v));
    if (is_max) {
      char* end = nullptr;
      errno = 0;
      const long long n = std::strtoll(v.c_str(), &end, 10);
      if (v.empty() || *end || n <= 0 || errno == ERANGE)
        return InvalidArgument("--max-file-size needs a positive number of bytes, got '" + v + "'");
      SetMaxFileBytes(n);
      continue;
    }
    if (a == "--help" || a == "-h")
      o->help = true;
    else if (a == "--stats")
      o->stats = true;
    else if (a == "--split-input-file")
      o->split = true;
    else if (a == "--time-passes")
      o->time_passes = true;
    else if (a == "--inputs") {
      while (i + 1 < args.size() && args[i + 1].rfind("-", 0) != 0) o->inputs.push_back(args[++i]);
      if (o->inputs.empty()) return InvalidArgument("--inputs needs at least one .npy file");
    } else if (!a.empty() && a[0] == '-')
      return InvalidArgument("unknown option '" + a + "' for 'opt'");
    else if (o->model.empty())
      o->model = a;
    else
      return InvalidArgument("unexpected argument '" + a + "'");
  }
  return Status::Ok();
}

// One case of the input: its text, padded with blank lines so that parser
// errors give line numbers of the whole file.
struct Case {
  std::string text;
  int line;  // 1-based: its `graph @` line (errors name it), else its first
  bool has_graph = false;
};

std::vector<Case> SplitCases(const std::string& text) {
  std::vector<Case> cases{{"", 1}};
  int line_no = 1;
  for (size_t pos = 0; pos < text.size(); ++line_no) {
    size_t end = text.find('\n', pos);
    if (end == std::string::npos) end = text.size();
    std::string line = text.substr(pos, end - pos);
    while (!line.empty() && (line.back() == ' ' || line.back() == '\r')) line.pop_back();
    if (line == kSplitMarker) {
      cases.push_back({std::string(static_cast<size_t>(line_no), '\n'), line_no + 1});
    } else {
      if (!cases.back().has_graph && line.rfind("graph @", 0) == 0) {
        cases.back().line = line_no;
        cases.back().has_graph = true;
      }
      cases.back().text += line + "\n";
    }
    pos = end + 1;
  }
  return cases;
}

bool PrintsAfter(const std::string& which, const std::string& pass) {
  if (which == "all") return true;
  for (size_t i = 0; i <= which.size();) {
    size_t c = which.find(',', i);
    if (c == std::string::npos) c = which.size();
    if (which.compare(i, c - i, pass) == 0 && c - i == pass.size()) return true;
    i = c + 1;
  }
  return false;
}

Status RunOnGraph(Graph& g, const std::vector<PassSpec>& passes, const OptOptions& o, const std::string& context) {
  std::vector<std::pair<std::string, PassStats>> stats;
  PipelineOptions popts;
  popts.verify.require_weight_data = !o.split;  // split cases are IR text alone; passes never read weight data
  popts.context = context;
  if (o.time_passes) popts.timing = &std::cerr;
  if (o.stats) popts.stats = &stats;
  if (!o.print_after.empty())
    popts.after_pass = [&](const std::string& pass, const Graph& gg) {
      if (PrintsAfter(o.print_after, pass)) std::cout << "// IR after " << pass << "\n" << PrintGraph(gg);
    };
  Status s = RunPasses(g, passes, LiveOpTable(), popts);
  std::cout.flush();
  for (const auto& [pass, counters] : stats)
    for (const auto& [name, value] : counters) std::cerr << "stats: " << pass << " " << name << " " << value << "\n";
  AOT_RETURN_IF_ERROR(s);
  std::cout << PrintGraph(g);
  return Status::Ok();
}

Status ValidatePrintAfter(const std::string& which) {
  if (which.empty() || which == "all") return Status::Ok();
  for (size_t i = 0; i <= which.size();) {
    size_t c = which.find(',', i);
    if (c == std::string::npos) c = which.size();
    AOT_RETURN_IF_ERROR(MakePassSpec(which.substr(i, c - i)).status().WithContext("--print-ir-after"));
    i = c + 1;
  }
  return Status::Ok();
}

}  // namespace

std::string OptHelp() {
  return R"(usage: atenaot opt MODEL --passes=P1,P2,... [--inputs F.npy...] [--print-ir-after=P|all]
                   [--stats] [--split-input-file] [--time-passes]

Runs the listed passes on MODEL, in order, with the IR verifier and each
pass's postcondition after every one, and prints the resulting IR to stdout.
A pass may take options: reinplace{fuse-cast-back=false}.

  --passes=LIST       passes to run, comma-separated (may be empty: only verify)
  --inputs F...       sample inputs (.npy) giving shapes and dtypes (archives)
  --print-ir-after=P  also print the IR after each run of pass P (or after
                      every pass: all), headed "// IR after P"
  --stats             print each pass's counters to stderr ("stats: PASS NAME
                      VALUE"): node, write and view counts before and after,
                      and the pass's own
  --split-input-file  MODEL is atenaot IR text holding several cases separated
                      by lines "// -----": each runs on its own, outputs are
                      separated the same way, and a failing case prints its
                      error and the others still run (exit 2 if any failed)
  --time-passes       print each pass's wall time to stderr

passes (passes/pass_registry.def):
)" + PassListHelp();
}

Status OptCommand(const std::vector<std::string>& args) {
  OptOptions o;
  AOT_RETURN_IF_ERROR(ParseOptArgs(args, &o));
  if (o.help) {
    std::cout << OptHelp();
    return Status::Ok();
  }
  if (o.model.empty()) return InvalidArgument("no MODEL given (see 'atenaot opt --help')");
  if (!o.passes_given) return InvalidArgument("opt needs --passes=P1,P2,... (see 'atenaot opt --help')");
  std::vector<PassSpec> passes;
  if (!o.passes.empty()) {
    AOT_ASSIGN_OR_RETURN(passes, ParsePassList(o.passes));
  }
  AOT_RETURN_IF_ERROR(ValidatePrintAfter(o.print_after));
  std::vector<NpyArray> inputs;
  for (const std::string& p : o.inputs) {
    AOT_ASSIGN_OR_RETURN(NpyArray a, ReadNpy(p));
    inputs.push_back(std::move(a));
  }
  const OpTable& ops = LiveOpTable();
  if (!o.split) {
    AOT_ASSIGN_OR_RETURN(std::unique_ptr<Graph> g, LoadModel(o.model, inputs, ops));
    return RunOnGraph(*g, passes, o, o.model);
  }
  if (!inputs.empty()) return InvalidArgument("--split-input-file takes IR text with typed inputs, not --inputs");
  AOT_ASSIGN_OR_RETURN(std::string text, ReadFileBytes(o.model, "model file"));
  const std::vector<Case> cases = SplitCases(text);
  int failed = 0;
  for (size_t k = 0; k < cases.size(); ++k) {
    if (k) std::cout << kSplitMarker << "\n";
    const std::string context = o.model + ":" + std::to_string(cases[k].line);
    StatusOr<std::unique_ptr<Graph>> g = ParseGraph(cases[k].text, ops);
    Status s = g.ok() ? RunOnGraph(**g, passes, o, context) : g.status().WithContext("'" + context + "'");
    if (s.ok()) continue;
    ++failed;
    std::string m = s.ToString();
    for (char& c : m)
      if (c == '\n') c = ' ';
    std::cout.flush();
    std::cerr << "atenaot: error: " << m << "\n";
  }
  std::cout.flush();
  if (failed)
    return InvalidArgument(std::to_string(failed) + " of " + std::to_string(cases.size()) + " cases in '" + o.model +
                           "' failed");
  return Status::Ok();
}

}  // namespace atenaot
