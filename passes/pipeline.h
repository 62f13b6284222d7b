// The pass pipeline: runs a list of passes from the registry
// (passes/pass_registry.def), with the verifier and each pass's postcondition
// after every pass. The CLI's --stage names fixed lists (the stage table);
// `atenaot opt --passes=...` runs any list. --time-passes reports each pass's
// wall time, --stats its counters, --print-ir-after the graph after it.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "ir/graph.h"
#include "ir/op_table.h"
#include "ir/status.h"
#include "ir/verifier.h"

namespace atenaot {

enum class Stage { kImport, kFunctional, kFunctionalNoViews, kReinplaced };

const char* StageName(Stage s);
StatusOr<Stage> ParseStage(const std::string& name);
// "import, functional, functional-noviews, reinplaced".
std::string StageNames();
// Pass names that turn an imported graph into `s`, in order.
std::vector<std::string> PassesForStage(Stage s);

// A registered pass's options (all boolean today): every key the registry
// lists for the pass, with its default unless the pass list set it.
class PassOptions {
 public:
  bool Flag(const std::string& key) const;
  void Set(const std::string& key, bool value) { values_[key] = value; }
  const std::map<std::string, bool>& values() const { return values_; }

 private:
  std::map<std::string, bool> values_;
};

// What a pass did: named counters, in the order the pass reports them.
using PassStats = std::vector<std::pair<std::string, int64_t>>;

struct PassOptionInfo {
  std::string key;
  bool default_value;
  std::string help;
};
struct PassInfo {
  std::string name;
  std::string summary;
  std::vector<PassOptionInfo> options;
};
// Every registered pass, in registry order (for --help and tests).
const std::vector<PassInfo>& RegisteredPasses();
// The registry's passes and their options as help text, one pass per line.
std::string PassListHelp();

// One entry of a pass list: `name` or `name{key=value,...}` (values true,
// false, 1 or 0), as MLIR writes pass options.
struct PassSpec {
  std::string name;
  PassOptions options;
};
// "functionalize,dce,reinplace{fuse-cast-back=false},dce": checks every name
// and key against the registry.
StatusOr<std::vector<PassSpec>> ParsePassList(const std::string& text);
StatusOr<PassSpec> MakePassSpec(const std::string& name);

struct PipelineOptions {
  bool verify_each_pass = true;
  // With verify_each_pass: the verifier runs on the input graph and after the
  // last pass only (each pass's postcondition still runs after it). For
  // callers that run the passes on every call on large graphs (atenaot.fx,
  // through atenaot-passes --verify-ends-only): a pass that breaks the graph is
  // still caught before the result is used; the runs in between only say
  // which pass broke it, which a rerun without the option tells.
  bool verify_ends_only = false;
  VerifyOptions verify;            // opt --split-input-file: weights without data (no pass reads it)
  std::ostream* timing = nullptr;  // when set, "time: <pass> <ms> ms" lines go here
  std::string context;             // prefixed to errors (e.g. the model's path)
  // When set, one entry per pass run: its name and its counters (the graph's
  // node, write and view counts before and after, then the pass's own).
  std::vector<std::pair<std::string, PassStats>>* stats = nullptr;
  // When set, called after each pass (and its checks) with the pass's name.
  std::function<void(const std::string& pass, const Graph& g)> after_pass;
};

Status RunPasses(Graph& g, const std::vector<PassSpec>& passes, const OpTable& ops, const PipelineOptions& opts);
Status RunPipeline(Graph& g, Stage target, const OpTable& ops, const PipelineOptions& opts);

}  // namespace atenaot
