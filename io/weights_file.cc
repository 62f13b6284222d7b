#include "io/weights_file.h"

#include <algorithm>
#include <cstring>
#include <vector>

#include "io/files.h"
#include "runtime/aot_crc32.h"

namespace atenaot {
namespace {

constexpr char kMagic[4] = {'A', 'T', 'N', 'W'};
constexpr uint32_t kVersion = 2;  // 2: a CRC-32 after each entry

template <typename T>
void Put(std::string* out, T v) {
  out->append(reinterpret_cast<const char*>(&v), sizeof(T));
}

class Reader {
 public:
  Reader(const std::string& d, const std::string& path) : d_(d), path_(path) {}
  template <typename T>
  Status Get(T* v) {
    if (d_.size() - p_ < sizeof(T)) return Truncated();
    std::memcpy(v, d_.data() + p_, sizeof(T));
    p_ += sizeof(T);
    return Status::Ok();
  }
  Status Bytes(size_t n, std::string* out) {
    if (d_.size() - p_ < n) return Truncated();
    out->assign(d_.data() + p_, n);
    p_ += n;
    return Status::Ok();
  }
  bool AtEnd() const { return p_ == d_.size(); }
  size_t pos() const { return p_; }
  Status Truncated() const { return InvalidArgument("weights file '" + path_ + "' is truncated or corrupt"); }

 private:
  const std::string& d_;
  const std::string& path_;
  size_t p_ = 0;
};

}  // namespace

Status WriteWeightsFile(const std::string& path, const std::unordered_map<std::string, WeightData>& weights) {
  std::vector<const std::pair<const std::string, WeightData>*> entries;
  for (const auto& kv : weights) entries.push_back(&kv);
  std::sort(entries.begin(), entries.end(),
            [](auto* a, auto* b) { return a->first < b->first; });  // deterministic files
  std::string out(kMagic, 4);
  Put<uint32_t>(&out, kVersion);
  Put<uint32_t>(&out, static_cast<uint32_t>(entries.size()));
  for (const auto* e : entries) {
    const std::string& k = e->first;
    const WeightData& w = e->second;
    const size_t entry = out.size();
    Put<uint32_t>(&out, static_cast<uint32_t>(k.size()));
    out += k;
    Put<uint8_t>(&out, static_cast<uint8_t>(AtenScalarTypeCode(w.meta.dtype)));
    Put<uint32_t>(&out, static_cast<uint32_t>(w.meta.sizes.size()));
    for (int64_t s : w.meta.sizes) Put<int64_t>(&out, s);
    Put<uint64_t>(&out, w.bytes.size());
    out.append(reinterpret_cast<const char*>(w.bytes.data()), w.bytes.size());
    Put<uint32_t>(&out, aot__crc32(0, out.data() + entry, out.size() - entry));
  }
  return WriteFile(path, out, "weights file");
}

StatusOr<std::unordered_map<std::string, WeightData>> ReadWeightsFile(const std::string& path) {
  AOT_ASSIGN_OR_RETURN(std::string d, ReadFileBytes(path, "weights file"));
  Reader r(d, path);
  std::string magic;
  AOT_RETURN_IF_ERROR(r.Bytes(4, &magic));
  if (magic != std::string(kMagic, 4)) return InvalidArgument("'" + path + "' is not an atenaot weights file");
  uint32_t version = 0, count = 0;
  AOT_RETURN_IF_ERROR(r.Get(&version));
  if (version == 1)
    return InvalidArgument("weights file '" + path +
                           "' has version 1, which has no checksums: write it again with "
                           "this atenaot (atenaot dump MODEL -o FILE)");
  if (version != kVersion)
    return InvalidArgument("weights file '" + path + "' has version " + std::to_string(version) + ", expected " +
                           std::to_string(kVersion));
  AOT_RETURN_IF_ERROR(r.Get(&count));
  std::unordered_map<std::string, WeightData> out;
  for (uint32_t i = 0; i < count; ++i) {
    uint32_t klen = 0, ndim = 0;
    uint8_t code = 0;
    uint64_t nbytes = 0;
    std::string key, data;
    const size_t entry = r.pos();
    AOT_RETURN_IF_ERROR(r.Get(&klen));
    AOT_RETURN_IF_ERROR(r.Bytes(klen, &key));
    AOT_RETURN_IF_ERROR(r.Get(&code));
    auto dtype = DTypeFromAtenCode(code);
    if (!dtype) return InvalidArgument("weights file '" + path + "': unknown dtype code for \"" + key + "\"");
    AOT_RETURN_IF_ERROR(r.Get(&ndim));
    if (ndim > 64) return r.Truncated();
    WeightData w;
    w.meta.dtype = *dtype;
    for (uint32_t k = 0; k < ndim; ++k) {
      int64_t s = 0;
      AOT_RETURN_IF_ERROR(r.Get(&s));
      if (s < 0) return r.Truncated();
      w.meta.sizes.push_back(s);
    }
    w.meta.strides = ContiguousStrides(w.meta.sizes);
    // Bounded sizes first: an overflowing product could wrap to the byte count.
    std::string too_big = w.meta.SizeError();
    if (!too_big.empty())
      return InvalidArgument("weights file '" + path + "': \"" + key + "\" has sizes " + w.meta.ToString() + " with " +
                             too_big);
    AOT_RETURN_IF_ERROR(r.Get(&nbytes));
    if (nbytes != static_cast<uint64_t>(w.meta.numel() * DTypeSize(w.meta.dtype)))
      return InvalidArgument("weights file '" + path + "': \"" + key + "\" has a wrong byte count");
    AOT_RETURN_IF_ERROR(r.Bytes(nbytes, &data));
    const uint32_t want = aot__crc32(0, d.data() + entry, r.pos() - entry);
    uint32_t crc = 0;
    AOT_RETURN_IF_ERROR(r.Get(&crc));
    if (crc != want)
      return InvalidArgument("weights file '" + path + "' is corrupt: \"" + key + "\" fails its CRC-32 check");
    w.bytes.assign(data.begin(), data.end());
    out[key] = std::move(w);
  }
  if (!r.AtEnd()) return InvalidArgument("weights file '" + path + "' has trailing bytes");
  return out;
}

}  // namespace atenaot
