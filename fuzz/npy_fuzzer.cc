// .npy reader: ParseNpy must never crash; what it accepts has numel * itemsize
// data bytes, and SerializeNpy + ParseNpy gives it back unchanged.
#include <cstdint>
#include <string>

#include "fuzz/fuzz_util.h"
#include "io/npy.h"

using namespace atenaot;

namespace atenaot_fuzz {

void NpyInit() {}

int NpyOneInput(const uint8_t* data, size_t size) {
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  auto a = ParseNpy(bytes, "fuzz input");
  if (!a.ok()) return 0;
  if (static_cast<int64_t>(a->data.size()) != a->numel() * DTypeSize(a->dtype))
    atenaot_fuzz::Fail("data size " + std::to_string(a->data.size()) + " != numel * itemsize");
  if (a->Strides().size() != a->shape.size()) atenaot_fuzz::Fail("strides rank");
  auto b = ParseNpy(SerializeNpy(*a), "serialized");
  if (!b.ok()) atenaot_fuzz::Fail("serialized array does not parse: " + b.status().ToString());
  if (b->dtype != a->dtype || b->shape != a->shape || b->fortran_order != a->fortran_order || b->data != a->data)
    atenaot_fuzz::Fail("serialize + parse changed the array");
  return 0;
}

}  // namespace atenaot_fuzz

#ifdef ATENAOT_LIBFUZZER
extern "C" int LLVMFuzzerInitialize(int*, char***) {
  atenaot_fuzz::NpyInit();
  return 0;
}
extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return atenaot_fuzz::NpyOneInput(data, size);
}
#endif
