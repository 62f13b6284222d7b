#include "codegen/abi_tables.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <sstream>
#include <unordered_set>

#include "codegen/c_support.h"
#include "codegen/c_text.h"
#include "codegen/c_types.h"
#include "runtime/aot_crc32.h"

namespace atenaot {

std::vector<bool> MutatedInputs(const Graph& g) {
  // Storage ids tell aliasing apart after annotation: a write to any value of
  // an input's storage changes what the caller sees.
  std::unordered_set<int64_t> written;
  for (const Node* n : g.nodes())
    for (int a : n->op().written_args)
      if (const Value* v = n->input(a)) written.insert(v->meta().storage);
  std::vector<bool> out;
  for (const Value* v : g.inputs()) out.push_back(written.count(v->meta().storage) > 0);
  return out;
}

StatusOr<std::string> TensorInfoTable(const Graph& g, const std::string& sym, bool inputs) {
  const std::vector<Value*>& vs = inputs ? g.inputs() : g.outputs();
  const std::vector<bool> mutated = inputs ? MutatedInputs(g) : std::vector<bool>(vs.size(), false);
  std::ostringstream os;
  os << "static const aot_tensor_info " << sym << "[" << std::max<size_t>(vs.size(), 1) << "] = {\n";
  for (size_t i = 0; i < vs.size(); ++i) {
    const Value* v = vs[i];
    AOT_ASSIGN_OR_RETURN(std::string dt, AbiDType(v->meta().dtype));
    if (v->meta().sizes.size() > 8) return Unsupported("tensors of more than 8 dimensions cannot cross the C ABI");
    os << "  {" << CStringLiteral(v->name()) << ", " << dt << ", " << v->meta().sizes.size() << ", {";
    for (size_t d = 0; d < v->meta().sizes.size(); ++d) os << (d ? ", " : "") << v->meta().sizes[d];
    os << "}, " << (mutated[i] ? "AOT_INFO_MUTATED" : "0") << ", 0},\n";
  }
  if (vs.empty()) os << "  {\"\", AOT_FLOAT32, 0, {0}, 0, 0},\n";
  os << "};\n";
  return os.str();
}

std::string InputLayoutTable(const Graph& g, const std::string& sym) {
  const std::vector<Value*>& vs = g.inputs();
  std::map<int64_t, size_t> first;  // storage -> its first input
  std::vector<size_t> anchor;       // per input, the first input of its storage
  bool plain = true;
  for (size_t i = 0; i < vs.size(); ++i) {
    const TensorMeta& m = vs[i]->meta();
    const auto [it, fresh] = first.emplace(m.storage, i);
    plain &= m.offset == 0 && m.IsContiguous() && fresh;
    anchor.push_back(it->second);
  }
  if (plain) return "";
  std::ostringstream os;
  os << "static const aot__layout " << sym << "[" << vs.size() << "] = {\n";
  for (size_t i = 0; i < vs.size(); ++i) {
    const TensorMeta& m = vs[i]->meta();
    const size_t a = anchor[i];
    os << "  {{";
    for (size_t d = 0; d < m.strides.size(); ++d) os << (d ? ", " : "") << m.strides[d];
    if (m.strides.empty()) os << "0";
    os << "}, " << (m.offset - vs[a]->meta().offset) * DTypeSize(m.dtype) << ", " << a << "},\n";
  }
  os << "};\n";
  return os.str();
}

std::string Crc32Hex(const std::vector<uint8_t>& bytes) {
  char crc[16];
  std::snprintf(crc, sizeof(crc), "0x%08Xu", aot__crc32(0, bytes.data(), bytes.size()));
  return crc;
}

std::string ModelMacro(const std::string& name, const std::string& value, const std::string& comment) {
  return "#define " + name + " " + value + (comment.empty() ? "" : " /* " + comment + " */") + "\n";
}

std::string SymbolMacros(const std::string& name, const std::vector<std::string>& suffixes) {
  std::string s;
  for (const std::string& x : suffixes) s += ModelMacro("AOT_M_SYM" + x, name + x);
  return s;
}

std::string WeightsCheckSource(const std::vector<uint8_t>& bytes) {
  std::ostringstream os;
  os << kCrc32Source << "\n"
     << ModelMacro("AOT_M_BLOB_BYTES", std::to_string(bytes.size()) + "u", "the weight bytes this model was built with")
     << ModelMacro("AOT_M_WEIGHTS_CRC", Crc32Hex(bytes), "their CRC-32 (zlib's)") << kWeightsCheckSource;
  return os.str();
}

}  // namespace atenaot
