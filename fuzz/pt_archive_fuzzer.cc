// TorchScript archive loader: LoadModel on a file holding a .pt (a ZIP), with
// one float32 [2, 4] sample input. Covers atenaot's checks before LibTorch
// reads anything (ZIP directory and CRC-32s, data record sizes), LibTorch's
// loader and freezing, and the importer. Everything must come back as a
// Status: an escaping exception, an abort, a sanitizer report (a heap
// over-read into weights among them) or a hang is a finding.
#include <cstdint>
#include <string>

#include "fuzz/load_model_target.h"

namespace atenaot_fuzz {

void PtArchiveInit() { InitLoadModelTarget(); }

int PtArchiveOneInput(const uint8_t* data, size_t size) {
  static atenaot_fuzz::MemFile file("pt_archive");
  // Keep to the archive path (DetectModelFormat decides by the zip magic).
  std::string bytes(reinterpret_cast<const char*>(data), size);
  if (bytes.compare(0, 4, "PK\x03\x04") != 0) bytes = std::string("PK\x03\x04", 4) + bytes;
  atenaot::NpyArray x;
  x.dtype = atenaot::DType::kFloat32;
  x.shape = {2, 4};
  x.data.assign(32, 0);
  LoadModelMustReturn(file, bytes, {x});
  return 0;
}

}  // namespace atenaot_fuzz

#ifdef ATENAOT_LIBFUZZER
extern "C" int LLVMFuzzerInitialize(int*, char***) {
  atenaot_fuzz::PtArchiveInit();
  return 0;
}
extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return atenaot_fuzz::PtArchiveOneInput(data, size);
}
#endif
