// The weights side file: the data of a graph's weights, stored next to its IR
// text (FILE.weights beside FILE). A small binary format of our own:
//   "ATNW" u32 version=2, u32 count, then per weight:
//   u32 key_len, key bytes, u8 dtype (ATen code), u32 ndim, i64 sizes[ndim],
//   u64 nbytes, data (contiguous, little-endian), u32 CRC-32 (zlib's) of the
//   entry's bytes from key_len through data. A flipped bit anywhere is an
//   error naming the weight, never a silently different number.
#pragma once

#include <string>
#include <unordered_map>

#include "ir/graph.h"
#include "ir/status.h"

namespace atenaot {

Status WriteWeightsFile(const std::string& path, const std::unordered_map<std::string, WeightData>& weights);
StatusOr<std::unordered_map<std::string, WeightData>> ReadWeightsFile(const std::string& path);

}  // namespace atenaot
