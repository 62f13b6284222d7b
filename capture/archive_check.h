// Checks a TorchScript archive's tensor data records before LibTorch loads
// it. LibTorch 1.13 sizes each storage by the element count in the pickle and
// fills it from the data record without comparing the two, so a record shorter
// than its storage makes every later read of that tensor read the heap (and
// the heap bytes would land in a compiled library's weights).
#pragma once

#include <string>

#include "ir/status.h"

namespace atenaot {

// Checks every record against the CRC-32 in the ZIP's central directory (a
// flipped bit must not load as a wrong weight or garbled code), then
// unpickles data.pkl and constants.pkl of the archive in `bytes` with stand-in
// classes (no code runs) and fails, naming the record, when a storage needs
// more bytes than its record holds. Other damage is left to LibTorch's loader.
Status CheckArchiveRecords(const std::string& bytes, const std::string& path);

}  // namespace atenaot
