/* A library claiming another ABI version: the loader must refuse it. */
#include <stddef.h>
#include <stdint.h>
typedef struct {
  uint32_t abi_version;
} fake_model;
static const fake_model m = {999};
const void* aot_compiled_model_entry(void) { return &m; }
