#include "codegen/c_support.h"

namespace atenaot {

const char kCSupportValidation[] = R"C(
#if defined(__GNUC__)
#define AOT_UNUSED __attribute__((unused))
#else
#define AOT_UNUSED
#endif
/* ---- C ABI argument checks (shared by NAME_run and the loader) ---- */
static int aot__fail(char* err, size_t err_len, int code, const char* what, size_t index, const char* detail) {
  if (err && err_len) {
    size_t n = 0;
    const char* parts[3] = {what, " ", detail};
    char idx[24];
    size_t k = 0, v = index;
    char tmp[24];
    do { tmp[k++] = (char)('0' + v % 10); v /= 10; } while (v && k < sizeof(tmp));
    for (size_t i = 0; i < k; ++i) idx[i] = tmp[k - 1 - i];
    idx[k] = 0;
    for (int p = 0; p < 3; ++p) {
      const char* s = parts[p];
      for (; s && *s && n + 1 < err_len; ++s) err[n++] = *s;
      if (p == 0) for (const char* d = idx; *d && n + 1 < err_len; ++d) err[n++] = *d;
    }
    err[n] = 0;
  }
  return code;
}

static int aot__check(const aot_tensor* t, const aot_tensor_info* info, size_t count, size_t index,
                      const char* what, char* err, size_t err_len) {
  (void)count;
  if (!t->data && info->ndim >= 0) {
    int64_t n = 1;
    for (int d = 0; d < info->ndim; ++d) n *= info->sizes[d];
    if (n > 0) return aot__fail(err, err_len, AOT_ERR_NULL_POINTER, what, index, "has a NULL data pointer");
  }
  if (t->dtype != info->dtype) return aot__fail(err, err_len, AOT_ERR_BAD_DTYPE, what, index, "has the wrong dtype");
  if (t->ndim != info->ndim) return aot__fail(err, err_len, AOT_ERR_BAD_SHAPE, what, index, "has the wrong number of dimensions");
  int64_t expect = 1;
  for (int d = info->ndim - 1; d >= 0; --d) {
    if (t->sizes[d] != info->sizes[d]) return aot__fail(err, err_len, AOT_ERR_BAD_SHAPE, what, index, "has the wrong sizes");
    if (info->sizes[d] != 1 && t->strides[d] != expect)
      return aot__fail(err, err_len, AOT_ERR_BAD_STRIDES, what, index, "is not contiguous row-major");
    expect *= info->sizes[d];
  }
  return AOT_OK;
}

static int aot__validate(const aot_tensor* inputs, size_t num_inputs, const aot_tensor_info* in_info, size_t n_in,
                         aot_tensor* outputs, size_t num_outputs, const aot_tensor_info* out_info, size_t n_out,
                         const void* arena, size_t arena_bytes, size_t need, char* err, size_t err_len) {
  if ((n_in && !inputs) || (n_out && !outputs))
    return aot__fail(err, err_len, AOT_ERR_NULL_POINTER, "inputs or outputs array", 0, "is NULL");
  if (num_inputs != n_in) return aot__fail(err, err_len, AOT_ERR_BAD_COUNT, "input count differs: expected", n_in, "");
  if (num_outputs != n_out) return aot__fail(err, err_len, AOT_ERR_BAD_COUNT, "output count differs: expected", n_out, "");
  if (need && !arena) return aot__fail(err, err_len, AOT_ERR_NULL_POINTER, "arena", 0, "is NULL");
  if (arena_bytes < need) return aot__fail(err, err_len, AOT_ERR_ARENA_TOO_SMALL, "arena is too small; bytes needed:", need, "");
  if (need && ((uintptr_t)arena % 64) != 0) return aot__fail(err, err_len, AOT_ERR_BAD_STRIDES, "arena is not 64-byte aligned", 0, "");
  for (size_t i = 0; i < n_in; ++i) {
    int s = aot__check(&inputs[i], &in_info[i], n_in, i, "input ", err, err_len);
    if (s) return s;
  }
  for (size_t i = 0; i < n_out; ++i) {
    int s = aot__check(&outputs[i], &out_info[i], n_out, i, "output ", err, err_len);
    if (s) return s;
  }
  return AOT_OK;
}
)C";

const char kCSupportMath[] = R"C(
/* ---- numeric helpers ---- */
AOT_UNUSED static inline int64_t aot__floordiv_i64(int64_t a, int64_t b) {
  if (b == 0) return 0; /* ATen raises; compiled code has no exceptions */
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}
AOT_UNUSED static inline int64_t aot__mod_i64(int64_t a, int64_t b) {
  if (b == 0) return 0;
  int64_t r = a % b;
  if (r != 0 && ((r < 0) != (b < 0))) r += b;
  return r;
}
AOT_UNUSED static inline double aot__mod_f(double a, double b) {
  double r = fmod(a, b);
  if (r != 0 && ((r < 0) != (b < 0))) r += b;
  return r;
}

/* expf without branches or calls, so loops using it vectorise: Cody-Waite
 * reduction x = n ln2 + r, a degree-6 polynomial for e^r, 2^n through the
 * exponent bits. Relative error about 2e-7 (float ulps), NaN propagates,
 * overflow gives inf and underflow 0 like expf. */
AOT_UNUSED static inline float aot__expf(float x) {
  const float xc = x < -103.0f ? -103.0f : (x > 88.8f ? 88.8f : x);
  const float n = (xc * 1.44269504088896341f + 12582912.0f) - 12582912.0f; /* round to nearest */
  const float r = (xc - n * 0.693359375f) + n * 2.12194440e-4f;
  float p = 1.9875691500e-4f;
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  p = p * r * r + r + 1.0f;
  /* 2^n in two halves so that n down to -149 (subnormals) stays exact. */
  const int32_t ni = (int32_t)n;
  const int32_t n1 = ni / 2, n2 = ni - n1;
  int32_t b1 = (n1 + 127) << 23, b2 = (n2 + 127) << 23;
  float s1, s2;
  memcpy(&s1, &b1, 4);
  memcpy(&s2, &b2, 4);
  const float y = p * s1 * s2;
  return x != x ? x : (x > 88.8f ? (float)INFINITY : y);
}

/* C[m,n] = beta*C + alpha * sum_k A[m,k] B[k,n], all strided (elements).
 * Picks the loop order that keeps the innermost loop unit-stride so the
 * compiler vectorises it: dot products when A and B run along k, row updates
 * when B and C run along n. Accumulates in float (as ATen's CPU GEMM). */
AOT_UNUSED static void aot__gemm_f32(int64_t M, int64_t N, int64_t K, float alpha,
                          const float* A, int64_t a_m, int64_t a_k,
                          const float* B, int64_t b_k, int64_t b_n, float beta,
                          float* C, int64_t c_m, int64_t c_n) {
  if (a_k == 1 && b_k == 1) {
    for (int64_t m = 0; m < M; ++m) {
      const float* a = A + m * a_m;
      for (int64_t n = 0; n < N; ++n) {
        const float* b = B + n * b_n;
        float acc = 0.f;
        for (int64_t k = 0; k < K; ++k) acc += a[k] * b[k];
        float* c = C + m * c_m + n * c_n;
        *c = (beta == 0.f ? 0.f : beta * *c) + alpha * acc;
      }
    }
    return;
  }
  if (b_n == 1 && c_n == 1) {
    for (int64_t m = 0; m < M; ++m) {
      float* c = C + m * c_m;
      if (beta == 0.f) { for (int64_t n = 0; n < N; ++n) c[n] = 0.f; }
      else if (beta != 1.f) { for (int64_t n = 0; n < N; ++n) c[n] *= beta; }
      for (int64_t k = 0; k < K; ++k) {
        const float av = alpha * A[m * a_m + k * a_k];
        const float* b = B + k * b_k;
        for (int64_t n = 0; n < N; ++n) c[n] += av * b[n];
      }
    }
    return;
  }
  for (int64_t m = 0; m < M; ++m)
    for (int64_t n = 0; n < N; ++n) {
      float acc = 0.f;
      for (int64_t k = 0; k < K; ++k) acc += A[m * a_m + k * a_k] * B[k * b_k + n * b_n];
      float* c = C + m * c_m + n * c_n;
      *c = (beta == 0.f ? 0.f : beta * *c) + alpha * acc;
    }
}
)C";

}  // namespace atenaot
