// The pass pipeline behind the CLI's --stage: each stage names the passes that
// produce it; the verifier runs after every pass; --time-passes reports each
// pass's wall time.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "ir/graph.h"
#include "ir/op_table.h"
#include "ir/status.h"

namespace atenaot {

enum class Stage { kImport, kFunctional, kFunctionalNoViews, kReinplaced };

const char* StageName(Stage s);
StatusOr<Stage> ParseStage(const std::string& name);
// "import, functional, functional-noviews, reinplaced".
std::string StageNames();
// Pass names that turn an imported graph into `s`, in order.
std::vector<std::string> PassesForStage(Stage s);

struct PipelineOptions {
  bool verify_each_pass = true;
  std::ostream* timing = nullptr;  // when set, "time: <pass> <ms> ms" lines go here
  std::string context;             // prefixed to errors (e.g. the model's path)
};

Status RunPipeline(Graph& g, Stage target, const OpTable& ops, const PipelineOptions& opts);

}  // namespace atenaot
