#include "ir/parser.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <limits>

namespace atenaot {
namespace {

// Storage ids are small integers numbered from 0; passes size dense tables by
// the largest one, so an id like 2^62 must not get in.
constexpr int64_t kMaxStorageId = (int64_t{1} << 20) - 1;
// Argument lists and return trees are parsed recursively: bound the depth so
// deep nesting is an error, not a stack overflow.
constexpr int kMaxNesting = 64;

// ASCII classes, inline: the <cctype> calls go through the locale (and
// were ~3% of parsing a 4,000-node graph).
inline bool IsSpace(char c) { return c == ' ' || c == '\n' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }
inline bool IsAlnum(char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

class IrParser {
 public:
  IrParser(const std::string& t, const OpTable& ops) : t_(t), ops_(ops) {}

  StatusOr<std::unique_ptr<Graph>> Parse() {
    g_ = std::make_unique<Graph>();
    Skip();
    if (!EatWord("graph")) return Fail("expected 'graph'");
    Skip();
    if (!Eat('@')) return Fail("expected '@' before the graph name");
    std::string name = Name();
    if (name.empty()) return Fail("expected a graph name");
    g_->set_name(name);
    AOT_RETURN_IF_ERROR(Expect('('));
    Skip();
    while (!Peek(')')) {
      AOT_RETURN_IF_ERROR(ParseInput());
      Skip();
      if (Eat(',')) {
        Skip();
        continue;
      }
      if (!Peek(')')) return Fail("expected ',' or ')' after a graph input");
    }
    ++p_;
    AOT_RETURN_IF_ERROR(Expect('{'));
    while (true) {
      Skip();
      if (p_ >= t_.size()) return Fail("unexpected end of input: missing 'return'");
      if (EatWord("weight")) {
        AOT_RETURN_IF_ERROR(ParseWeight());
        continue;
      }
      if (EatWord("return")) break;
      AOT_RETURN_IF_ERROR(ParseNode());
    }
    std::vector<Value*> flat;
    OutputTree tree;
    AOT_RETURN_IF_ERROR(ParseTree(&flat, &tree));
    g_->SetOutputs(std::move(flat), std::move(tree));
    AOT_RETURN_IF_ERROR(Expect('}'));
    Skip();
    if (p_ != t_.size()) return Fail("unexpected text after the closing '}'");
    return std::move(g_);
  }

 private:
  // ---- lexing helpers ----
  Status Fail(const std::string& why) const {
    int line = 1, col = 1;
    for (size_t i = 0; i < p_ && i < t_.size(); ++i) {
      if (t_[i] == '\n') {
        ++line;
        col = 1;
      } else {
        ++col;
      }
    }
    return InvalidArgument("IR text " + std::to_string(line) + ":" + std::to_string(col) + ": " + why);
  }
  void Skip() {
    while (p_ < t_.size()) {
      char c = t_[p_];
      if (IsSpace(c)) {
        ++p_;
        continue;
      }
      if (c == '#' || (c == '/' && p_ + 1 < t_.size() && t_[p_ + 1] == '/')) {
        while (p_ < t_.size() && t_[p_] != '\n') ++p_;
        continue;
      }
      break;
    }
  }
  bool Peek(char c) const { return p_ < t_.size() && t_[p_] == c; }
  bool Eat(char c) {
    if (Peek(c)) {
      ++p_;
      return true;
    }
    return false;
  }
  Status Expect(char c) {
    Skip();
    if (!Eat(c)) return Fail(std::string("expected '") + c + "'");
    return Status::Ok();
  }
  static bool NameChar(char c) { return IsAlnum(c) || c == '_' || c == '.'; }
  bool EatWord(const char* w) {
    size_t n = std::char_traits<char>::length(w);
    if (t_.compare(p_, n, w) == 0 && (p_ + n >= t_.size() || !NameChar(t_[p_ + n]))) {
      p_ += n;
      return true;
    }
    return false;
  }
  std::string Name() {
    size_t b = p_;
    while (p_ < t_.size() && NameChar(t_[p_])) ++p_;
    return t_.substr(b, p_ - b);
  }
  StatusOr<std::string> RefName() {
    Skip();
    if (!Eat('%')) return Fail("expected a value name like %x");
    std::string n = Name();
    if (n.empty()) return Fail("expected a value name after '%'");
    return n;
  }
  StatusOr<Value*> Ref() {
    size_t at = p_;
    AOT_ASSIGN_OR_RETURN(std::string n, RefName());
    Value* v = g_->FindValue(n);
    if (!v) {
      p_ = at;
      return Fail("use of undefined value %" + n);
    }
    return v;
  }
  StatusOr<int64_t> Int() {
    Skip();
    const char* b = t_.c_str() + p_;
    char* e = nullptr;
    errno = 0;
    long long v = std::strtoll(b, &e, 10);
    if (e == b) return Fail("expected an integer");
    if (errno == ERANGE) return Fail("integer out of range");
    p_ += static_cast<size_t>(e - b);
    return static_cast<int64_t>(v);
  }
  StatusOr<std::string> String() {
    Skip();
    if (!Eat('"')) return Fail("expected a string");
    std::string s;
    while (p_ < t_.size() && t_[p_] != '"') {
      char c = t_[p_++];
      if (c == '\\' && p_ < t_.size()) {
        char e = t_[p_++];
        s += e == 'n' ? '\n' : e;
      } else {
        s += c;
      }
    }
    if (!Eat('"')) return Fail("unterminated string");
    return s;
  }

  // ---- types: f32[2,3]{3,1}+0@s0 ----
  StatusOr<TensorMeta> Type() {
    Skip();
    size_t at = p_;
    std::string dt = Name();
    auto dtype = DTypeFromName(dt);
    if (!dtype) {
      p_ = at;
      return Fail("unknown dtype '" + dt + "'");
    }
    TensorMeta m;
    m.dtype = *dtype;
    if (!Eat('[')) return Fail("expected '[' after the dtype");
    AOT_RETURN_IF_ERROR(IntList(']', &m.sizes));
    for (int64_t s : m.sizes)
      if (s < 0) return Fail("negative size in a tensor type");
    m.strides = ContiguousStrides(m.sizes);
    if (Eat('{')) {
      m.strides.clear();
      AOT_RETURN_IF_ERROR(IntList('}', &m.strides));
      if (m.strides.size() != m.sizes.size()) return Fail("strides and sizes differ in rank");
    }
    if (Eat('+')) {
      AOT_ASSIGN_OR_RETURN(m.offset, Int());
    }
    if (!Eat('@') || !Eat('s')) return Fail("expected '@sN' (storage id) after the tensor type");
    AOT_ASSIGN_OR_RETURN(m.storage, Int());
    if (m.storage < 0) return Fail("negative storage id");
    if (m.storage > kMaxStorageId)
      return Fail("storage id " + std::to_string(m.storage) + " is too large (at most " +
                  std::to_string(kMaxStorageId) + ")");
    std::string too_big = m.SizeError();
    if (!too_big.empty()) {
      p_ = at;
      return Fail("tensor type " + m.ToString() + " has " + too_big);
    }
    return m;
  }
  Status IntList(char close, std::vector<int64_t>* out) {
    Skip();
    while (!Eat(close)) {
      AOT_ASSIGN_OR_RETURN(int64_t v, Int());
      out->push_back(v);
      Skip();
      if (Eat(',')) {
        Skip();
        continue;
      }
      if (!Peek(close)) return Fail(std::string("expected ',' or '") + close + "'");
    }
    return Status::Ok();
  }

  Status ParseInput() {
    size_t at = p_;
    AOT_ASSIGN_OR_RETURN(std::string n, RefName());
    if (g_->FindValue(n)) {
      p_ = at;
      return Fail("redefinition of %" + n);
    }
    AOT_RETURN_IF_ERROR(Expect(':'));
    AOT_ASSIGN_OR_RETURN(TensorMeta m, Type());
    g_->AddInput(n, m);
    return Status::Ok();
  }

  Status ParseWeight() {
    size_t at = p_;
    AOT_ASSIGN_OR_RETURN(std::string n, RefName());
    if (g_->FindValue(n)) {
      p_ = at;
      return Fail("redefinition of %" + n);
    }
    AOT_RETURN_IF_ERROR(Expect(':'));
    AOT_ASSIGN_OR_RETURN(TensorMeta m, Type());
    AOT_RETURN_IF_ERROR(Expect('='));
    AOT_ASSIGN_OR_RETURN(std::string key, String());
    g_->AddWeight(n, key, m);
    return Status::Ok();
  }

  // ---- arguments ----
  // Counts the recursion depth of ParseArgText/ParseTree.
  struct DepthGuard {
    explicit DepthGuard(int* d) : d_(d) { ++*d_; }
    ~DepthGuard() { --*d_; }
    int* d_;
  };
  Status CheckDepth() const {
    if (depth_ > kMaxNesting) return Fail("nesting deeper than " + std::to_string(kMaxNesting) + " levels");
    return Status::Ok();
  }

  // A literal or a value reference; lists may hold either.
  Status ParseArgText(Arg* out) {
    DepthGuard guard(&depth_);
    AOT_RETURN_IF_ERROR(CheckDepth());
    Skip();
    if (Peek('%')) {
      AOT_ASSIGN_OR_RETURN(Value * v, Ref());
      *out = Arg::Of(v);
      return Status::Ok();
    }
    if (Eat('[')) {
      Skip();
      std::vector<Literal> items;
      std::vector<Value*> values;
      bool has_value = false;
      while (!Eat(']')) {
        Arg e;
        AOT_RETURN_IF_ERROR(ParseArgText(&e));
        if (e.kind == Arg::Kind::kValue) {
          has_value = true;
          values.push_back(e.value);
        } else if (e.kind == Arg::Kind::kLiteral) {
          if (e.literal.kind == Literal::Kind::kNone) values.push_back(nullptr);
          items.push_back(e.literal);
        } else
          return Fail("nested lists are not supported");
        Skip();
        if (Eat(',')) continue;
        if (!Peek(']')) return Fail("expected ',' or ']'");
      }
      if (has_value) {
        if (values.size() != std::max(items.size(), values.size()) || values.size() < items.size())
          return Fail("a list mixes values and literals");
        for (const Literal& l : items)
          if (l.kind != Literal::Kind::kNone) return Fail("a list mixes values and literals");
        *out = Arg::List(values);
        return Status::Ok();
      }
      return LiteralList(items, out);
    }
    Literal l;
    AOT_RETURN_IF_ERROR(ScalarLiteral(&l));
    *out = Arg::Of(l);
    return Status::Ok();
  }

  Status LiteralList(const std::vector<Literal>& items, Arg* out) {
    bool any_float = false, all_bool = !items.empty(), all_none = !items.empty();
    for (const Literal& l : items) {
      if (l.kind == Literal::Kind::kFloat)
        any_float = true;
      else if (l.kind == Literal::Kind::kBool) {
      } else if (l.kind == Literal::Kind::kNone) {
      } else if (l.kind != Literal::Kind::kInt)
        return Fail("unsupported list element " + l.ToString());
      if (l.kind != Literal::Kind::kBool) all_bool = false;
      if (l.kind != Literal::Kind::kNone) all_none = false;
    }
    if (all_none) {  // [none, none]: an all-None Tensor?[]
      *out = Arg::List(std::vector<Value*>(items.size(), nullptr));
      return Status::Ok();
    }
    if (all_bool) {
      std::vector<bool> bs;
      for (const Literal& l : items) bs.push_back(l.b);
      *out = Arg::Of(Literal::BoolList(bs));
    } else if (any_float) {
      std::vector<double> fs;
      for (const Literal& l : items) {
        if (l.kind == Literal::Kind::kBool || l.kind == Literal::Kind::kNone)
          return Fail("a float list holds a non-number");
        fs.push_back(l.kind == Literal::Kind::kFloat ? l.f : static_cast<double>(l.i));
      }
      *out = Arg::Of(Literal::FloatList(fs));
    } else {
      std::vector<int64_t> is;
      for (const Literal& l : items) {
        if (l.kind != Literal::Kind::kInt) return Fail("an int list holds a non-integer");
        is.push_back(l.i);
      }
      *out = Arg::Of(Literal::IntList(is));
    }
    return Status::Ok();
  }

  Status ScalarLiteral(Literal* l) {
    Skip();
    if (EatWord("none")) {
      *l = Literal::None();
      return Status::Ok();
    }
    if (EatWord("true")) {
      *l = Literal::Bool(true);
      return Status::Ok();
    }
    if (EatWord("false")) {
      *l = Literal::Bool(false);
      return Status::Ok();
    }
    if (EatWord("inf")) {
      *l = Literal::Float(std::numeric_limits<double>::infinity());
      return Status::Ok();
    }
    if (EatWord("nan")) {
      *l = Literal::Float(std::nan(""));
      return Status::Ok();
    }
    if (t_.compare(p_, 4, "-inf") == 0) {
      p_ += 4;
      *l = Literal::Float(-std::numeric_limits<double>::infinity());
      return Status::Ok();
    }
    if (Peek('"')) {
      AOT_ASSIGN_OR_RETURN(std::string s, String());
      *l = Literal::String(s);
      return Status::Ok();
    }
    if (EatWord("device")) {
      AOT_RETURN_IF_ERROR(Expect('('));
      AOT_ASSIGN_OR_RETURN(std::string s, String());
      AOT_RETURN_IF_ERROR(Expect(')'));
      *l = Literal::Device(s);
      return Status::Ok();
    }
    // Number: an int unless it has '.', 'e' or 'E'.
    size_t b = p_;
    if (Peek('-') || Peek('+')) ++p_;
    while (p_ < t_.size() && (IsAlnum(t_[p_]) || t_[p_] == '.' ||
                              ((t_[p_] == '-' || t_[p_] == '+') && (t_[p_ - 1] == 'e' || t_[p_ - 1] == 'E'))))
      ++p_;
    std::string tok = t_.substr(b, p_ - b);
    if (tok.empty() || tok == "-" || tok == "+") {
      p_ = b;
      return Fail("expected an argument");
    }
    char* e = nullptr;
    if (tok.find_first_of(".eE") != std::string::npos) {
      double d = std::strtod(tok.c_str(), &e);
      if (*e) {
        p_ = b;
        return Fail("bad number '" + tok + "'");
      }
      *l = Literal::Float(d);
    } else {
      errno = 0;
      long long v = std::strtoll(tok.c_str(), &e, 10);
      if (*e) {
        p_ = b;
        return Fail("bad argument '" + tok + "'");
      }
      if (errno == ERANGE) {
        p_ = b;
        return Fail("integer out of range: " + tok);
      }
      *l = Literal::Int(v);
    }
    return Status::Ok();
  }

  // Makes a parsed argument fit its schema slot where the text is ambiguous:
  // [] for Tensor[], ints for float arguments.
  static void Coerce(const SchemaArg& s, Arg* a) {
    if (a->kind != Arg::Kind::kLiteral) return;
    Literal& l = a->literal;
    if (s.type.base == BaseType::kTensor && s.type.list && l.kind == Literal::Kind::kIntList && l.ints.empty()) {
      *a = Arg::List({});
    } else if (s.type.base == BaseType::kFloat && !s.type.list && l.kind == Literal::Kind::kInt) {
      l = Literal::Float(static_cast<double>(l.i));
    } else if (s.type.base == BaseType::kFloat && s.type.list && l.kind == Literal::Kind::kIntList) {
      l = Literal::FloatList(std::vector<double>(l.ints.begin(), l.ints.end()));
    } else if (s.type.base == BaseType::kBool && s.type.list && l.kind == Literal::Kind::kIntList && l.ints.empty()) {
      l = Literal::BoolList({});
    }
  }

  Status ParseNode() {
    size_t line_at = p_;
    std::vector<std::pair<std::string, size_t>> names;
    if (Peek('%')) {
      while (true) {
        size_t at = p_;
        AOT_ASSIGN_OR_RETURN(std::string n, RefName());
        names.push_back({n, at});
        Skip();
        if (Eat(',')) {
          Skip();
          continue;
        }
        break;
      }
      if (!Eat('=')) return Fail("expected '=' after the result names");
      Skip();
    }
    size_t op_at = p_;
    std::string opname;
    while (p_ < t_.size() && (NameChar(t_[p_]) || t_[p_] == ':')) opname += t_[p_++];
    if (opname.empty()) return Fail("expected an op name such as aten::add.Tensor");
    const OpInfo* op = ops_.Find(opname);
    if (!op) {
      p_ = op_at;
      return Fail("unknown op '" + opname + "'");
    }
    AOT_RETURN_IF_ERROR(Expect('('));
    std::vector<Arg> args;
    args.reserve(op->schema.args.size());
    Skip();
    while (!Eat(')')) {
      Arg a;
      AOT_RETURN_IF_ERROR(ParseArgText(&a));
      args.push_back(std::move(a));
      Skip();
      if (Eat(',')) {
        Skip();
        continue;
      }
      if (!Peek(')')) return Fail("expected ',' or ')' in the argument list");
    }
    const auto& sargs = op->schema.args;
    if (args.size() > sargs.size()) {
      p_ = op_at;
      return Fail(opname + " takes " + std::to_string(sargs.size()) + " arguments, got " + std::to_string(args.size()));
    }
    for (size_t i = args.size(); i < sargs.size(); ++i) {
      if (!sargs[i].default_value) {
        p_ = op_at;
        return Fail(opname + ": missing argument '" + sargs[i].name + "' (it has no default)");
      }
      args.push_back(Arg::Of(*sargs[i].default_value));
    }
    for (size_t i = 0; i < args.size(); ++i) Coerce(sargs[i], &args[i]);
    // Types of the results.
    std::vector<TensorMeta> metas;
    bool list_output = false;
    Skip();
    if (Eat(':')) {
      Skip();
      if (Eat('[')) list_output = true;
      Skip();
      while (!(list_output ? Peek(']') : false)) {
        AOT_ASSIGN_OR_RETURN(TensorMeta m, Type());
        metas.push_back(m);
        Skip();
        if (Eat(',')) {
          Skip();
          continue;
        }
        break;
      }
      if (list_output && !Eat(']')) return Fail("expected ']' after the list of result types");
    }
    if (metas.size() != names.size()) {
      p_ = line_at;
      return Fail("the node defines " + std::to_string(names.size()) + " results but annotates " +
                  std::to_string(metas.size()) + " types");
    }
    Node* n = g_->CreateNode(op, std::move(args), static_cast<int>(names.size()));
    g_->SetListOutput(n, list_output);
    for (size_t i = 0; i < names.size(); ++i) {
      if (!g_->RenameValue(n->output(static_cast<int>(i)), names[i].first)) {
        p_ = names[i].second;
        return Fail("redefinition of %" + names[i].first);
      }
      n->output(static_cast<int>(i))->mutable_meta() = metas[i];
      g_->NoteStorageId(metas[i].storage);
    }
    return Status::Ok();
  }

  Status ParseTree(std::vector<Value*>* flat, OutputTree* tree) {
    DepthGuard guard(&depth_);
    AOT_RETURN_IF_ERROR(CheckDepth());
    Skip();
    if (Peek('(') || Peek('[')) {
      bool tuple = Peek('(');
      char close = tuple ? ')' : ']';
      ++p_;
      tree->kind = tuple ? OutputTree::Kind::kTuple : OutputTree::Kind::kList;
      Skip();
      while (!Eat(close)) {
        OutputTree e;
        AOT_RETURN_IF_ERROR(ParseTree(flat, &e));
        tree->elems.push_back(std::move(e));
        Skip();
        if (Eat(',')) {
          Skip();
          continue;
        }
        if (!Peek(close)) return Fail(std::string("expected ',' or '") + close + "' in the return value");
      }
      return Status::Ok();
    }
    AOT_ASSIGN_OR_RETURN(Value * v, Ref());
    tree->kind = OutputTree::Kind::kLeaf;
    tree->leaf = static_cast<int>(flat->size());
    flat->push_back(v);
    return Status::Ok();
  }

  const std::string& t_;
  const OpTable& ops_;
  size_t p_ = 0;
  int depth_ = 0;
  std::unique_ptr<Graph> g_;
};

}  // namespace

StatusOr<std::unique_ptr<Graph>> ParseGraph(const std::string& text, const OpTable& ops) {
  return IrParser(text, ops).Parse();
}

bool LooksLikeAtenaotIr(const std::string& text) {
  size_t p = 0;
  while (p < text.size()) {
    if (IsSpace(text[p])) {
      ++p;
      continue;
    }
    if (text[p] == '#' || text.compare(p, 2, "//") == 0) {
      while (p < text.size() && text[p] != '\n') ++p;
      continue;
    }
    break;
  }
  return text.compare(p, 5, "graph") == 0 && text.find('@', p) != std::string::npos &&
         text.find('@', p) < text.find('(', p);
}

}  // namespace atenaot
