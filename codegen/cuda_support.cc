#include "codegen/cuda_support.h"

namespace atenaot {

const char kCudaSupportDevice[] = R"CU(
/* ---- device helpers ---- */
/* The elementwise table's helpers (same semantics as the C backend's). */
AOT_UNUSED static __device__ __forceinline__ float aot__expf(float x) { return expf(x); }
AOT_UNUSED static __device__ __forceinline__ float aot__logf(float x) { return logf(x); }
AOT_UNUSED static __device__ __forceinline__ float aot__tanhf(float x) { return tanhf(x); }
AOT_UNUSED static __device__ __forceinline__ float aot__erff(float x) { return erff(x); }
AOT_UNUSED static __device__ __forceinline__ float aot__powf(float x, float y) { return powf(x, y); }
AOT_UNUSED static __device__ __forceinline__ float aot__sigmoidf(float x) { return 1.0f / (1.0f + expf(-x)); }
AOT_UNUSED static __device__ __forceinline__ float aot__siluf(float x) { return x / (1.0f + expf(-x)); }
AOT_UNUSED static __device__ __forceinline__ float aot__gelu_erff(float x) { return 0.5f * x * erfcf(x * -0.70710678118654752f); }
AOT_UNUSED static __device__ __forceinline__ float aot__gelu_tanhf(float x) {
  return 0.5f * x * (1.0f + tanhf(0.7978845608028654f * (x + 0.044715f * x * x * x)));
}
AOT_UNUSED static __device__ __forceinline__ int64_t aot__floordiv_i64(int64_t a, int64_t b) {
  if (b == 0) return 0; /* ATen raises; compiled code has no exceptions */
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}
AOT_UNUSED static __device__ __forceinline__ int64_t aot__mod_i64(int64_t a, int64_t b) {
  if (b == 0) return 0;
  int64_t r = a % b;
  if (r != 0 && ((r < 0) != (b < 0))) r += b;
  return r;
}
AOT_UNUSED static __device__ __forceinline__ double aot__mod_f(double a, double b) {
  double r = fmod(a, b);
  if (r != 0 && ((r < 0) != (b < 0))) r += b;
  return r;
}
template <typename T> static __device__ __forceinline__ bool aot__isnan(T v) { return v != v; }
/* Records an index out of range: the first thread to set f[0] (site k + 1)
 * writes its index to f[1]; the host reads both after the run. */
AOT_UNUSED static __device__ __forceinline__ void aot__flag_index(unsigned long long* f, unsigned long long site,
                                                                  long long k) {
  if (atomicCAS(f, 0ull, site) == 0ull) f[1] = (unsigned long long)k;
}

/* Reduction operators; max/min propagate NaN like ATen. */
struct aot__add { template <typename T> __device__ __forceinline__ T operator()(T a, T b) const { return a + b; } };
struct aot__mul { template <typename T> __device__ __forceinline__ T operator()(T a, T b) const { return a * b; } };
struct aot__max { template <typename T> __device__ __forceinline__ T operator()(T a, T b) const { return (a != a || a > b) ? a : b; } };
struct aot__min { template <typename T> __device__ __forceinline__ T operator()(T a, T b) const { return (a != a || a < b) ? a : b; } };

/* Reduces v over the block (blockDim.x a multiple of 32, at most 1024);
 * every thread gets the result. `sh` holds 32 T in shared memory. */
template <typename T, typename F> static __device__ __forceinline__ T aot__block_reduce(T v, F f, T* sh) {
  for (int o = 16; o > 0; o >>= 1) v = f(v, __shfl_down_sync(0xffffffffu, v, o));
  const int lane = (int)(threadIdx.x & 31u), w = (int)(threadIdx.x >> 5), nw = (int)((blockDim.x + 31u) >> 5);
  __syncthreads(); /* sh is free (a previous reduction's readers are done) */
  if (lane == 0) sh[w] = v;
  __syncthreads();
  T r = sh[0];
  for (int k = 1; k < nw; ++k) r = f(r, sh[k]);
  return r;
}

/* Best (value, index) of the block for argmax/argmin: NaN first, then the
 * larger (smaller) value, ties to the lower index, as ATen. */
template <bool kMax, typename T> static __device__ __forceinline__ bool aot__better(T bv, int64_t bi, T av, int64_t ai) {
  if (aot__isnan(av)) return aot__isnan(bv) && bi < ai;
  if (aot__isnan(bv)) return true;
  if (kMax ? bv > av : bv < av) return true;
  return bv == av && bi < ai;
}
template <bool kMax, typename T>
static __device__ __forceinline__ void aot__block_arg(T* v, int64_t* i, T* shv, int64_t* shi) {
  for (int o = 16; o > 0; o >>= 1) {
    const T ov = __shfl_down_sync(0xffffffffu, *v, o);
    const int64_t oi = __shfl_down_sync(0xffffffffu, *i, o);
    if (aot__better<kMax>(ov, oi, *v, *i)) { *v = ov; *i = oi; }
  }
  const int lane = (int)(threadIdx.x & 31u), w = (int)(threadIdx.x >> 5), nw = (int)((blockDim.x + 31u) >> 5);
  __syncthreads();
  if (lane == 0) { shv[w] = *v; shi[w] = *i; }
  __syncthreads();
  *v = shv[0];
  *i = shi[0];
  for (int k = 1; k < nw; ++k)
    if (aot__better<kMax>(shv[k], shi[k], *v, *i)) { *v = shv[k]; *i = shi[k]; }
}
)CU";

const char kCudaSupportHost[] = R"CU(
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
)CU";

}  // namespace atenaot
