#include "passes/pipeline.h"

#include <chrono>
#include <cstdio>

#include "ir/verifier.h"
#include "passes/dce.h"
#include "passes/functionalize.h"
#include "passes/reinplace.h"

namespace atenaot {
namespace {

// Entry points with the registry's signature.
Status FunctionalizeMutations(Graph& g, const OpTable& ops) { return Functionalize(g, ops, {}); }
Status FunctionalizeMutationsAndViews(Graph& g, const OpTable& ops) {
  return Functionalize(g, ops, {.remove_views = true});
}
Status ReinplaceDefault(Graph& g, const OpTable& ops) { return Reinplace(g, ops); }
Status NoCheck(const Graph&) { return Status::Ok(); }
Status CheckNoMutations(const Graph& g) { return CheckFunctional(g, /*no_views=*/false); }
Status CheckNoMutationsOrViews(const Graph& g) { return CheckFunctional(g, /*no_views=*/true); }

struct StageRow {
  Stage stage;
  const char* name;
  std::vector<std::string> passes;
};

const std::vector<StageRow>& StageTable() {
  static const std::vector<StageRow> rows = {
      {Stage::kImport, "import", {}},
      {Stage::kFunctional, "functional", {"functionalize", "dce"}},
      {Stage::kFunctionalNoViews, "functional-noviews", {"functionalize-noviews", "dce"}},
      {Stage::kReinplaced, "reinplaced", {"functionalize", "dce", "reinplace", "dce"}},
  };
  return rows;
}

using PassFn = Status (*)(Graph&, const OpTable&);
using CheckFn = Status (*)(const Graph&);

struct PassRow {
  const char* name;
  PassFn fn;
  CheckFn ensures;
  const char* summary;
};

const std::vector<PassRow>& PassTable() {
  static const std::vector<PassRow> rows = {
#define PASS(cli_name, fn, ensures, summary) {cli_name, &fn, &ensures, summary},
#include "passes/pass_registry.def"
#undef PASS
  };
  return rows;
}

const PassRow* FindPass(const std::string& name) {
  for (const PassRow& r : PassTable())
    if (name == r.name) return &r;
  return nullptr;
}

}  // namespace

const char* StageName(Stage s) {
  for (const StageRow& r : StageTable())
    if (r.stage == s) return r.name;
  return "?";
}

std::string StageNames() {
  std::string s;
  for (const StageRow& r : StageTable()) s += (s.empty() ? "" : ", ") + std::string(r.name);
  return s;
}

StatusOr<Stage> ParseStage(const std::string& name) {
  for (const StageRow& r : StageTable())
    if (name == r.name) return r.stage;
  return InvalidArgument("unknown stage '" + name + "' (stages: " + StageNames() + ")");
}

std::vector<std::string> PassesForStage(Stage s) {
  for (const StageRow& r : StageTable())
    if (r.stage == s) return r.passes;
  return {};
}

namespace {

Status RunPasses(Graph& g, Stage target, const OpTable& ops, const PipelineOptions& opts) {
  const std::vector<std::string> passes = PassesForStage(target);
  for (const std::string& p : passes)
    if (!FindPass(p))
      return Unsupported(std::string("stage '") + StageName(target) + "' needs the '" + p +
                         "' pass, which is not implemented yet");
  auto timed = [&](const std::string& what, auto&& body) -> Status {
    auto t0 = std::chrono::steady_clock::now();
    Status s = body();
    double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    if (opts.timing) *opts.timing << "time: " << what << " " << ms << " ms\n";
    return s;
  };
  if (opts.verify_each_pass)
    AOT_RETURN_IF_ERROR(timed("verify", [&] { return VerifyGraph(g); }).WithContext("verifier (input graph)"));
  for (const std::string& p : passes) {
    const PassRow* row = FindPass(p);
    AOT_RETURN_IF_ERROR(timed(p, [&] { return row->fn(g, ops); }).WithContext("pass " + p));
    if (opts.verify_each_pass) {
      AOT_RETURN_IF_ERROR(timed("verify", [&] { return VerifyGraph(g); }).WithContext("verifier after " + p));
      AOT_RETURN_IF_ERROR(row->ensures(g).WithContext("postcondition of " + p));
    }
  }
  return Status::Ok();
}

}  // namespace

Status RunPipeline(Graph& g, Stage target, const OpTable& ops, const PipelineOptions& opts) {
  Status s = RunPasses(g, target, ops, opts);
  return opts.context.empty() ? s : s.WithContext("'" + opts.context + "'");
}

}  // namespace atenaot
