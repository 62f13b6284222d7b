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
