#include "ir/op_table.h"

#include <fstream>

namespace atenaot {

const char* OpKindName(OpKind k) {
  switch (k) {
    case OpKind::kFunctional:
      return "functional";
    case OpKind::kView:
      return "view";
    case OpKind::kInplace:
      return "inplace";
    case OpKind::kOut:
      return "out";
    case OpKind::kOtherMutable:
      return "other_mutable";
    case OpKind::kOther:
      return "other";
  }
  return "?";
}

bool OpInfo::Representable() const {
  for (const SchemaArg& a : schema.args)
    if (a.type.base == BaseType::kOther || a.type.base == BaseType::kDimname ||
        (a.type.base == BaseType::kGenerator && !a.type.optional))
      return false;
  for (const SchemaArg& r : schema.returns)
    if (r.type.base != BaseType::kTensor) return false;
  return !schema.vararg;
}

std::unique_ptr<OpTable> OpTable::FromSchemaStrings(const std::vector<std::string>& schemas) {
  auto t = std::unique_ptr<OpTable>(new OpTable());
  for (const std::string& line : schemas) {
    if (line.empty() || line[0] == '#') continue;
    StatusOr<OpSchema> s = ParseSchema(line);
    if (!s.ok()) {
      ++t->parse_failures_;
      continue;
    }
    auto op = std::make_unique<OpInfo>();
    op->schema = std::move(s).value();
    op->qualified_name = op->schema.QualifiedName();
    t->Classify(op.get());
    if (t->by_name_.count(op->qualified_name)) continue;  // first one wins
    t->by_name_[op->qualified_name] = op.get();
    t->by_base_[op->schema.BaseName()].push_back(op.get());
    t->ops_.push_back(std::move(op));
  }
  t->LinkTwins();
  return t;
}

StatusOr<std::unique_ptr<OpTable>> OpTable::FromSnapshotFile(const std::string& path) {
  std::ifstream in(path);
  if (!in) return IoError("cannot open schema snapshot '" + path + "'");
  std::vector<std::string> lines;
  std::string line;
  while (std::getline(in, line)) lines.push_back(line);
  return FromSchemaStrings(lines);
}

const OpInfo* OpTable::Find(const std::string& qualified_name) const {
  auto it = by_name_.find(qualified_name);
  return it == by_name_.end() ? nullptr : it->second;
}

std::vector<const OpInfo*> OpTable::Overloads(const std::string& base_name) const {
  auto it = by_base_.find(base_name);
  if (it == by_base_.end()) return {};
  return std::vector<const OpInfo*>(it->second.begin(), it->second.end());
}

void OpTable::Classify(OpInfo* op) {
  const OpSchema& s = op->schema;
  bool any_alias = false, wildcard = false, any_out = false;
  for (size_t i = 0; i < s.args.size(); ++i) {
    const SchemaAlias& a = s.args[i].alias;
    if (a.set.empty() && !a.wildcard) continue;
    any_alias = true;
    // "Tensor(a -> *) self" (split, unbind) still names set a; only a bare "*" is unmodelled.
    wildcard |= a.wildcard && a.set.empty();
    if (a.write) {
      op->written_args.push_back(static_cast<int>(i));
      if (s.args[i].kwarg_only) any_out = true;
    }
  }
  for (const SchemaArg& r : s.returns) {
    int aliased = -1;
    if (!r.alias.set.empty()) {
      any_alias = true;
      for (size_t i = 0; i < s.args.size(); ++i)
        if (s.args[i].alias.set == r.alias.set) aliased = static_cast<int>(i);
    }
    wildcard |= r.alias.wildcard && r.alias.set.empty();
    op->return_alias_arg.push_back(aliased);
  }
  if (wildcard)
    op->kind = OpKind::kOther;
  else if (any_out)
    op->kind = OpKind::kOut;
  else if (op->written_args.size() == 1 && op->written_args[0] == 0 && s.returns.size() == 1 &&
           op->return_alias_arg[0] == 0)
    op->kind = OpKind::kInplace;
  else if (!op->written_args.empty())
    op->kind = OpKind::kOtherMutable;
  else if (any_alias)
    op->kind = OpKind::kView;
  else
    op->kind = OpKind::kFunctional;
}

namespace {

// Same types, names ignored, alias annotations ignored.
bool SameType(const SchemaType& a, const SchemaType& b) {
  return a.base == b.base && a.list == b.list && a.optional == b.optional && a.elem_optional == b.elem_optional;
}

// True when `twin` takes exactly `args`: same order, types and keyword-only
// positions, and no alias annotation in the twin where `args` have none (the
// written or viewed argument is unannotated in the twin). Names are compared only when `names` is
// set: in-place ops often call self what their twin calls input
// (dropout_(self) vs dropout(input)), so a type match is the fallback.
bool ArgsMatch(const std::vector<const SchemaArg*>& args, const OpSchema& twin, size_t twin_skip, bool names) {
  if (twin.args.size() < twin_skip || twin.args.size() - twin_skip != args.size()) return false;
  for (size_t i = 0; i < args.size(); ++i) {
    const SchemaArg& t = twin.args[i + twin_skip];
    if (!SameType(args[i]->type, t.type) || args[i]->kwarg_only != t.kwarg_only) return false;
    if (names && args[i]->name != t.name) return false;
    const SchemaAlias& a = args[i]->alias;
    if (a.set.empty() && !a.wildcard && (!t.alias.set.empty() || t.alias.wildcard)) return false;
  }
  return true;
}

// The first candidate accepted by `ok` whose arguments match `args` by name
// and type, else the first that matches by type alone.
template <typename Ok>
OpInfo* FindTwin(const std::vector<OpInfo*>& cands, const std::vector<const SchemaArg*>& args, size_t skip, Ok ok) {
  for (bool names : {true, false})
    for (OpInfo* cand : cands)
      if (ok(cand) && ArgsMatch(args, cand->schema, skip, names)) return cand;
  return nullptr;
}

std::vector<const SchemaArg*> ArgPtrs(const OpSchema& s, size_t skip, bool drop_out) {
  std::vector<const SchemaArg*> v;
  for (size_t i = skip; i < s.args.size(); ++i) {
    const SchemaArg& a = s.args[i];
    if (drop_out && a.kwarg_only && a.alias.write) continue;
    v.push_back(&a);
  }
  return v;
}

}  // namespace

void OpTable::LinkTwins() {
  for (auto& up : ops_) {
    OpInfo* op = up.get();
    const OpSchema& s = op->schema;
    if (op->kind == OpKind::kInplace && s.name.size() > 1 && s.name.back() == '_') {
      // foo_.ov -> the functional overload of foo with the same arguments.
      std::string base = s.ns + "::" + s.name.substr(0, s.name.size() - 1);
      // In-place view ops (transpose_, squeeze_) change metadata only: their twin is the view.
      OpInfo* cand = FindTwin(by_base_[base], ArgPtrs(s, 0, false), 0, [](const OpInfo* c) {
        return (c->kind == OpKind::kFunctional || c->kind == OpKind::kView) && c->schema.returns.size() == 1;
      });
      if (cand) {
        op->functional = cand;
        if (!cand->inplace) cand->inplace = op;
      }
    } else if (op->kind == OpKind::kOut) {
      op->functional = FindTwin(by_base_[s.BaseName()], ArgPtrs(s, 0, true), 0, [&](const OpInfo* c) {
        return c->kind == OpKind::kFunctional && c->schema.returns.size() == s.returns.size();
      });
    } else if (op->kind == OpKind::kView) {
      // view.ov -> view_copy.ov with the same arguments.
      OpInfo* copy = FindTwin(by_base_[s.ns + "::" + s.name + "_copy"], ArgPtrs(s, 0, false), 0, [&](const OpInfo* c) {
        return c->kind == OpKind::kFunctional && c->schema.overload == s.overload;
      });
      if (copy) {
        op->view_copy = copy;
        copy->view_of_copy = op;
      }
      // view(self, args...) -> view_scatter(self, src, args...).
      OpInfo* scatter =
          FindTwin(by_base_[s.ns + "::" + s.name + "_scatter"], ArgPtrs(s, 1, false), 2,
                   [](const OpInfo* c) { return c->kind == OpKind::kFunctional && c->schema.args.size() >= 2; });
      if (scatter) {
        op->scatter = scatter;
        scatter->scatter_view = op;
      }
    }
  }
}

}  // namespace atenaot
