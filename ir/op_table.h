// OpTable: the facts passes need about every ATen operator, derived from the
// schemas (never hand-written per op): which arguments an op writes, which
// returns alias which arguments (views), the functional twin of in-place and
// out= ops, the *_copy twin of views, and the view -> scatter inverse.
#pragma once

#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "ir/schema.h"
#include "ir/status.h"

namespace atenaot {

enum class OpKind {
  kFunctional,    // no alias annotation anywhere
  kView,          // some return aliases an argument, nothing is written
  kInplace,       // writes arg 0 (self) and returns it
  kOut,           // has out= arguments
  kOtherMutable,  // any other write (e.g. _foreach_add_)
  kOther,         // wildcard aliasing or unmodelled types
};

const char* OpKindName(OpKind k);

struct OpInfo {
  OpSchema schema;
  std::string qualified_name;  // "aten::add_.Tensor"
  OpKind kind = OpKind::kFunctional;
  std::vector<int> written_args;      // indices of (a!) arguments
  std::vector<int> return_alias_arg;  // per return: aliased argument index or -1
  // Twins (nullptr when none). Filled by OpTable after all schemas are known.
  const OpInfo* functional = nullptr;    // add_ / add.out -> add.Tensor; index_put_ -> index_put
  const OpInfo* inplace = nullptr;       // add.Tensor -> add_.Tensor (inverse of the above)
  const OpInfo* view_copy = nullptr;     // select.int -> select_copy.int
  const OpInfo* view_of_copy = nullptr;  // select_copy.int -> select.int
  const OpInfo* scatter = nullptr;       // select.int -> select_scatter
  const OpInfo* scatter_view = nullptr;  // select_scatter -> select.int

  bool Writes() const { return !written_args.empty(); }
  bool IsView() const { return kind == OpKind::kView; }
  // Arguments and returns whose types the IR can represent.
  bool Representable() const;
};

class OpTable {
 public:
  // Builds the table from schema strings (as c10 prints them). Lines that fail
  // to parse are skipped and counted in parse_failures().
  static std::unique_ptr<OpTable> FromSchemaStrings(const std::vector<std::string>& schemas);
  // Reads one schema per line (the committed snapshot format).
  static StatusOr<std::unique_ptr<OpTable>> FromSnapshotFile(const std::string& path);

  // "aten::add.Tensor" or "aten::add" (default overload).
  const OpInfo* Find(const std::string& qualified_name) const;
  // All overloads of "aten::add".
  std::vector<const OpInfo*> Overloads(const std::string& base_name) const;
  size_t size() const { return ops_.size(); }
  int parse_failures() const { return parse_failures_; }
  const std::vector<std::unique_ptr<OpInfo>>& ops() const { return ops_; }

 private:
  void Classify(OpInfo* op);
  void LinkTwins();

  std::vector<std::unique_ptr<OpInfo>> ops_;
  std::unordered_map<std::string, OpInfo*> by_name_;
  std::unordered_map<std::string, std::vector<OpInfo*>> by_base_;
  int parse_failures_ = 0;
};

}  // namespace atenaot
