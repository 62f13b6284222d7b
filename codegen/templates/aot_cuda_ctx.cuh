/* ---- what a run's launchers see (codegen/templates/aot_cuda_ctx.cuh) ----
 * Device addresses of every tensor, the stream and the cuBLAS handle. Reads
 * AOT_M_INPUTS and AOT_M_OUTPUTS (aot_cuda_model.cuh lists the macros). */
typedef struct aot__ctx {
  void* in[AOT_M_INPUTS > 0 ? AOT_M_INPUTS : 1];
  void* out[AOT_M_OUTPUTS > 0 ? AOT_M_OUTPUTS : 1];
  uint8_t* arena;
  uint8_t* wts;
  unsigned long long* flag; /* [site, index] of an index out of range */
  cudaStream_t stream;
  cublasHandle_t blas;
  int sms;
  char* err;
  size_t err_len;
} aot__ctx;
