/* ---- the model's state and entry points (codegen/templates/aot_cuda_model.cuh) ----
 * The fixed part of every generated CUDA library: open (device arena,
 * staging, weights upload, stream, cuBLAS), close, the cuda_graph option,
 * run (checks, staging of host tensors, CUDA graph replay) and the table the
 * loader reads. The generated file defines first:
 *   AOT_M_NAME_STR               the model's name, as a string
 *   AOT_M_SYM_model, AOT_M_SYM_arena_bytes  its public symbols (NAME_model, ...)
 *   AOT_M_INPUTS, AOT_M_OUTPUTS  how many tensors go in and come out
 *   AOT_M_ARENA_BYTES            the device arena (allocated at open)
 *   AOT_M_STAGE_BYTES            staging buffers for host tensors
 *   AOT_M_WEIGHTS_BYTES          the weights uploaded at open (0: none)
 *   AOT_M_WEIGHTS_ARG            1: open takes them from the caller (NAME.weights,
 *                                CRC-checked); 0: aot__weights in this file, if any
 *   AOT_M_INDEX_SITES            gathers that check indices on the device (0: none;
 *                                else aot__index_sites lists them)
 *   AOT_M_BLAS, AOT_M_BLAS_WORKSPACE  1: cuBLAS, with a workspace of that many bytes
 *   AOT_M_MUTATED_INPUTS         1: some input is written (host copies go back)
 * and aot__inputs, aot__outputs, aot__compute, aot__in_bytes / aot__in_stage
 * and aot__out_bytes / aot__out_stage (where there are inputs / outputs),
 * aot__check_weights (AOT_M_WEIGHTS_ARG: aot_weights_check.h). Needs
 * aot_validation.h, aot_cuda_host.cuh and aot_cuda_ctx.cuh before it. */
/* The model's public symbols: AOT__M(_run) is AOT_M_SYM_run, which the
 * generated file defines as NAME_run (the name is never macro-expanded, so a
 * model named like a predefined macro, e.g. linux under -std=gnu11, works). */
#define AOT__M(suffix) AOT_M_SYM##suffix
/* What a captured CUDA graph is keyed on: inputs, outputs, arena, stream. */
#define AOT__KEYS ((AOT_M_INPUTS > 0 ? AOT_M_INPUTS : 1) + (AOT_M_OUTPUTS > 0 ? AOT_M_OUTPUTS : 1) + 2)

typedef struct aot__state {
  uint8_t* arena; /* AOT_M_ARENA_BYTES */
  uint8_t* wts;   /* AOT_M_WEIGHTS_BYTES */
  uint8_t* stage; /* AOT_M_STAGE_BYTES */
  void* blas_ws;
  unsigned long long* flag; /* the index check's [site, index] */
  cudaStream_t stream;
  cudaEvent_t ready; /* orders the own stream after the legacy default stream */
  cublasHandle_t blas;
  int sms;
  int cuda_graph;
  cudaGraphExec_t graph;
  void* key[AOT__KEYS]; /* what the graph was captured with */
} aot__state;

static void aot__close(void* state) {
  aot__state* s = (aot__state*)state;
  if (!s) return;
  if (s->graph) (void)cudaGraphExecDestroy(s->graph);
  if (s->blas) (void)cublasDestroy(s->blas);
  if (s->ready) (void)cudaEventDestroy(s->ready);
  if (s->stream) (void)cudaStreamDestroy(s->stream);
  (void)cudaFree(s->arena);
  (void)cudaFree(s->wts);
  (void)cudaFree(s->stage);
  (void)cudaFree(s->blas_ws);
  (void)cudaFree(s->flag);
  free(s);
}

#define AOT__OPEN_CK(expr, what)                           \
  do {                                                     \
    cudaError_t aot__e = (expr);                           \
    if (aot__e != cudaSuccess) {                           \
      aot__close(s);                                       \
      return aot__cuda_fail(err, err_len, (what), aot__e); \
    }                                                      \
  } while (0)

static aot_status aot__open(const void* weights, void** state, char* err, size_t err_len) {
  if (!state) return aot__fail(err, err_len, AOT_ERR_NULL_POINTER, "the state pointer", "is NULL");
  *state = NULL;
#if AOT_M_WEIGHTS_ARG
  if (!weights)
    return aot__fail(err, err_len, AOT_ERR_NULL_POINTER, "weights",
                     "are NULL (this model keeps them in " AOT_M_NAME_STR ".weights)");
  {
    int ws = aot__check_weights(weights, err, err_len);
    if (ws) return ws;
  }
#endif
  aot__state* s = (aot__state*)calloc(1, sizeof(aot__state));
  if (!s) return aot__fail(err, err_len, AOT_ERR_OUT_OF_MEMORY, "the model state", "could not be allocated");
  int dev = 0;
  AOT__OPEN_CK(cudaGetDevice(&dev), "cudaGetDevice");
  AOT__OPEN_CK(cudaDeviceGetAttribute(&s->sms, cudaDevAttrMultiProcessorCount, dev), "cudaDeviceGetAttribute");
  AOT__OPEN_CK(cudaStreamCreateWithFlags(&s->stream, cudaStreamNonBlocking), "creating the model's stream");
  AOT__OPEN_CK(cudaEventCreateWithFlags(&s->ready, cudaEventDisableTiming), "creating an event");
#if AOT_M_ARENA_BYTES > 0
  AOT__OPEN_CK(cudaMalloc((void**)&s->arena, AOT_M_ARENA_BYTES), "allocating the device arena");
#endif
#if AOT_M_STAGE_BYTES > 0
  AOT__OPEN_CK(cudaMalloc((void**)&s->stage, AOT_M_STAGE_BYTES), "allocating staging buffers");
#endif
#if AOT_M_WEIGHTS_BYTES > 0
  AOT__OPEN_CK(cudaMalloc((void**)&s->wts, AOT_M_WEIGHTS_BYTES), "allocating device weights");
#if AOT_M_WEIGHTS_ARG
  AOT__OPEN_CK(cudaMemcpy(s->wts, weights, AOT_M_WEIGHTS_BYTES, cudaMemcpyHostToDevice), "uploading the weights");
#else
  AOT__OPEN_CK(cudaMemcpy(s->wts, aot__weights, AOT_M_WEIGHTS_BYTES, cudaMemcpyHostToDevice),
               "uploading the weights");
#endif
#endif
#if !AOT_M_WEIGHTS_ARG
  (void)weights;
#endif
#if AOT_M_INDEX_SITES > 0
  AOT__OPEN_CK(cudaMalloc((void**)&s->flag, 2 * sizeof(unsigned long long)), "allocating the index check flag");
#endif
#if AOT_M_BLAS
  AOT__OPEN_CK(cudaMalloc(&s->blas_ws, AOT_M_BLAS_WORKSPACE), "allocating the cuBLAS workspace");
  {
    cublasStatus_t b = cublasCreate(&s->blas);
    if (b != CUBLAS_STATUS_SUCCESS) {
      s->blas = NULL;
      aot__close(s);
      return aot__blas_fail(err, err_len, "cublasCreate", b);
    }
  }
#endif
  *state = s;
  return AOT_OK;
}

static aot_status aot__set_option(void* state, const char* key, int64_t value, char* err, size_t err_len) {
  aot__state* s = (aot__state*)state;
  if (!s || !key)
    return aot__fail(err, err_len, AOT_ERR_NULL_POINTER, "the model state or option key", "is NULL");
  if (strcmp(key, "cuda_graph") != 0)
    return aot__fail_at(err, err_len, AOT_ERR_BAD_OPTION, "unknown option", -1, key,
                        "(CUDA models have: cuda_graph)");
  if (value != 0 && value != 1)
    return aot__fail(err, err_len, AOT_ERR_BAD_OPTION, "option cuda_graph", "takes 0 or 1");
  s->cuda_graph = (int)value;
  if (!value && s->graph) {
    (void)cudaGraphExecDestroy(s->graph);
    s->graph = NULL;
  }
  return AOT_OK;
}

/* Replays the captured graph while the addresses and stream are those it
 * was captured with; captures again otherwise. */
static int aot__graph_run(aot__state* s, const aot__ctx* c) {
  void* key[AOT__KEYS] = {0};
  int k = 0;
#if AOT_M_INPUTS > 0
  for (int i = 0; i < AOT_M_INPUTS; ++i) key[k++] = c->in[i];
#endif
#if AOT_M_OUTPUTS > 0
  for (int i = 0; i < AOT_M_OUTPUTS; ++i) key[k++] = c->out[i];
#endif
  key[k++] = c->arena;
  key[k++] = (void*)c->stream;
  if (s->graph && memcmp(key, s->key, sizeof(key)) == 0) {
    AOT__CK(cudaGraphLaunch(s->graph, c->stream), "launching the CUDA graph");
    return AOT_OK;
  }
  if (s->graph) {
    (void)cudaGraphExecDestroy(s->graph);
    s->graph = NULL;
  }
  AOT__CK(cudaStreamBeginCapture(c->stream, cudaStreamCaptureModeThreadLocal), "beginning CUDA graph capture");
  const int st = aot__compute(c);
  cudaGraph_t g = NULL;
  const cudaError_t e = cudaStreamEndCapture(c->stream, &g);
  if (st != AOT_OK) {
    if (g) (void)cudaGraphDestroy(g);
    return st;
  }
  AOT__CK(e, "ending CUDA graph capture");
  const cudaError_t ie = cudaGraphInstantiate(&s->graph, g, 0);
  (void)cudaGraphDestroy(g);
  if (ie != cudaSuccess) s->graph = NULL;
  AOT__CK(ie, "instantiating the CUDA graph");
  memcpy(s->key, key, sizeof(key));
  AOT__CK(cudaGraphLaunch(s->graph, c->stream), "launching the CUDA graph");
  return AOT_OK;
}

static aot_status aot__run(void* state, const aot_tensor* inputs, size_t num_inputs, aot_tensor* outputs,
                           size_t num_outputs, void* arena, size_t arena_bytes, const void* weights, void* stream,
                           char* err, size_t err_len) {
  aot__state* s = (aot__state*)state;
  (void)weights;
  if (!s) return aot__fail(err, err_len, AOT_ERR_INTERNAL, "the model", "has no state (open was not called)");
  void* const use_arena = arena ? arena : (void*)s->arena;
  const size_t use_bytes = arena ? arena_bytes : (size_t)AOT_M_ARENA_BYTES;
  int st = aot__validate(inputs, num_inputs, aot__inputs, 0, AOT_M_INPUTS, outputs, num_outputs, aot__outputs,
                         AOT_M_OUTPUTS, use_arena, use_bytes, AOT_M_ARENA_BYTES, AOT_DEVICE_CUDA, err, err_len);
  if (st) return st;
#if AOT_M_ARENA_BYTES > 0
  if (arena && aot__is_device_ptr(arena) != 1)
    return aot__fail(err, err_len, AOT_ERR_BAD_DEVICE, "the arena",
                     "is not CUDA device memory (a CUDA model's arena is on the device)");
#endif
#if AOT_M_INPUTS > 0
  for (size_t i = 0; i < AOT_M_INPUTS; ++i)
    if ((st = aot__check_residence(&inputs[i], i, "input", aot__inputs[i].name, err, err_len)) != AOT_OK) return st;
#endif
#if AOT_M_OUTPUTS > 0
  for (size_t i = 0; i < AOT_M_OUTPUTS; ++i)
    if ((st = aot__check_residence(&outputs[i], i, "output", aot__outputs[i].name, err, err_len)) != AOT_OK)
      return st;
#endif
  aot__ctx cx;
  memset(&cx, 0, sizeof(cx));
  cx.arena = (uint8_t*)use_arena;
  cx.wts = s->wts;
  cx.flag = s->flag;
  cx.stream = stream ? (cudaStream_t)stream : s->stream;
  cx.blas = s->blas;
  cx.sms = s->sms;
  cx.err = err;
  cx.err_len = err_len;
  const aot__ctx* c = &cx;
  /* Whether a run touches host memory (then it waits for its stream). A
   * model that checks indices always waits: it reads the flag. */
#if AOT_M_INDEX_SITES == 0
  int host = 0;
#define AOT__MARK_HOST host = 1
#else
#define AOT__MARK_HOST (void)0
#endif
  /* On the model's own (non-blocking) stream, first wait for work the
   * caller queued on the legacy default stream (e.g. writing an input). */
  if (!stream) {
    AOT__CK(cudaEventRecord(s->ready, cudaStreamLegacy), "ordering after the default stream");
    AOT__CK(cudaStreamWaitEvent(s->stream, s->ready, 0), "ordering after the default stream");
  }
#if AOT_M_INPUTS > 0
  for (size_t i = 0; i < AOT_M_INPUTS; ++i) {
    if (inputs[i].device == AOT_DEVICE_CUDA) {
      cx.in[i] = inputs[i].data;
      continue;
    }
    AOT__MARK_HOST;
    cx.in[i] = s->stage + aot__in_stage[i];
    if (aot__in_bytes[i])
      AOT__CK(cudaMemcpyAsync(cx.in[i], inputs[i].data, aot__in_bytes[i], cudaMemcpyHostToDevice, cx.stream),
              "copying a host input to the device");
  }
#endif
#if AOT_M_OUTPUTS > 0
  for (size_t i = 0; i < AOT_M_OUTPUTS; ++i) {
    if (outputs[i].device == AOT_DEVICE_CUDA) {
      cx.out[i] = outputs[i].data;
      continue;
    }
    AOT__MARK_HOST;
    cx.out[i] = s->stage + aot__out_stage[i];
  }
#endif
#if AOT_M_BLAS
  AOT__BLAS(cublasSetStream(s->blas, cx.stream), "cublasSetStream");
  AOT__BLAS(cublasSetWorkspace(s->blas, s->blas_ws, AOT_M_BLAS_WORKSPACE), "cublasSetWorkspace");
#endif
#if AOT_M_INDEX_SITES > 0 /* outside the captured graph, which replays the kernels only */
  AOT__CK(cudaMemsetAsync(s->flag, 0, 2 * sizeof(unsigned long long), cx.stream), "clearing the index check flag");
#endif
  st = s->cuda_graph ? aot__graph_run(s, c) : aot__compute(c);
  if (st) return st;
#if AOT_M_OUTPUTS > 0
  for (size_t i = 0; i < AOT_M_OUTPUTS; ++i)
    if (outputs[i].device != AOT_DEVICE_CUDA && aot__out_bytes[i])
      AOT__CK(cudaMemcpyAsync(outputs[i].data, cx.out[i], aot__out_bytes[i], cudaMemcpyDeviceToHost, cx.stream),
              "copying an output to the host");
#endif
#if AOT_M_INPUTS > 0 && AOT_M_MUTATED_INPUTS
  for (size_t i = 0; i < AOT_M_INPUTS; ++i)
    if (inputs[i].device != AOT_DEVICE_CUDA && (aot__inputs[i].flags & AOT_INFO_MUTATED) && aot__in_bytes[i])
      AOT__CK(cudaMemcpyAsync(inputs[i].data, cx.in[i], aot__in_bytes[i], cudaMemcpyDeviceToHost, cx.stream),
              "copying an updated input back to the host");
#endif
#if AOT_M_INDEX_SITES == 0
  if (host || !stream) AOT__CK(cudaStreamSynchronize(cx.stream), "running the model");
#else
  {
    unsigned long long f[2] = {0, 0};
    AOT__CK(cudaMemcpyAsync(f, s->flag, sizeof(f), cudaMemcpyDeviceToHost, cx.stream),
            "reading the index check flag");
    AOT__CK(cudaStreamSynchronize(cx.stream), "running the model");
    if (f[0] >= 1 && f[0] <= AOT_M_INDEX_SITES) {
      const aot__index_site* q = &aot__index_sites[f[0] - 1];
      return aot__bad_index(err, err_len, (int64_t)f[1], q->lo, q->hi, q->where);
    }
  }
#endif
#undef AOT__MARK_HOST
  return AOT_OK;
}

static const aot_compiled_model aot__model = {ATENAOT_ABI_VERSION, AOT_M_NAME_STR, AOT_DEVICE_CUDA, 0,
                                              AOT_M_INPUTS, AOT_M_OUTPUTS, aot__inputs, aot__outputs,
                                              AOT_M_ARENA_BYTES, AOT_M_WEIGHTS_ARG ? AOT_M_WEIGHTS_BYTES : 0,
                                              aot__open, aot__close, aot__run, aot__set_option};

extern "C" {
const aot_compiled_model* AOT__M(_model)(void) { return &aot__model; }
size_t AOT__M(_arena_bytes)(void) { return AOT_M_ARENA_BYTES; }
/* What the loader (aot_model_open) looks up. */
AOT_EXPORT const aot_compiled_model* aot_compiled_model_entry(void) { return &aot__model; }
}
