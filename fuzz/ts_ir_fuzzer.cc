// TorchScript IR text importer: LoadModel on a file holding `graph(` text
// (LibTorch's parseIR, then the importer, which runs every op once on zero
// inputs of the declared types). Everything must come back as a Status:
// an exception escaping, an abort or a sanitizer report is a finding. (A crash
// inside LibTorch's own parser that atenaot cannot catch is reported too.)
#include <ATen/Parallel.h>

#include <cstdint>
#include <string>

#include "capture/load_model.h"
#include "fuzz/fuzz_util.h"
#include "ir/verifier.h"
#include "schema/dispatcher_schemas.h"

using namespace atenaot;

namespace atenaot_fuzz {

void TsIrInit() {
  at::set_num_threads(1);
  LiveOpTable();
}

int TsIrOneInput(const uint8_t* data, size_t size) {
  static atenaot_fuzz::MemFile file("ts_ir");
  std::string text(reinterpret_cast<const char*>(data), size);
  // Keep to the TorchScript-text path (DetectModelFormat decides by content).
  if (text.compare(0, 6, "graph(") != 0) text = "graph(" + text;
  try {
    auto g = LoadModel(file.Set(text.data(), text.size()), {}, LiveOpTable());
    if (g.ok()) (void)VerifyGraph(**g);
  } catch (const std::exception& e) {
    atenaot_fuzz::Fail(std::string("exception escaped LoadModel: ") + e.what());
  } catch (...) {
    atenaot_fuzz::Fail("non-std exception escaped LoadModel");
  }
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
