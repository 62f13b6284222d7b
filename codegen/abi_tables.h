// The aot_tensor_info tables a compiled library exports (c_api/atenaot.h),
// shared by the C and CUDA emitters so both describe a graph identically.
#pragma once

#include <string>
#include <vector>

#include "ir/graph.h"
#include "ir/status.h"

namespace atenaot {

// Inputs the graph writes (through any alias): AOT_INFO_MUTATED in the ABI.
std::vector<bool> MutatedInputs(const Graph& g);

// "static const aot_tensor_info SYM[n] = {...};" for the graph's inputs or
// outputs (names, dtypes, sizes, flags). Fails for dtypes or ranks the ABI
// cannot describe.
StatusOr<std::string> TensorInfoTable(const Graph& g, const std::string& sym, bool inputs);

// "static const aot__layout SYM[n] = {...};": the strides each input was
// traced with and which inputs shared memory (anchor input, byte distance),
// for aot__validate; "" when every input is contiguous in memory of its own.
std::string InputLayoutTable(const Graph& g, const std::string& sym);

// "0x1234ABCDu": the CRC-32 (zlib's) of bytes, as a C literal.
std::string Crc32Hex(const std::vector<uint8_t>& bytes);

// The weights check of a compiled library: aot_crc32.h's source, then
//   static int aot__check_weights(const void* w, char* err, size_t err_len)
// which returns AOT_OK when the `bytes` the model was built with are what
// `w` holds, else AOT_ERR_CORRUPT_WEIGHTS with a message naming NAME.weights
// (`in_file`) or the embedded weights. Needs the validation support code.
std::string WeightsCheckSource(const std::string& name, const std::vector<uint8_t>& bytes, bool in_file);

}  // namespace atenaot
