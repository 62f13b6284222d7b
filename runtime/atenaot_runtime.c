/* The atenaot loader: implements c_api/atenaot.h for libraries made by
 * `atenaot compile`. Plain C: no exception or C++ type can cross the ABI.
 * Errors set a thread-local message; outputs are written only on success. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "atenaot.h"
#include "atenaot_model.h"

struct aot_model {
  void* dl;
  const aot_compiled_model* m;
  void* arena;   /* owned host arena of CPU models: used when a run passes none */
  void* weights; /* owned: NAME.weights contents, or NULL when embedded */
  void* state;   /* the model's own (m->open), e.g. a CUDA model's device arena */
};

static __thread char aot_err[512];

static aot_status fail(aot_status s, const char* fmt, const char* a, const char* b) {
  snprintf(aot_err, sizeof(aot_err), fmt, a ? a : "", b ? b : "");
  return s;
}

uint32_t aot_abi_version(void) { return ATENAOT_ABI_VERSION; }
const char* aot_version_string(void) { return "atenaot 0.1.0"; }
const char* aot_last_error(void) { return aot_err; }

const char* aot_status_name(aot_status s) {
  switch (s) {
    case AOT_OK:
      return "AOT_OK";
    case AOT_ERR_NULL_POINTER:
      return "AOT_ERR_NULL_POINTER";
    case AOT_ERR_BAD_COUNT:
      return "AOT_ERR_BAD_COUNT";
    case AOT_ERR_BAD_DTYPE:
      return "AOT_ERR_BAD_DTYPE";
    case AOT_ERR_BAD_SHAPE:
      return "AOT_ERR_BAD_SHAPE";
    case AOT_ERR_BAD_STRIDES:
      return "AOT_ERR_BAD_STRIDES";
    case AOT_ERR_ARENA_TOO_SMALL:
      return "AOT_ERR_ARENA_TOO_SMALL";
    case AOT_ERR_ABI_MISMATCH:
      return "AOT_ERR_ABI_MISMATCH";
    case AOT_ERR_OPEN_FAILED:
      return "AOT_ERR_OPEN_FAILED";
    case AOT_ERR_OUT_OF_MEMORY:
      return "AOT_ERR_OUT_OF_MEMORY";
    case AOT_ERR_BAD_INDEX:
      return "AOT_ERR_BAD_INDEX";
    case AOT_ERR_INTERNAL:
      return "AOT_ERR_INTERNAL";
    case AOT_ERR_DEVICE:
      return "AOT_ERR_DEVICE";
    case AOT_ERR_BAD_DEVICE:
      return "AOT_ERR_BAD_DEVICE";
    case AOT_ERR_BAD_ALIGNMENT:
      return "AOT_ERR_BAD_ALIGNMENT";
    case AOT_ERR_BAD_OPTION:
      return "AOT_ERR_BAD_OPTION";
    case AOT_ERR_CORRUPT_WEIGHTS:
      return "AOT_ERR_CORRUPT_WEIGHTS";
    case AOT_ERR_OVERLAP:
      return "AOT_ERR_OVERLAP";
    case AOT_ERR_UNSUPPORTED_CPU:
      return "AOT_ERR_UNSUPPORTED_CPU";
    case AOT_ERR_INDEX_OUT_OF_RANGE:
      return "AOT_ERR_INDEX_OUT_OF_RANGE";
  }
  return "AOT_ERR_UNKNOWN";
}

/* NAME.weights next to the library: DIR/libNAME.so -> DIR/NAME.weights. */
static aot_status load_weights(const char* lib_path, const aot_compiled_model* m, void** out) {
  char path[4096];
  const char* slash = strrchr(lib_path, '/');
  size_t dir_len = slash ? (size_t)(slash - lib_path + 1) : 0;
  if (dir_len + strlen(m->name) + 16 >= sizeof(path))
    return fail(AOT_ERR_OPEN_FAILED, "library path too long: %s%s", lib_path, NULL);
  memcpy(path, lib_path, dir_len);
  snprintf(path + dir_len, sizeof(path) - dir_len, "%s.weights", m->name);
  FILE* f = fopen(path, "rb");
  if (!f) return fail(AOT_ERR_OPEN_FAILED, "cannot open the weights file %s%s", path, NULL);
  void* buf = NULL;
  if (posix_memalign(&buf, 64, m->weights_bytes ? m->weights_bytes : 64) != 0) {
    fclose(f);
    return fail(AOT_ERR_OUT_OF_MEMORY, "cannot allocate the weights%s%s", NULL, NULL);
  }
  size_t got = fread(buf, 1, m->weights_bytes, f);
  int extra = fgetc(f);
  fclose(f);
  if (got != m->weights_bytes || extra != EOF) {
    free(buf);
    return fail(AOT_ERR_OPEN_FAILED, "weights file %s has the wrong size for this library%s", path, NULL);
  }
  *out = buf;
  return AOT_OK;
}

aot_status aot_model_open(const char* library_path, aot_model** out_model) {
  if (!library_path || !out_model)
    return fail(AOT_ERR_NULL_POINTER, "aot_model_open: NULL %s%s", library_path ? "out_model" : "library_path", NULL);
  void* dl = dlopen(library_path, RTLD_NOW | RTLD_LOCAL);
  if (!dl) return fail(AOT_ERR_OPEN_FAILED, "cannot load %s: %s", library_path, dlerror());
  const aot_compiled_model* (*entry)(void) = (const aot_compiled_model* (*)(void))dlsym(dl, "aot_compiled_model_entry");
  if (!entry) {
    dlclose(dl);
    return fail(AOT_ERR_OPEN_FAILED, "%s is not an atenaot model (no aot_compiled_model_entry)%s", library_path, NULL);
  }
  const aot_compiled_model* m = entry();
  if (!m) {
    dlclose(dl);
    return fail(AOT_ERR_OPEN_FAILED, "%s is not a usable atenaot model: its aot_compiled_model_entry returned NULL%s",
                library_path, NULL);
  }
  if (m->abi_version != ATENAOT_ABI_VERSION) {
    unsigned got = m->abi_version;
    dlclose(dl);
    snprintf(aot_err, sizeof(aot_err), "%s was built for ABI version %u; this runtime implements version %u",
             library_path, got, (unsigned)ATENAOT_ABI_VERSION);
    return AOT_ERR_ABI_MISMATCH;
  }
  aot_model* model = (aot_model*)calloc(1, sizeof(aot_model));
  if (!model) {
    dlclose(dl);
    return fail(AOT_ERR_OUT_OF_MEMORY, "out of memory%s%s", NULL, NULL);
  }
  model->dl = dl;
  model->m = m;
  /* A device model owns its (device) arena; the loader keeps host ones. */
  if (m->device == AOT_DEVICE_CPU && m->arena_bytes && posix_memalign(&model->arena, 64, m->arena_bytes) != 0) {
    aot_model_free(model);
    return fail(AOT_ERR_OUT_OF_MEMORY, "cannot allocate the arena%s%s", NULL, NULL);
  }
  if (m->weights_bytes) {
    aot_status s = load_weights(library_path, m, &model->weights);
    if (s != AOT_OK) {
      aot_model_free(model);
      return s;
    }
  }
  if (m->open) {
    char msg[sizeof(aot_err)];
    msg[0] = 0;
    aot_status s = m->open(model->weights, &model->state, msg, sizeof(msg));
    if (s != AOT_OK) {
      model->state = NULL;
      aot_model_free(model);
      return fail(s, "opening %s: %s", library_path, msg);
    }
  }
  *out_model = model;
  aot_err[0] = 0;
  return AOT_OK;
}

void aot_model_free(aot_model* model) {
  if (!model) return;
  if (model->state && model->m->close) model->m->close(model->state);
  free(model->arena);
  free(model->weights);
  if (model->dl) dlclose(model->dl);
  free(model);
}

#define NEED(p, what) \
  if (!(p)) return fail(AOT_ERR_NULL_POINTER, "%s: NULL %s", __func__, what)

aot_status aot_model_num_inputs(const aot_model* model, size_t* out) {
  NEED(model, "model");
  NEED(out, "out_count");
  *out = model->m->num_inputs;
  return AOT_OK;
}

aot_status aot_model_num_outputs(const aot_model* model, size_t* out) {
  NEED(model, "model");
  NEED(out, "out_count");
  *out = model->m->num_outputs;
  return AOT_OK;
}

aot_status aot_model_input_info(const aot_model* model, size_t index, aot_tensor_info* out) {
  NEED(model, "model");
  NEED(out, "out_info");
  if (index >= model->m->num_inputs) return fail(AOT_ERR_BAD_INDEX, "input index out of range%s%s", NULL, NULL);
  *out = model->m->inputs[index];
  return AOT_OK;
}

aot_status aot_model_output_info(const aot_model* model, size_t index, aot_tensor_info* out) {
  NEED(model, "model");
  NEED(out, "out_info");
  if (index >= model->m->num_outputs) return fail(AOT_ERR_BAD_INDEX, "output index out of range%s%s", NULL, NULL);
  *out = model->m->outputs[index];
  return AOT_OK;
}

aot_status aot_model_arena_bytes(const aot_model* model, size_t* out) {
  NEED(model, "model");
  NEED(out, "out_bytes");
  *out = model->m->arena_bytes;
  return AOT_OK;
}

aot_status aot_model_device(const aot_model* model, aot_device* out) {
  NEED(model, "model");
  NEED(out, "out_device");
  *out = model->m->device;
  return AOT_OK;
}

aot_status aot_model_run_on_stream(aot_model* model, const aot_tensor* inputs, size_t num_inputs, aot_tensor* outputs,
                                   size_t num_outputs, void* arena, size_t arena_bytes, void* stream) {
  NEED(model, "model");
  if (stream && model->m->device == AOT_DEVICE_CPU)
    return fail(AOT_ERR_BAD_DEVICE, "aot_model_run_on_stream: model %s runs on the CPU and takes no stream%s",
                model->m->name, NULL);
  if (!arena && model->m->device == AOT_DEVICE_CPU) {
    arena = model->arena;
    arena_bytes = model->m->arena_bytes;
  }
  char msg[sizeof(aot_err)];
  msg[0] = 0;
  aot_status s = model->m->run(model->state, inputs, num_inputs, outputs, num_outputs, arena, arena_bytes,
                               model->weights, stream, msg, sizeof(msg));
  if (s != AOT_OK) return fail(s, "aot_model_run: %s%s", msg, NULL);
  aot_err[0] = 0;
  return AOT_OK;
}

aot_status aot_model_run(aot_model* model, const aot_tensor* inputs, size_t num_inputs, aot_tensor* outputs,
                         size_t num_outputs, void* arena, size_t arena_bytes) {
  return aot_model_run_on_stream(model, inputs, num_inputs, outputs, num_outputs, arena, arena_bytes, NULL);
}

aot_status aot_model_set_option(aot_model* model, const char* key, int64_t value) {
  NEED(model, "model");
  NEED(key, "key");
  if (!model->m->set_option)
    return fail(AOT_ERR_BAD_OPTION, "aot_model_set_option: model %s has no options (asked for '%s')", model->m->name,
                key);
  char msg[sizeof(aot_err)];
  msg[0] = 0;
  aot_status s = model->m->set_option(model->state, key, value, msg, sizeof(msg));
  if (s != AOT_OK) return fail(s, "aot_model_set_option: %s%s", msg, NULL);
  aot_err[0] = 0;
  return AOT_OK;
}
