// Recursive-descent parser for c10 schema strings. It accepts everything the
// LibTorch 1.13 dispatcher prints; types it does not model become kOther, so an
// op using them can still be named in an error but never compiled.
#include "ir/schema.h"

#include <cctype>
#include <cstdlib>

namespace atenaot {

std::string OpSchema::QualifiedName() const {
  std::string q = ns + "::" + name;
  if (!overload.empty()) q += "." + overload;
  return q;
}

namespace {

class SchemaParser {
 public:
  explicit SchemaParser(const std::string& t) : t_(t) {}

  StatusOr<OpSchema> Parse() {
    OpSchema s;
    size_t colons = t_.find("::");
    size_t paren = t_.find('(');
    if (colons == std::string::npos || paren == std::string::npos || colons > paren)
      return Fail("expected 'ns::name(' at the start");
    s.ns = t_.substr(0, colons);
    std::string full = t_.substr(colons + 2, paren - colons - 2);
    size_t dot = full.find('.');
    s.name = full.substr(0, dot);
    if (dot != std::string::npos) s.overload = full.substr(dot + 1);
    p_ = paren + 1;
    bool kwarg_only = false;
    Skip();
    while (!Peek(')')) {
      if (Eat("*")) {
        kwarg_only = true;
      } else if (Eat("...")) {
        s.vararg = true;
      } else {
        SchemaArg a;
        AOT_RETURN_IF_ERROR(ParseArg(&a, /*is_return=*/false));
        a.kwarg_only = kwarg_only;
        s.args.push_back(std::move(a));
      }
      Skip();
      if (Eat(",")) {
        Skip();
        continue;
      }
      if (!Peek(')')) return Fail("expected ',' or ')' in the argument list");
    }
    ++p_;
    Skip();
    if (!Eat("->")) return Fail("expected '->'");
    Skip();
    if (Eat("(")) {
      Skip();
      while (!Peek(')')) {
        SchemaArg r;
        if (Eat("...")) {
          s.vararg = true;
        } else {
          AOT_RETURN_IF_ERROR(ParseArg(&r, /*is_return=*/true));
          s.returns.push_back(std::move(r));
        }
        Skip();
        if (Eat(",")) {
          Skip();
          continue;
        }
        if (!Peek(')')) return Fail("expected ',' or ')' in the return list");
      }
      ++p_;
    } else if (Eat("...")) {
      s.vararg = true;
    } else {
      SchemaArg r;
      AOT_RETURN_IF_ERROR(ParseArg(&r, /*is_return=*/true));
      s.returns.push_back(std::move(r));
    }
    Skip();
    if (p_ != t_.size()) return Fail("trailing text after the return type");
    return s;
  }

 private:
  Status Fail(const std::string& why) const {
    return InvalidArgument("bad schema '" + t_ + "' at column " + std::to_string(p_) + ": " + why);
  }
  void Skip() {
    while (p_ < t_.size() && t_[p_] == ' ') ++p_;
  }
  bool Peek(char c) const { return p_ < t_.size() && t_[p_] == c; }
  bool Eat(const char* s) {
    size_t n = std::char_traits<char>::length(s);
    if (t_.compare(p_, n, s) == 0) {
      p_ += n;
      return true;
    }
    return false;
  }
  std::string Ident() {
    size_t b = p_;
    while (p_ < t_.size() && (std::isalnum(static_cast<unsigned char>(t_[p_])) || t_[p_] == '_' || t_[p_] == '.')) ++p_;
    return t_.substr(b, p_ - b);
  }

  static BaseType BaseFromName(const std::string& n) {
    if (n == "Tensor") return BaseType::kTensor;
    if (n == "int" || n == "SymInt") return BaseType::kInt;
    if (n == "float") return BaseType::kFloat;
    if (n == "bool") return BaseType::kBool;
    if (n == "Scalar") return BaseType::kScalar;
    if (n == "ScalarType") return BaseType::kScalarType;
    if (n == "Layout") return BaseType::kLayout;
    if (n == "Device") return BaseType::kDevice;
    if (n == "MemoryFormat") return BaseType::kMemoryFormat;
    if (n == "str") return BaseType::kString;
    if (n == "Generator") return BaseType::kGenerator;
    if (n == "Dimname") return BaseType::kDimname;
    return BaseType::kOther;
  }

  Status ParseAlias(SchemaAlias* a) {
    // After '(': "a", "a!", "a -> *", "*".
    Skip();
    if (Eat("*")) {
      a->wildcard = true;
    } else {
      a->set = Ident();
      if (a->set.empty()) return Fail("expected an alias set name");
      // "b|a": may alias either set; not modelled, so treat as a wildcard.
      while (Eat("|")) {
        Ident();
        a->set.clear();
        a->wildcard = true;
      }
      if (Eat("!")) a->write = true;
      Skip();
      if (Eat("->")) {
        Skip();
        if (!Eat("*")) return Fail("expected '*' after '->'");
        a->wildcard = true;
      }
    }
    Skip();
    if (!Eat(")")) return Fail("expected ')' after the alias annotation");
    return Status::Ok();
  }

  Status ParseType(SchemaType* ty, SchemaAlias* alias) {
    size_t begin = p_;
    std::string n = Ident();
    if (n.empty()) return Fail("expected a type");
    ty->base = BaseFromName(n);
    if (ty->base == BaseType::kOther && Peek('(')) {
      // Dict(str, Tensor), Tuple(...), Future(...): skip the contained types.
      int depth = 0;
      do {
        if (t_[p_] == '(') ++depth;
        if (t_[p_] == ')') --depth;
        ++p_;
      } while (p_ < t_.size() && depth > 0);
    } else if (Eat("(")) {
      AOT_RETURN_IF_ERROR(ParseAlias(alias));
    }
    if (Eat("?")) {
      ty->optional = true;  // e.g. Tensor?
    }
    int list_depth = 0;
    while (Eat("[")) {
      size_t b = p_;
      while (p_ < t_.size() && std::isdigit(static_cast<unsigned char>(t_[p_]))) ++p_;
      if (p_ > b) ty->fixed_size = std::atoi(t_.substr(b, p_ - b).c_str());
      if (!Eat("]")) return Fail("expected ']'");
      ++list_depth;
      if (ty->optional) {
        ty->elem_optional = true;
        ty->optional = false;
      }
      if (Eat("?")) ty->optional = true;
    }
    if (list_depth > 1) ty->base = BaseType::kOther;  // Tensor[][]
    ty->list = list_depth > 0;
    ty->raw = t_.substr(begin, p_ - begin);
    return Status::Ok();
  }

  Status ParseDefault(const SchemaType& ty, Literal* out) {
    Skip();
    if (Eat("None")) {
      *out = Literal::None();
      return Status::Ok();
    }
    if (Eat("True")) {
      *out = Literal::Bool(true);
      return Status::Ok();
    }
    if (Eat("False")) {
      *out = Literal::Bool(false);
      return Status::Ok();
    }
    if (Peek('"') || Peek('\'')) {
      char q = t_[p_++];
      std::string s;
      while (p_ < t_.size() && t_[p_] != q) {
        if (t_[p_] == '\\' && p_ + 1 < t_.size()) ++p_;
        s += t_[p_++];
      }
      if (!Eat(q == '"' ? "\"" : "'")) return Fail("unterminated string default");
      *out = Literal::String(s);
      return Status::Ok();
    }
    if (Eat("[")) {
      std::vector<double> nums;
      bool any_float = false;
      Skip();
      while (!Peek(']')) {
        double v;
        bool is_float;
        AOT_RETURN_IF_ERROR(Number(&v, &is_float));
        nums.push_back(v);
        any_float |= is_float;
        Skip();
        if (Eat(","))
          Skip();
        else if (!Peek(']'))
          return Fail("expected ',' or ']' in a list default");
      }
      ++p_;
      if (ty.base == BaseType::kFloat || any_float)
        *out = Literal::FloatList(nums);
      else if (ty.base == BaseType::kBool) {
        std::vector<bool> bs;
        for (double d : nums) bs.push_back(d != 0);
        *out = Literal::BoolList(bs);
      } else {
        std::vector<int64_t> is;
        for (double d : nums) is.push_back(static_cast<int64_t>(d));
        *out = Literal::IntList(is);
      }
      return Status::Ok();
    }
    if (std::isdigit(static_cast<unsigned char>(t_[p_])) || Peek('-')) {
      double v;
      bool is_float;
      AOT_RETURN_IF_ERROR(Number(&v, &is_float));
      if (ty.list) {
        // "int[2] stride=1" means [1, 1].
        int n = ty.fixed_size > 0 ? ty.fixed_size : 1;
        if (ty.base == BaseType::kFloat)
          *out = Literal::FloatList(std::vector<double>(n, v));
        else
          *out = Literal::IntList(std::vector<int64_t>(n, static_cast<int64_t>(v)));
      } else if (is_float || ty.base == BaseType::kFloat) {
        *out = Literal::Float(v);
      } else {
        *out = Literal::Int(static_cast<int64_t>(v));
      }
      return Status::Ok();
    }
    // Enum-like names (contiguous_format, Mean, long): keep the spelling.
    std::string id = Ident();
    if (id.empty()) return Fail("unrecognised default value");
    *out = Literal::String(id);
    return Status::Ok();
  }

  Status Number(double* v, bool* is_float) {
    const char* begin = t_.c_str() + p_;
    char* end = nullptr;
    *v = std::strtod(begin, &end);
    if (end == begin) return Fail("expected a number");
    std::string text(begin, static_cast<const char*>(end));
    *is_float = text.find_first_of(".eE") != std::string::npos;
    p_ += static_cast<size_t>(end - begin);
    return Status::Ok();
  }

  Status ParseArg(SchemaArg* a, bool is_return) {
    AOT_RETURN_IF_ERROR(ParseType(&a->type, &a->alias));
    Skip();
    if (!Peek(',') && !Peek(')') && !Peek('=')) {
      a->name = Ident();
      if (a->name.empty() && !is_return) return Fail("expected an argument name");
      Skip();
    }
    if (Eat("=")) {
      Literal d;
      AOT_RETURN_IF_ERROR(ParseDefault(a->type, &d));
      a->default_value = d;
    }
    return Status::Ok();
  }

  const std::string& t_;
  size_t p_ = 0;
};

}  // namespace

StatusOr<OpSchema> ParseSchema(const std::string& text) { return SchemaParser(text).Parse(); }

}  // namespace atenaot
