/* ---- host helpers ---- */
AOT_UNUSED static int aot__cuda_fail(char* err, size_t err_len, const char* what, cudaError_t e) {
  if (err && err_len) snprintf(err, err_len, "%s: CUDA error %s: %s", what, cudaGetErrorName(e), cudaGetErrorString(e));
  return AOT_ERR_DEVICE;
}
AOT_UNUSED static int aot__blas_fail(char* err, size_t err_len, const char* what, cublasStatus_t e) {
  if (err && err_len) snprintf(err, err_len, "%s: cuBLAS error %s: %s", what, cublasGetStatusName(e), cublasGetStatusString(e));
  return AOT_ERR_DEVICE;
}
#define AOT__CK(expr, what)                                                                  \
  do {                                                                                       \
    cudaError_t aot__e = (expr);                                                             \
    if (aot__e != cudaSuccess) return aot__cuda_fail(c->err, c->err_len, (what), aot__e);    \
  } while (0)
#define AOT__BLAS(expr, what)                                                                \
  do {                                                                                       \
    cublasStatus_t aot__b = (expr);                                                          \
    if (aot__b != CUBLAS_STATUS_SUCCESS) return aot__blas_fail(c->err, c->err_len, (what), aot__b); \
  } while (0)

/* Blocks for a grid-stride loop over n items: enough to fill the device,
 * never more than the items need (at least 1). */
AOT_UNUSED static unsigned aot__blocks(int sms, int64_t n, int64_t per_block) {
  int64_t b = (n + per_block - 1) / per_block, cap = (int64_t)(sms > 0 ? sms : 1) * 32;
  if (b > cap) b = cap;
  return (unsigned)(b < 1 ? 1 : b);
}

/* 1: device (or managed) memory, 0: host memory, -1: the query failed. */
AOT_UNUSED static int aot__is_device_ptr(const void* p) {
  cudaPointerAttributes a;
  if (cudaPointerGetAttributes(&a, p) != cudaSuccess) {
    (void)cudaGetLastError(); /* clear the sticky-free error of the query */
    return -1;
  }
  return a.type == cudaMemoryTypeDevice || a.type == cudaMemoryTypeManaged;
}

/* Checks that a tensor described as `device` really lives there. */
AOT_UNUSED static int aot__check_residence(const aot_tensor* t, size_t index, const char* what, const char* name, char* err,
                                size_t err_len) {
  if (!t->data) return AOT_OK;
  const int dev = aot__is_device_ptr(t->data);
  if (t->device == AOT_DEVICE_CUDA && dev != 1)
    return aot__fail_at(err, err_len, AOT_ERR_BAD_DEVICE, what, (int64_t)index, name,
                        "is marked AOT_DEVICE_CUDA but its data pointer is not CUDA device memory");
  if (t->device == AOT_DEVICE_CPU && dev == 1)
    return aot__fail_at(err, err_len, AOT_ERR_BAD_DEVICE, what, (int64_t)index, name,
                        "is marked AOT_DEVICE_CPU but its data pointer is CUDA device memory");
  return AOT_OK;
}
