#include "passes/pipeline.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <set>

#include "ir/verifier.h"
#include "passes/dce.h"
#include "passes/decompose.h"
#include "passes/functionalize.h"
#include "passes/reinplace.h"

namespace atenaot {
namespace {

// Entry points with the registry's signature: options in, counters out.
Status FunctionalizePass(Graph& g, const OpTable& ops, const PassOptions&, PassStats*) {
  return Functionalize(g, ops, {});
}
Status FunctionalizeNoViewsPass(Graph& g, const OpTable& ops, const PassOptions&, PassStats*) {
  return Functionalize(g, ops, {.remove_views = true});
}
Status DcePass(Graph& g, const OpTable& ops, const PassOptions&, PassStats*) { return EliminateDeadCode(g, ops); }
Status ReinplacePass(Graph& g, const OpTable& ops, const PassOptions& o, PassStats* stats) {
  ReinplaceOptions ro;
  ro.reuse_restored_inputs = o.Flag("reuse-restored-inputs");
  ro.fuse_cast_back = o.Flag("fuse-cast-back");
  ReinplaceStats rs;
  AOT_RETURN_IF_ERROR(Reinplace(g, ops, ro, &rs));
  *stats = {{"inplaced", rs.inplaced},
            {"scatters-replaced", rs.scatters_replaced},
            {"scatters-deleted", rs.scatters_deleted},
            {"into-inputs", rs.into_inputs},
            {"casts-fused", rs.casts_fused},
            {"restores-deleted", rs.restores_deleted}};
  return Status::Ok();
}
Status DecomposePass(Graph& g, const OpTable& ops, const PassOptions&, PassStats*) { return Decompose(g, ops); }

Status NoCheck(const Graph&) { return Status::Ok(); }
Status CheckNoMutations(const Graph& g) { return CheckFunctional(g, /*no_views=*/false); }
Status CheckNoMutationsOrViews(const Graph& g) { return CheckFunctional(g, /*no_views=*/true); }
Status CheckNoDeadNodes(const Graph& g) {
  for (const Node* n : g.nodes()) {
    bool used = n->op().Writes();
    for (const Value* o : n->outputs()) used |= !o->uses().empty();
    if (!used) return Internal("node '" + n->op().qualified_name + "' is dead but was not removed");
  }
  return Status::Ok();
}
Status CheckDecomposed(const Graph& g) {
  const std::vector<std::string> names = DecomposedOps();
  const std::set<std::string> decomposed(names.begin(), names.end());
  for (const Node* n : g.nodes())
    if (decomposed.count(n->op().qualified_name))
      return Internal("node '" + n->op().qualified_name + "' should have been decomposed");
  return Status::Ok();
}

using PassFn = Status (*)(Graph&, const OpTable&, const PassOptions&, PassStats*);
using CheckFn = Status (*)(const Graph&);

struct PassRow {
  const char* name;
  PassFn fn;
  CheckFn ensures;
};

const std::vector<PassRow>& PassTable() {
  static const std::vector<PassRow> rows = {
#define PASS(cli_name, fn, ensures, summary) {cli_name, &fn, &ensures},
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

const PassInfo* FindInfo(const std::string& name) {
  for (const PassInfo& p : RegisteredPasses())
    if (name == p.name) return &p;
  return nullptr;
}

std::string PassNames() {
  std::string s;
  for (const PassInfo& p : RegisteredPasses()) s += (s.empty() ? "" : ", ") + p.name;
  return s;
}

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

}  // namespace

bool PassOptions::Flag(const std::string& key) const {
  auto it = values_.find(key);
  return it != values_.end() && it->second;
}

const std::vector<PassInfo>& RegisteredPasses() {
  static const std::vector<PassInfo> infos = [] {
    std::vector<PassInfo> v;
#define PASS(cli_name, fn, ensures, summary) v.push_back({cli_name, summary, {}});
#define PASS_OPTION(pass, key, default_value, help) \
  for (PassInfo & p : v)                            \
    if (p.name == pass) p.options.push_back({key, default_value, help});
#include "passes/pass_registry.def"
#undef PASS
    return v;
  }();
  return infos;
}

std::string PassListHelp() {
  std::string s;
  for (const PassInfo& p : RegisteredPasses()) {
    std::string name = "  " + p.name;
    name.resize(std::max<size_t>(name.size() + 1, 24), ' ');
    s += name + p.summary + "\n";
    for (const PassOptionInfo& o : p.options)
      s += "      {" + o.key + "=" + (o.default_value ? "true" : "false") + "}  " + o.help + "\n";
  }
  return s;
}

StatusOr<PassSpec> MakePassSpec(const std::string& name) {
  const PassInfo* info = FindInfo(name);
  if (!info) return InvalidArgument("unknown pass '" + name + "' (passes: " + PassNames() + ")");
  PassSpec spec{name, {}};
  for (const PassOptionInfo& o : info->options) spec.options.Set(o.key, o.default_value);
  return spec;
}

StatusOr<std::vector<PassSpec>> ParsePassList(const std::string& text) {
  std::vector<PassSpec> out;
  size_t i = 0;
  while (i <= text.size()) {
    size_t end = text.find_first_of(",{", i);
    if (end == std::string::npos) end = text.size();
    const std::string name = text.substr(i, end - i);
    if (name.empty()) return InvalidArgument("empty pass name in pass list '" + text + "'");
    AOT_ASSIGN_OR_RETURN(PassSpec spec, MakePassSpec(name));
    i = end;
    if (i < text.size() && text[i] == '{') {
      const size_t close = text.find('}', i);
      if (close == std::string::npos) return InvalidArgument("missing '}' after options of pass '" + name + "'");
      const std::string body = text.substr(i + 1, close - i - 1);
      for (size_t k = 0; k <= body.size();) {
        size_t comma = body.find(',', k);
        if (comma == std::string::npos) comma = body.size();
        const std::string kv = body.substr(k, comma - k);
        const size_t eq = kv.find('=');
        const std::string key = kv.substr(0, eq), value = eq == std::string::npos ? "" : kv.substr(eq + 1);
        if (!spec.options.values().count(key))
          return InvalidArgument("pass '" + name + "' has no option '" + key + "'");
        if (value != "true" && value != "false" && value != "1" && value != "0")
          return InvalidArgument("option '" + key + "' of pass '" + name + "' needs =true or =false, got '" + kv + "'");
        spec.options.Set(key, value == "true" || value == "1");
        k = comma + 1;
      }
      i = close + 1;
    }
    out.push_back(std::move(spec));
    if (i >= text.size()) break;
    if (text[i] != ',') return InvalidArgument("expected ',' after pass '" + name + "' in '" + text + "'");
    ++i;
    if (i == text.size()) return InvalidArgument("pass list '" + text + "' ends with ','");
  }
  return out;
}

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

// The counters every pass reports: what the graph holds before and after.
void CountNodes(const Graph& g, int64_t* nodes, int64_t* writes, int64_t* views) {
  *nodes = *writes = *views = 0;
  for (const Node* n : g.nodes()) {
    ++*nodes;
    *writes += n->op().Writes();
    *views += n->op().IsView();
  }
}

Status RunPassList(Graph& g, const std::vector<PassSpec>& passes, const OpTable& ops, const PipelineOptions& opts) {
  for (const PassSpec& p : passes)
    if (!FindPass(p.name)) return Unsupported("the '" + p.name + "' pass is not registered");
  auto timed = [&](const std::string& what, auto&& body) -> Status {
    auto t0 = std::chrono::steady_clock::now();
    Status s = body();
    double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    if (opts.timing) *opts.timing << "time: " << what << " " << ms << " ms\n";
    return s;
  };
  if (opts.verify_each_pass)
    AOT_RETURN_IF_ERROR(
        timed("verify", [&] { return VerifyGraph(g, opts.verify); }).WithContext("verifier (input graph)"));
  for (size_t k = 0; k < passes.size(); ++k) {
    const PassSpec& p = passes[k];
    const PassRow* row = FindPass(p.name);
    int64_t n0, w0, v0, n1, w1, v1;
    CountNodes(g, &n0, &w0, &v0);
    PassStats own;
    AOT_RETURN_IF_ERROR(timed(p.name, [&] { return row->fn(g, ops, p.options, &own); }).WithContext("pass " + p.name));
    if (opts.verify_each_pass) {
      if (!opts.verify_ends_only || k + 1 == passes.size())
        AOT_RETURN_IF_ERROR(
            timed("verify", [&] { return VerifyGraph(g, opts.verify); }).WithContext("verifier after " + p.name));
      AOT_RETURN_IF_ERROR(row->ensures(g).WithContext("postcondition of " + p.name));
    }
    if (opts.stats) {
      CountNodes(g, &n1, &w1, &v1);
      PassStats all = {{"nodes-before", n0}, {"nodes-after", n1},  {"writes-before", w0},
                       {"writes-after", w1}, {"views-before", v0}, {"views-after", v1}};
      all.insert(all.end(), own.begin(), own.end());
      opts.stats->push_back({p.name, std::move(all)});
    }
    if (opts.after_pass) opts.after_pass(p.name, g);
  }
  return Status::Ok();
}

}  // namespace

Status RunPasses(Graph& g, const std::vector<PassSpec>& passes, const OpTable& ops, const PipelineOptions& opts) {
  Status s = RunPassList(g, passes, ops, opts);
  return opts.context.empty() ? s : s.WithContext("'" + opts.context + "'");
}

Status RunPipeline(Graph& g, Stage target, const OpTable& ops, const PipelineOptions& opts) {
  std::vector<PassSpec> passes;
  for (const std::string& name : PassesForStage(target)) {
    StatusOr<PassSpec> spec = MakePassSpec(name);
    if (!spec.ok())
      return Unsupported(std::string("stage '") + StageName(target) + "' needs the '" + name +
                         "' pass, which is not registered");
    passes.push_back(std::move(*spec));
  }
  return RunPasses(g, passes, ops, opts);
}

}  // namespace atenaot
