#include "ir/graph.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <numeric>

namespace atenaot {

std::vector<int64_t> ContiguousStrides(const std::vector<int64_t>& sizes) {
  std::vector<int64_t> st(sizes.size());
  int64_t acc = 1;
  for (size_t i = sizes.size(); i-- > 0;) {
    st[i] = acc;
    // Saturates instead of overflowing on sizes no real tensor has (SizeError rejects them).
    if (__builtin_mul_overflow(acc, std::max<int64_t>(sizes[i], 1), &acc)) acc = INT64_MAX;
  }
  return st;
}

int64_t TensorMeta::numel() const {
  // Unsigned, so a size no reader lets through (SizeError) wraps instead of being UB.
  uint64_t n = 1;
  for (int64_t s : sizes) n *= static_cast<uint64_t>(s);
  return static_cast<int64_t>(n);
}

std::string TensorMeta::SizeError() const {
  const int64_t limit = kMaxTensorBytes / DTypeSize(dtype);  // in elements
  for (int64_t s : sizes)
    if (s < 0) return "negative size " + std::to_string(s);
  // Zero-size dimensions count as 1 here, so huge sizes next to a 0 are
  // bounded too (strides are derived from them).
  int64_t n = 1, last = 0;  // element count; largest element offset reached
  for (size_t i = 0; i < sizes.size(); ++i) {
    const int64_t s = std::max<int64_t>(sizes[i], 1);
    if (__builtin_mul_overflow(n, s, &n) || n > limit) return "more than 2^48 bytes of elements";
    const int64_t st = i < strides.size() ? strides[i] : 0;
    int64_t reach = 0;
    if (st == INT64_MIN || __builtin_mul_overflow(s - 1, std::abs(st), &reach) ||
        __builtin_add_overflow(last, reach, &last) || last >= limit)
      return "strides that reach more than 2^48 bytes";
  }
  if (offset == INT64_MIN || std::abs(offset) >= limit - last) return "a storage offset beyond 2^48 bytes";
  return "";
}

bool TensorMeta::IsContiguous() const {
  // Size-1 dimensions may carry any stride, and an empty tensor is
  // contiguous whatever its strides (no element to place), as in ATen.
  if (numel() == 0) return true;
  int64_t expected = 1;
  for (size_t i = sizes.size(); i-- > 0;) {
    if (sizes[i] == 1) continue;
    if (strides[i] != expected) return false;
    expected *= sizes[i];
  }
  return true;
}

int64_t TensorMeta::SpanBytes() const {
  if (numel() == 0) return 0;
  int64_t last = 0;
  for (size_t i = 0; i < sizes.size(); ++i) last += (sizes[i] - 1) * std::abs(strides[i]);
  return (last + 1) * DTypeSize(dtype);
}

bool TensorMeta::HasInternalOverlap() const {
  if (numel() <= 1) return false;
  // Sort the non-trivial dims by stride; each stride must exceed the span of
  // all smaller ones, else two indices can meet (sufficient, as in ATen).
  std::vector<std::pair<int64_t, int64_t>> dims;  // (|stride|, size)
  for (size_t i = 0; i < sizes.size(); ++i)
    if (sizes[i] > 1) dims.push_back({std::abs(strides[i]), sizes[i]});
  std::sort(dims.begin(), dims.end());
  int64_t span = 0;  // max offset reachable with the dims seen so far
  for (auto [stride, size] : dims) {
    if (stride == 0 || stride <= span) return true;
    span += stride * (size - 1);
  }
  return false;
}

std::string TensorMeta::ToString() const {
  std::string s = DTypeName(dtype);
  s += "[";
  for (size_t i = 0; i < sizes.size(); ++i) s += (i ? "," : "") + std::to_string(sizes[i]);
  s += "]";
  if (strides != ContiguousStrides(sizes)) {
    s += "{";
    for (size_t i = 0; i < strides.size(); ++i) s += (i ? "," : "") + std::to_string(strides[i]);
    s += "}";
  }
  if (offset != 0) s += "+" + std::to_string(offset);
  return s;
}

std::vector<Value*> Node::InputValues() const {
  std::vector<Value*> vs;
  for (const Arg& a : args_) {
    if (a.kind == Arg::Kind::kValue) vs.push_back(a.value);
    if (a.kind == Arg::Kind::kValueList)
      for (Value* v : a.list)
        if (v) vs.push_back(v);
  }
  return vs;
}

void Graph::AddUse(Value* v, const Use& u, int* slot) {
  *slot = static_cast<int>(v->uses_.size());
  v->uses_.push_back(u);
}

// Swap-with-last removal; the moved use's owner learns its new slot.
void Graph::RemoveUse(Value* v, int slot) {
  auto& uses = v->uses_;
  const size_t k = static_cast<size_t>(slot);
  uses[k] = uses.back();
  uses.pop_back();
  if (k == uses.size()) return;
  const Use& moved = uses[k];
  if (!moved.user) {
    output_use_slots_[static_cast<size_t>(moved.arg)] = slot;
  } else {
    Arg& a = moved.user->args_[static_cast<size_t>(moved.arg)];
    if (moved.elem < 0)
      a.use_slot = slot;
    else
      a.list_use_slots[static_cast<size_t>(moved.elem)] = slot;
  }
}

void Graph::AddArgUses(Node* n, int i) {
  Arg& a = n->args_[static_cast<size_t>(i)];
  if (a.kind == Arg::Kind::kValue) AddUse(a.value, {n, i, -1}, &a.use_slot);
  if (a.kind == Arg::Kind::kValueList) {
    a.list_use_slots.assign(a.list.size(), -1);
    for (size_t k = 0; k < a.list.size(); ++k)
      if (a.list[k]) AddUse(a.list[k], {n, i, static_cast<int>(k)}, &a.list_use_slots[k]);
  }
}

void Graph::DropArgUses(Node* n, int i) {
  Arg& a = n->args_[static_cast<size_t>(i)];
  if (a.kind == Arg::Kind::kValue) RemoveUse(a.value, a.use_slot);
  if (a.kind == Arg::Kind::kValueList)
    for (size_t k = 0; k < a.list.size(); ++k)
      if (a.list[k]) RemoveUse(a.list[k], a.list_use_slots[k]);
}

void Graph::SetArg(Node* n, int i, Arg a) {
  DropArgUses(n, i);
  n->args_[static_cast<size_t>(i)] = std::move(a);
  AddArgUses(n, i);
}

std::string NodeText(const Node* n) {
  std::string s = n->op().qualified_name;
  if (!n->outputs().empty()) s = "%" + n->output()->name() + " = " + s;
  return s;
}

std::string DescribeNode(const Node* n) { return "node '" + NodeText(n) + "'"; }

Value* Graph::NewValue(const std::string& name, ValueKind kind) {
  auto v = std::make_unique<Value>();
  v->name_ = name.empty() ? FreshName() : name;
  v->kind_ = kind;
  v->id_ = static_cast<int64_t>(values_.size());
  by_name_[v->name_] = v.get();
  values_.push_back(std::move(v));
  return values_.back().get();
}

Value* Graph::AddInput(const std::string& name, const TensorMeta& meta) {
  Value* v = NewValue(name, ValueKind::kInput);
  v->meta_ = meta;
  NoteStorageId(meta.storage);
  inputs_.push_back(v);
  return v;
}

Value* Graph::AddWeight(const std::string& name, const std::string& key, const TensorMeta& meta) {
  Value* v = NewValue(name, ValueKind::kWeight);
  v->meta_ = meta;
  v->weight_key_ = key;
  NoteStorageId(meta.storage);
  weight_values_.push_back(v);
  return v;
}

Node* Graph::CreateNode(const OpInfo* op, std::vector<Arg> args, int num_outputs, Node* before) {
  auto n = std::make_unique<Node>();
  n->op_ = op;
  n->args_ = std::move(args);
  n->id_ = next_node_id_++;
  Node* raw = n.get();
  nodes_.push_back(std::move(n));
  for (int i = 0; i < num_outputs; ++i) {
    Value* v = NewValue("", ValueKind::kNodeOutput);
    v->producer_ = raw;
    v->output_index_ = i;
    raw->outputs_.push_back(v);
  }
  for (int i = 0; i < static_cast<int>(raw->args_.size()); ++i) AddArgUses(raw, i);
  LinkBefore(raw, before);
  ++num_nodes_;
  return raw;
}

// Links an unlinked n into the order list before `before` (at the end for
// nullptr).
void Graph::LinkBefore(Node* n, Node* before) {
  n->next_ = before;
  n->prev_ = before ? before->prev_ : tail_;
  if (n->prev_)
    n->prev_->next_ = n;
  else
    head_ = n;
  if (before)
    before->prev_ = n;
  else
    tail_ = n;
}

// Takes n out of the order list (its own links are left as they were).
void Graph::Unlink(Node* n) {
  if (n->prev_)
    n->prev_->next_ = n->next_;
  else
    head_ = n->next_;
  if (n->next_)
    n->next_->prev_ = n->prev_;
  else
    tail_ = n->prev_;
}

void Graph::MoveBefore(Node* n, Node* before) {
  if (n == before) return;
  Unlink(n);
  LinkBefore(n, before);
}

void Graph::Destroy(Node* n) {
  for (int i = 0; i < static_cast<int>(n->args_.size()); ++i) DropArgUses(n, i);
  Unlink(n);
  n->prev_ = n->next_ = nullptr;
  n->alive_ = false;
  for (Value* v : n->outputs_) by_name_.erase(v->name_);
  --num_nodes_;
}

void Graph::ReplaceAllUsesWith(Value* from, Value* to) {
  if (from == to) return;
  std::vector<Use> uses = std::move(from->uses_);
  from->uses_.clear();
  for (const Use& u : uses) {
    if (!u.user) {
      outputs_[static_cast<size_t>(u.arg)] = to;
      AddUse(to, u, &output_use_slots_[static_cast<size_t>(u.arg)]);
    } else {
      Arg& a = u.user->args_[static_cast<size_t>(u.arg)];
      if (u.elem < 0) {
        a.value = to;
        AddUse(to, u, &a.use_slot);
      } else {
        a.list[static_cast<size_t>(u.elem)] = to;
        AddUse(to, u, &a.list_use_slots[static_cast<size_t>(u.elem)]);
      }
    }
  }
}

void Graph::SetOutputs(std::vector<Value*> flat, OutputTree tree) {
  for (size_t i = 0; i < outputs_.size(); ++i) RemoveUse(outputs_[i], output_use_slots_[i]);
  outputs_ = std::move(flat);
  output_tree_ = std::move(tree);
  output_use_slots_.assign(outputs_.size(), -1);
  for (size_t i = 0; i < outputs_.size(); ++i)
    AddUse(outputs_[i], {nullptr, static_cast<int>(i), -1}, &output_use_slots_[i]);
}

void Graph::SetOutput(int i, Value* v) {
  const size_t k = static_cast<size_t>(i);
  RemoveUse(outputs_[k], output_use_slots_[k]);
  outputs_[k] = v;
  AddUse(v, {nullptr, i, -1}, &output_use_slots_[k]);
}

void Graph::Renumber() {
  int64_t k = 0;
  for (Node* n = head_; n; n = n->next_) n->order_ = k++;
}

std::vector<Node*> Graph::NodesSnapshot() const {
  std::vector<Node*> v;
  v.reserve(static_cast<size_t>(num_nodes_));
  for (Node* n = head_; n; n = n->next_) v.push_back(n);
  return v;
}

std::string Graph::FreshName() {
  std::string n;
  do {
    n = std::to_string(next_name_++);
  } while (by_name_.count(n));
  return n;
}

Value* Graph::FindValue(const std::string& name) const {
  auto it = by_name_.find(name);
  return it == by_name_.end() ? nullptr : it->second;
}

bool Graph::RenameValue(Value* v, const std::string& name) {
  if (v->name_ == name) return true;
  if (by_name_.count(name)) return false;
  by_name_.erase(v->name_);
  v->name_ = name;
  by_name_[name] = v;
  return true;
}

}  // namespace atenaot
