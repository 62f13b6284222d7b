// Weights side file: ReadWeightsFile (it takes a path, so the input goes into
// an in-memory file) must never crash; what it accepts has numel * itemsize
// bytes per weight, and WriteWeightsFile + ReadWeightsFile gives it back.
#include <cstdint>
#include <string>

#include "fuzz/fuzz_util.h"
#include "io/weights_file.h"

using namespace atenaot;

namespace atenaot_fuzz {

void WeightsInit() {}

int WeightsOneInput(const uint8_t* data, size_t size) {
  static atenaot_fuzz::MemFile in("weights_in"), out("weights_out");
  auto w = ReadWeightsFile(in.Set(data, size));
  if (!w.ok()) return 0;
  for (const auto& [key, wd] : *w)
    if (static_cast<int64_t>(wd.bytes.size()) != wd.meta.numel() * DTypeSize(wd.meta.dtype))
      atenaot_fuzz::Fail("weight \"" + key + "\" has a wrong byte count");
  if (!WriteWeightsFile(out.path(), *w).ok()) atenaot_fuzz::Fail("cannot write back");
  auto again = ReadWeightsFile(out.path());
  if (!again.ok()) atenaot_fuzz::Fail("written file does not read: " + again.status().ToString());
  if (again->size() != w->size()) atenaot_fuzz::Fail("weight count changed");
  for (const auto& [key, wd] : *w) {
    auto it = again->find(key);
    if (it == again->end() || it->second.bytes != wd.bytes || !(it->second.meta == wd.meta))
      atenaot_fuzz::Fail("weight \"" + key + "\" changed");
  }
  return 0;
}

}  // namespace atenaot_fuzz

#ifdef ATENAOT_LIBFUZZER
extern "C" int LLVMFuzzerInitialize(int*, char***) {
  atenaot_fuzz::WeightsInit();
  return 0;
}
extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return atenaot_fuzz::WeightsOneInput(data, size);
}
#endif
