// TorchScript IR text importer: LoadModel on a file holding `graph(` text
// (LibTorch's parseIR, then the importer, which runs every op once on zero
// inputs of the declared types). Everything must come back as a Status:
// an exception escaping, an abort or a sanitizer report is a finding. (A crash
// inside LibTorch's own parser that atenaot cannot catch is reported too.)
#include <cstdint>
#include <string>

#include "fuzz/load_model_target.h"

namespace atenaot_fuzz {

void TsIrInit() { InitLoadModelTarget(); }

int TsIrOneInput(const uint8_t* data, size_t size) {
  static atenaot_fuzz::MemFile file("ts_ir");
  std::string text(reinterpret_cast<const char*>(data), size);
  // Keep to the TorchScript-text path (DetectModelFormat decides by content).
  if (text.compare(0, 6, "graph(") != 0) text = "graph(" + text;
  LoadModelMustReturn(file, text, {});
  return 0;
}

}  // namespace atenaot_fuzz

#ifdef ATENAOT_LIBFUZZER
extern "C" int LLVMFuzzerInitialize(int*, char***) {
  atenaot_fuzz::TsIrInit();
  return 0;
}
extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return atenaot_fuzz::TsIrOneInput(data, size);
}
#endif
