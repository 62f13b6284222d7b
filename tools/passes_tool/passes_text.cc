#include "tools/passes_tool/passes_text.h"

#include <memory>
#include <vector>

#include "ir/op_table.h"
#include "ir/parser.h"
#include "ir/printer.h"
#include "passes/pipeline.h"
#include "tools/passes_tool/snapshot_schemas.h"

namespace atenaot {
namespace {

// Built on first use and kept (never destroyed): the library reuses it on
// every call, and the tool skips tearing it down at exit.
const OpTable& SnapshotOps() {
  static const OpTable* ops =
      OpTable::FromSchemaStrings(std::vector<std::string>(kSnapshotSchemas, kSnapshotSchemas + kNumSnapshotSchemas))
          .release();
  return *ops;
}

int Fail(std::ostream& err, const std::string& msg, int code) {
  err << "atenaot: error: " << msg << "\n";
  return code;
}

}  // namespace

int RunPassesOnText(const std::string& text, const std::string& stage_name, const TextPassOptions& opts,
                    const std::string& context, std::string* out, std::ostream& err) {
  StatusOr<Stage> stage = ParseStage(stage_name);
  if (!stage.ok()) return Fail(err, stage.status().ToString(), 2);
  const OpTable& ops = SnapshotOps();
  auto g = ParseGraph(text, ops);
  if (!g.ok()) return Fail(err, g.status().WithContext("'" + context + "'").ToString(), 1);
  if (!(*g)->weight_values().empty())
    return Fail(err, "'" + context + "' has weights; atenaot-passes takes graphs without weights (use atenaot dump)",
                1);
  PipelineOptions popts;
  popts.context = context;
  if (opts.time_passes) popts.timing = &err;
  popts.verify_ends_only = opts.verify_ends_only;
  Status s = RunPipeline(**g, *stage, ops, popts);
  if (!s.ok()) return Fail(err, s.ToString(), 1);
  *out = PrintGraph(**g);
  return 0;
}

}  // namespace atenaot
