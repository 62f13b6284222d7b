#include "io/zip_directory.h"

#include <algorithm>

namespace atenaot {
namespace {

constexpr uint32_t kEndOfDirectory = 0x06054b50, kZip64Locator = 0x07064b50, kZip64End = 0x06064b50,
                   kDirectoryEntry = 0x02014b50;

class Bytes {
 public:
  explicit Bytes(const std::string& b) : b_(b) {}
  bool Has(uint64_t at, uint64_t n) const { return at <= b_.size() && n <= b_.size() - at; }
  uint64_t Le(uint64_t at, int n) const {  // caller checked Has(at, n)
    uint64_t v = 0;
    for (int i = n - 1; i >= 0; --i) v = v << 8 | static_cast<unsigned char>(b_[at + static_cast<uint64_t>(i)]);
    return v;
  }
  std::string Sub(uint64_t at, uint64_t n) const { return b_.substr(at, n); }
  uint64_t size() const { return b_.size(); }

 private:
  const std::string& b_;
};

Status Corrupt(const std::string& why) { return InvalidArgument("not a valid ZIP file: " + why); }

}  // namespace

StatusOr<std::vector<ZipEntry>> ReadZipDirectory(const std::string& data) {
  Bytes b(data);
  if (b.size() < 22) return Corrupt("too short for an end-of-directory record");
  // The end record is the last 22 bytes plus a comment of up to 65535 bytes.
  uint64_t eocd = b.size();
  for (uint64_t at = b.size() - 22 + 1; at-- > 0 && b.size() - at <= 22 + 65535;)
    if (b.Le(at, 4) == kEndOfDirectory) {
      eocd = at;
      break;
    }
  if (eocd == b.size()) return Corrupt("no end-of-directory record");
  uint64_t count = b.Le(eocd + 10, 2), dir_size = b.Le(eocd + 12, 4), dir_at = b.Le(eocd + 16, 4);
  if (count == 0xFFFF || dir_size == 0xFFFFFFFF || dir_at == 0xFFFFFFFF) {  // ZIP64
    if (eocd < 20 || b.Le(eocd - 20, 4) != kZip64Locator) return Corrupt("ZIP64 locator missing");
    const uint64_t end64 = b.Le(eocd - 20 + 8, 8);
    if (!b.Has(end64, 56) || b.Le(end64, 4) != kZip64End) return Corrupt("ZIP64 end record missing");
    count = b.Le(end64 + 32, 8);
    dir_size = b.Le(end64 + 40, 8);
    dir_at = b.Le(end64 + 48, 8);
  }
  if (!b.Has(dir_at, dir_size)) return Corrupt("the central directory lies outside the file");
  if (count > dir_size / 46) return Corrupt("more entries than the central directory can hold");
  std::vector<ZipEntry> out;
  uint64_t at = dir_at;
  for (uint64_t k = 0; k < count; ++k) {
    if (!b.Has(at, 46) || at + 46 > dir_at + dir_size || b.Le(at, 4) != kDirectoryEntry)
      return Corrupt("central directory entry " + std::to_string(k) + " is damaged");
    ZipEntry e;
    e.crc32 = static_cast<uint32_t>(b.Le(at + 16, 4));
    e.size = b.Le(at + 24, 4);
    const uint64_t name_len = b.Le(at + 28, 2), extra_len = b.Le(at + 30, 2), comment_len = b.Le(at + 32, 2);
    const uint64_t next = at + 46 + name_len + extra_len + comment_len;
    if (!b.Has(at + 46, name_len + extra_len + comment_len) || next > dir_at + dir_size)
      return Corrupt("central directory entry " + std::to_string(k) + " runs past the directory");
    e.name = b.Sub(at + 46, name_len);
    if (e.size == 0xFFFFFFFF) {  // the real size is in the ZIP64 extra field (id 1), first
      for (uint64_t x = at + 46 + name_len; x + 4 <= at + 46 + name_len + extra_len;) {
        const uint64_t id = b.Le(x, 2), len = b.Le(x + 2, 2);
        if (id == 1 && len >= 8 && x + 4 + 8 <= at + 46 + name_len + extra_len) e.size = b.Le(x + 4, 8);
        x += 4 + len;
      }
    }
    out.push_back(std::move(e));
    at = next;
  }
  return out;
}

}  // namespace atenaot
