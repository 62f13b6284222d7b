// The central directory of a ZIP file (what a TorchScript archive is): each
// entry's name and the CRC-32 of its uncompressed bytes. LibTorch's reader
// does not check these CRCs, so a flipped bit in a .pt would load as a wrong
// weight or garbled code; atenaot checks every record against them.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ir/status.h"

namespace atenaot {

struct ZipEntry {
  std::string name;
  uint32_t crc32 = 0;
  uint64_t size = 0;  // uncompressed
};

// Parses the end-of-central-directory record (ZIP64 included) and the entries.
// Bounded: every offset and length is checked against `bytes`.
StatusOr<std::vector<ZipEntry>> ReadZipDirectory(const std::string& bytes);

}  // namespace atenaot
