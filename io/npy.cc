#include "io/npy.h"

#include <cctype>
#include <cstring>
#include <iterator>

#include "io/files.h"

namespace atenaot {
namespace {

struct DescrRow {
  const char* descr;  // without the byte-order character
  DType dtype;
};
constexpr DescrRow kDescr[] = {
    {"f2", DType::kFloat16}, {"f4", DType::kFloat32}, {"f8", DType::kFloat64},
    {"i1", DType::kInt8},    {"i2", DType::kInt16},   {"i4", DType::kInt32},
    {"i8", DType::kInt64},   {"u1", DType::kUInt8},   {"b1", DType::kBool},
};

const char* DescrFor(DType t) {
  for (const DescrRow& r : kDescr)
    if (r.dtype == t) return r.descr;
  return nullptr;
}

// Finds `'key':` in the header dict and returns the position after the colon.
size_t FindKey(const std::string& h, const std::string& key) {
  for (const char q : {'\'', '"'}) {
    std::string pat = std::string(1, q) + key + q;
    size_t p = h.find(pat);
    if (p == std::string::npos) continue;
    p += pat.size();
    while (p < h.size() && std::isspace(static_cast<unsigned char>(h[p]))) ++p;
    if (p < h.size() && h[p] == ':') return p + 1;
  }
  return std::string::npos;
}

void SkipWs(const std::string& h, size_t* p) {
  while (*p < h.size() && std::isspace(static_cast<unsigned char>(h[*p]))) ++*p;
}

}  // namespace

int64_t NpyArray::numel() const {
  // Unsigned: ParseNpy bounds shapes; a hand-made NpyArray must not make this UB.
  uint64_t n = 1;
  for (int64_t s : shape) n *= static_cast<uint64_t>(s);
  return static_cast<int64_t>(n);
}

std::vector<int64_t> NpyArray::Strides() const {
  // ParseNpy bounds the product to 2^40; unsigned keeps other shapes defined.
  std::vector<int64_t> st(shape.size());
  uint64_t acc = 1;
  auto step = [&](size_t i) {
    st[i] = static_cast<int64_t>(acc);
    acc *= static_cast<uint64_t>(shape[i] > 0 ? shape[i] : 1);
  };
  if (fortran_order) {
    for (size_t i = 0; i < shape.size(); ++i) step(i);
  } else {
    for (size_t i = shape.size(); i-- > 0;) step(i);
  }
  return st;
}

StatusOr<NpyArray> ParseNpy(const std::string& b, const std::string& what) {
  auto bad = [&](const std::string& why) { return InvalidArgument("malformed .npy file '" + what + "': " + why); };
  if (b.size() < 10 || std::memcmp(b.data(), "\x93NUMPY", 6) != 0) return bad("missing the \\x93NUMPY magic");
  const unsigned char major = static_cast<unsigned char>(b[6]);
  size_t header_len = 0, header_start = 0;
  if (major == 1) {
    header_len = static_cast<unsigned char>(b[8]) | (static_cast<size_t>(static_cast<unsigned char>(b[9])) << 8);
    header_start = 10;
  } else if (major == 2 || major == 3) {
    if (b.size() < 12) return bad("truncated header");
    header_len = 0;
    for (int k = 0; k < 4; ++k) header_len |= static_cast<size_t>(static_cast<unsigned char>(b[8 + k])) << (8 * k);
    header_start = 12;
  } else {
    return bad("unsupported format version " + std::to_string(major));
  }
  if (header_len > b.size() - header_start) return bad("header longer than the file");
  const std::string h = b.substr(header_start, header_len);

  // descr
  size_t p = FindKey(h, "descr");
  if (p == std::string::npos) return bad("header has no 'descr'");
  SkipWs(h, &p);
  if (p >= h.size() || (h[p] != '\'' && h[p] != '"'))
    return bad("'descr' is not a string (structured dtypes are not supported)");
  char q = h[p++];
  size_t e = h.find(q, p);
  if (e == std::string::npos) return bad("unterminated 'descr'");
  std::string descr = h.substr(p, e - p);
  if (descr.size() < 2) return bad("bad dtype '" + descr + "'");
  char order = descr[0];
  std::string code = descr.substr(1);
  auto unsupported = [&](const std::string& why) {
    return Unsupported(".npy file '" + what + "': " + why + " (supported: float16/32/64, int8/16/32/64, uint8, bool)");
  };
  if (order == '>' && code != "i1" && code != "u1" && code != "b1")
    return unsupported("big-endian dtype '" + descr + "' is not supported");
  if (order != '<' && order != '|' && order != '=' && order != '>') return bad("bad dtype '" + descr + "'");
  NpyArray a;
  bool found = false;
  for (const DescrRow& r : kDescr)
    if (code == r.descr) {
      a.dtype = r.dtype;
      found = true;
    }
  if (!found) return unsupported("unsupported dtype '" + descr + "'");

  // fortran_order
  p = FindKey(h, "fortran_order");
  if (p == std::string::npos) return bad("header has no 'fortran_order'");
  SkipWs(h, &p);
  if (h.compare(p, 4, "True") == 0)
    a.fortran_order = true;
  else if (h.compare(p, 5, "False") == 0)
    a.fortran_order = false;
  else
    return bad("'fortran_order' is not True or False");

  // shape
  p = FindKey(h, "shape");
  if (p == std::string::npos) return bad("header has no 'shape'");
  SkipWs(h, &p);
  if (p >= h.size() || h[p] != '(') return bad("'shape' is not a tuple");
  ++p;
  while (true) {
    SkipWs(h, &p);
    if (p >= h.size()) return bad("unterminated 'shape'");
    if (h[p] == ')') break;
    if (!std::isdigit(static_cast<unsigned char>(h[p]))) return bad("'shape' holds a non-integer");
    int64_t v = 0;
    while (p < h.size() && std::isdigit(static_cast<unsigned char>(h[p]))) {
      if (v > (int64_t{1} << 40)) return bad("dimension too large");
      v = v * 10 + (h[p++] - '0');
    }
    if (p < h.size() && h[p] == 'L') ++p;  // Python 2 long suffix
    a.shape.push_back(v);
    SkipWs(h, &p);
    if (p < h.size() && h[p] == ',')
      ++p;
    else if (p < h.size() && h[p] != ')')
      return bad("'shape' dimensions are not separated by ','");
  }
  if (a.shape.size() > 32) return bad("too many dimensions");
  // Overflow-safe element count. A 0 dimension makes the array empty, but the
  // other dimensions still size the strides, so each counts at least 1.
  int64_t n = 1, span = 1;
  for (int64_t s : a.shape) {
    const int64_t s1 = s > 0 ? s : 1;
    if (span > (int64_t{1} << 40) / s1) return bad("array too large");
    span *= s1;
    n *= s;
  }
  const size_t need = static_cast<size_t>(n * DTypeSize(a.dtype));
  const size_t data_start = header_start + header_len;
  if (b.size() - data_start < need)
    return bad("data is " + std::to_string(b.size() - data_start) + " bytes, shape needs " + std::to_string(need));
  if (b.size() - data_start > need)
    return bad("file has " + std::to_string(b.size() - data_start - need) + " bytes after the data");
  a.data.assign(b.begin() + static_cast<std::ptrdiff_t>(data_start), b.end());
  if (a.dtype == DType::kBool)
    for (uint8_t& v : a.data)
      if (v > 1) return bad("bool array holds a byte other than 0 or 1");
  return a;
}

StatusOr<NpyArray> ReadNpy(const std::string& path) {
  AOT_ASSIGN_OR_RETURN(std::string b, ReadFileBytes(path, ".npy file"));
  return ParseNpy(b, path);
}

std::string SerializeNpy(const NpyArray& a) {
  std::string dict = "{'descr': '";
  const char* d = DescrFor(a.dtype);
  dict += (a.dtype == DType::kBool || a.dtype == DType::kInt8 || a.dtype == DType::kUInt8) ? "|" : "<";
  dict += d ? d : "V1";
  dict += "', 'fortran_order': ";
  dict += a.fortran_order ? "True" : "False";
  dict += ", 'shape': (";
  for (size_t i = 0; i < a.shape.size(); ++i) {
    dict += std::to_string(a.shape[i]);
    if (a.shape.size() == 1 || i + 1 < a.shape.size()) dict += ",";
    if (i + 1 < a.shape.size()) dict += " ";
  }
  dict += "), }";
  // Pad so that magic(6)+version(2)+len(2)+header is a multiple of 64, ending in '\n'.
  size_t total = 10 + dict.size() + 1;
  size_t pad = (64 - total % 64) % 64;
  dict += std::string(pad, ' ') + "\n";
  std::string out("\x93NUMPY\x01\x00", 8);
  out += static_cast<char>(dict.size() & 0xff);
  out += static_cast<char>((dict.size() >> 8) & 0xff);
  out += dict;
  out.append(reinterpret_cast<const char*>(a.data.data()), a.data.size());
  return out;
}

Status WriteNpy(const std::string& path, const NpyArray& a) {
  if (!DescrFor(a.dtype)) return Unsupported(std::string("cannot write dtype ") + DTypeName(a.dtype) + " to .npy");
  return WriteFile(path, SerializeNpy(a), ".npy file");
}

}  // namespace atenaot
