// The atenaot graph IR: one generic Node type whose op points into the
// OpTable, tensor Values that carry capture-time metadata (dtype, sizes,
// strides, storage offset, storage id), literal arguments, graph inputs,
// weights (data kept in a side table, never printed inline) and an output
// tree (tuples/lists flattened to values, structure kept).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "ir/dtype.h"
#include "ir/literal.h"
#include "ir/op_table.h"

namespace atenaot {

class Node;
class Value;

// 2^48 bytes (256 TiB): far above any real tensor, far below int64 overflow.
constexpr int64_t kMaxTensorBytes = int64_t{1} << 48;

struct TensorMeta {
  DType dtype = DType::kFloat32;
  std::vector<int64_t> sizes;
  std::vector<int64_t> strides;
  int64_t offset = 0;   // storage offset, in elements
  int64_t storage = 0;  // storage id: equal ids alias at capture time

  int64_t numel() const;
  bool IsContiguous() const;
  // Number of bytes the tensor's elements span in its storage.
  int64_t SpanBytes() const;
  // True when two different index tuples map to the same element
  // (expanded/broadcast tensors, as_strided overlap).
  bool HasInternalOverlap() const;
  // Empty when numel and the bytes the tensor reaches in its storage (offset
  // included) are at most kMaxTensorBytes, so numel(), SpanBytes() and the
  // planner's sums cannot overflow; else what is too large. Readers of
  // untrusted text or files check this before using a meta.
  std::string SizeError() const;
  bool SameShapeAndType(const TensorMeta& o) const { return dtype == o.dtype && sizes == o.sizes; }
  bool operator==(const TensorMeta& o) const {
    return dtype == o.dtype && sizes == o.sizes && strides == o.strides && offset == o.offset && storage == o.storage;
  }
  // "f32[2,3]", "f32[3]{4}+1": the type part of IR text (storage printed apart).
  std::string ToString() const;
};

std::vector<int64_t> ContiguousStrides(const std::vector<int64_t>& sizes);

// A reference from a node argument (or the graph's return) to a value.
struct Use {
  Node* user;  // nullptr: the graph's return
  int arg;     // argument index, or output index for the return
  int elem;    // index inside a tensor-list argument, -1 for a plain argument
};

enum class ValueKind { kInput, kWeight, kNodeOutput };

class Value {
 public:
  const std::string& name() const { return name_; }
  void set_name(std::string n) { name_ = std::move(n); }
  ValueKind kind() const { return kind_; }
  Node* producer() const { return producer_; }  // nullptr for inputs and weights
  int output_index() const { return output_index_; }
  const TensorMeta& meta() const { return meta_; }
  TensorMeta& mutable_meta() { return meta_; }
  const std::vector<Use>& uses() const { return uses_; }
  const std::string& weight_key() const { return weight_key_; }  // kWeight only
  int64_t id() const { return id_; }

 private:
  friend class Graph;
  friend class Node;
  std::string name_;
  ValueKind kind_ = ValueKind::kNodeOutput;
  Node* producer_ = nullptr;
  int output_index_ = 0;
  TensorMeta meta_;
  std::vector<Use> uses_;
  std::string weight_key_;
  int64_t id_ = 0;
};

// A node argument: a tensor value, a literal, or a tensor list (entries may be
// nullptr for Tensor?[] arguments such as index_put's indices).
struct Arg {
  enum class Kind { kValue, kLiteral, kValueList };
  Kind kind = Kind::kLiteral;
  Value* value = nullptr;
  Literal literal;
  std::vector<Value*> list;
  // Where this argument's entry sits in the used value's use list, so a use
  // is removed in O(1) (maintained by Graph; meaningless outside a node).
  int use_slot = -1;
  std::vector<int> list_use_slots;

  static Arg Of(Value* v) {
    Arg a;
    a.kind = Kind::kValue;
    a.value = v;
    return a;
  }
  static Arg Of(Literal l) {
    Arg a;
    a.kind = Kind::kLiteral;
    a.literal = std::move(l);
    return a;
  }
  static Arg List(std::vector<Value*> vs) {
    Arg a;
    a.kind = Kind::kValueList;
    a.list = std::move(vs);
    return a;
  }
};

class Node {
 public:
  const OpInfo& op() const { return *op_; }
  const std::vector<Arg>& args() const { return args_; }
  const std::vector<Value*>& outputs() const { return outputs_; }
  Value* output(int i = 0) const { return outputs_[static_cast<size_t>(i)]; }
  // Tensor-valued input of argument i, or nullptr when argument i is not a value.
  Value* input(int i) const {
    const Arg& a = args_[static_cast<size_t>(i)];
    return a.kind == Arg::Kind::kValue ? a.value : nullptr;
  }
  // True when the op returns Tensor[] and outputs() are that list's elements.
  bool list_output() const { return list_output_; }
  Node* next() const { return next_; }
  Node* prev() const { return prev_; }
  int64_t id() const { return id_; }
  // Position in the graph order; valid after Graph::Renumber().
  int64_t order() const { return order_; }

  // Every tensor value this node reads, in argument order (duplicates kept).
  std::vector<Value*> InputValues() const;

 private:
  friend class Graph;
  const OpInfo* op_ = nullptr;
  std::vector<Arg> args_;
  std::vector<Value*> outputs_;
  bool list_output_ = false;
  Node* next_ = nullptr;
  Node* prev_ = nullptr;
  int64_t id_ = 0;
  int64_t order_ = 0;
  bool alive_ = true;
};

// "%y = aten::add.Tensor": a node as error messages and comments name it.
std::string NodeText(const Node* n);
// "node '%y = aten::add.Tensor'".
std::string DescribeNode(const Node* n);

// How the flat outputs are nested: a leaf names one flat output.
struct OutputTree {
  enum class Kind { kLeaf, kTuple, kList };
  Kind kind = Kind::kLeaf;
  int leaf = 0;
  std::vector<OutputTree> elems;
};

struct WeightData {
  TensorMeta meta;  // contiguous layout of `bytes`
  std::vector<uint8_t> bytes;
};

class Graph {
 public:
  Graph() = default;
  Graph(const Graph&) = delete;
  Graph& operator=(const Graph&) = delete;

  const std::string& name() const { return name_; }
  void set_name(std::string n) { name_ = std::move(n); }

  Value* AddInput(const std::string& name, const TensorMeta& meta);
  // A weight value; `key` names its data in weights().
  Value* AddWeight(const std::string& name, const std::string& key, const TensorMeta& meta);
  // Creates a node with `num_outputs` outputs, appended at the end (or before
  // `before` when given). Output names default to fresh numbers.
  Node* CreateNode(const OpInfo* op, std::vector<Arg> args, int num_outputs, Node* before = nullptr);
  void SetListOutput(Node* n, bool v) { n->list_output_ = v; }
  // Swaps a node's op for one with the same argument list (view -> view_copy).
  void SetOp(Node* n, const OpInfo* op) { n->op_ = op; }
  // Replaces argument i of n, keeping use lists right (O(1) per value).
  void SetArg(Node* n, int i, Arg a);
  // Removes a node whose outputs have no uses.
  void Destroy(Node* n);
  void MoveBefore(Node* n, Node* before);
  void ReplaceAllUsesWith(Value* from, Value* to);

  const std::vector<Value*>& inputs() const { return inputs_; }
  const std::vector<Value*>& weight_values() const { return weight_values_; }
  const std::vector<Value*>& outputs() const { return outputs_; }
  const OutputTree& output_tree() const { return output_tree_; }
  void SetOutputs(std::vector<Value*> flat, OutputTree tree);
  void SetOutput(int i, Value* v);

  Node* first() const { return head_; }
  Node* last() const { return tail_; }
  int64_t num_nodes() const { return num_nodes_; }
  // Assigns order() 0..n-1 in list order.
  void Renumber();
  // Iteration: for (Node* n : g.nodes()). Safe against destroying the current node
  // only when the caller saves next() first; use NodesSnapshot() for that.
  struct NodeRange {
    struct It {
      Node* n;
      Node* operator*() const { return n; }
      It& operator++() {
        n = n->next();
        return *this;
      }
      bool operator!=(const It& o) const { return n != o.n; }
    };
    Node* head;
    It begin() const { return {head}; }
    It end() const { return {nullptr}; }
  };
  NodeRange nodes() const { return {head_}; }
  std::vector<Node*> NodesSnapshot() const;

  std::unordered_map<std::string, WeightData>& weights() { return weights_; }
  const std::unordered_map<std::string, WeightData>& weights() const { return weights_; }

  // A name not used by any value yet ("%7" style names are numbers).
  std::string FreshName();
  Value* FindValue(const std::string& name) const;
  bool RenameValue(Value* v, const std::string& name);  // false if taken
  int64_t NewStorageId() { return next_storage_++; }
  // Readers bound ids (the parser: kMaxStorageId); the guard keeps id + 1 defined.
  void NoteStorageId(int64_t id) {
    if (id >= next_storage_ && id < INT64_MAX) next_storage_ = id + 1;
  }

 private:
  Value* NewValue(const std::string& name, ValueKind kind);
  void LinkBefore(Node* n, Node* before);
  void Unlink(Node* n);
  void AddArgUses(Node* n, int i);
  void DropArgUses(Node* n, int i);
  void AddUse(Value* v, const Use& u, int* slot);
  void RemoveUse(Value* v, int slot);
  std::vector<int> output_use_slots_;
  std::string name_ = "forward";
  std::vector<std::unique_ptr<Value>> values_;
  std::vector<std::unique_ptr<Node>> nodes_;
  std::unordered_map<std::string, Value*> by_name_;
  std::vector<Value*> inputs_, weight_values_, outputs_;
  OutputTree output_tree_;
  Node* head_ = nullptr;
  Node* tail_ = nullptr;
  int64_t num_nodes_ = 0;
  int64_t next_name_ = 0;
  int64_t next_storage_ = 0;
  int64_t next_node_id_ = 0;
  std::unordered_map<std::string, WeightData> weights_;
};

}  // namespace atenaot
