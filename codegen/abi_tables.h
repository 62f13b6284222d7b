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

// "#define NAME VALUE /* comment */\n": one of the AOT_M_* facts of a model
// that the templates (codegen/templates/aot_*_model.h) read.
std::string ModelMacro(const std::string& name, const std::string& value, const std::string& comment = "");

// "#define AOT_M_SYM_run NAME_run" and so on, one per suffix ("_run", ...):
// the templates' names for the model's public symbols.
std::string SymbolMacros(const std::string& name, const std::vector<std::string>& suffixes);

// The weights check of a compiled library: aot_crc32.h's source, the
// AOT_M_BLOB_BYTES / AOT_M_WEIGHTS_CRC of `bytes`, then
// codegen/templates/aot_weights_check.h's aot__check_weights(w, err, err_len).
// Needs AOT_M_NAME_STR, AOT_M_WEIGHTS_ARG and the validation support code.
std::string WeightsCheckSource(const std::vector<uint8_t>& bytes);

}  // namespace atenaot
