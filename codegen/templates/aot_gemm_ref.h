
/* C[m,n] = beta*C + alpha * sum_k A[m,k] B[k,n], all strided (elements).
 * Picks the loop order that keeps the innermost loop unit-stride so the
 * compiler vectorises it: dot products when A and B run along k, row updates
 * when B and C run along n. Accumulates in float (as ATen's CPU GEMM). */
AOT_UNUSED static void aot__gemm_f32(int64_t M, int64_t N, int64_t K, float alpha, const float* A, int64_t a_m,
                                     int64_t a_k, const float* B, int64_t b_k, int64_t b_n, float beta, float* C,
                                     int64_t c_m, int64_t c_n) {
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
      if (beta == 0.f) {
        for (int64_t n = 0; n < N; ++n) c[n] = 0.f;
      } else if (beta != 1.f) {
        for (int64_t n = 0; n < N; ++n) c[n] *= beta;
      }
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
