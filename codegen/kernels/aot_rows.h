/* Row reductions of contiguous floats that generated code (sums, means,
 * average pooling) and the kernel library (softmax and layer_norm rows)
 * share: 16 independent lanes the compiler keeps in vector registers, then
 * the lanes and the tail in a fixed order, so every thread split gives the
 * same bits. Generated files carry this text through codegen/c_support.cc's
 * math (the build turns it into aot_rows.inc). Needs AOT_UNUSED (aot_vecmath.h
 * or the generated file's validation code defines it). */
#ifndef AOT_ROWS_H
#define AOT_ROWS_H

#include <math.h>
#include <stdint.h>

/* The sum of n contiguous floats in double (host builds' sum, mean and
 * average pooling): 16 independent lanes the compiler keeps in vector
 * registers (one serial double add per element ran 5x slower on a 56 x 56
 * plane), then the lanes and the tail in a fixed order: the same bits on
 * every thread split. */
AOT_UNUSED static inline double aot__sum_f32d(const float* x, int64_t n) {
  double s[16] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
  /* n16 up front: GCC -O3 warned of undefined behaviour in the tail loop of
   * the `i + 16 <= n` form when n is a constant multiple of 16. */
  const int64_t n16 = n - n % 16;
  for (int64_t i = 0; i < n16; i += 16)
    for (int l = 0; l < 16; ++l) s[l] += (double)x[i + l];
  double acc = 0;
  for (int l = 0; l < 16; ++l) acc += s[l];
  for (int64_t i = n16; i < n; ++i) acc += (double)x[i];
  return acc;
}
/* The sum of (x[i] - mean)^2 over a contiguous run, the same lanes in double
 * (layer_norm's variance, two-pass as the kernel always was). */
AOT_UNUSED static inline double aot__sqdev_f32d(const float* x, int64_t n, double mean) {
  double s[16] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
  const int64_t n16 = n - n % 16;
  for (int64_t i = 0; i < n16; i += 16)
    for (int l = 0; l < 16; ++l) {
      const double d = (double)x[i + l] - mean;
      s[l] += d * d;
    }
  double acc = 0;
  for (int l = 0; l < 16; ++l) acc += s[l];
  for (int64_t i = n16; i < n; ++i) {
    const double d = (double)x[i] - mean;
    acc += d * d;
  }
  return acc;
}
/* The largest of n contiguous floats (NaN never wins, as `if (x > m)`): 16
 * lanes the compiler vectorises; the scalar compare chain took 60% of a
 * BERT-base attention softmax (rows of 128: 434 -> 180 us). Max is exact, so
 * the lanes change no bits. */
AOT_UNUSED static inline float aot__max_f32(const float* x, int64_t n) {
  float l[16];
  for (int j = 0; j < 16; ++j) l[j] = -INFINITY;
  const int64_t n16 = n - n % 16;
  for (int64_t i = 0; i < n16; i += 16)
    for (int j = 0; j < 16; ++j) l[j] = x[i + j] > l[j] ? x[i + j] : l[j];
  float m = -INFINITY;
  for (int j = 0; j < 16; ++j) m = l[j] > m ? l[j] : m;
  for (int64_t i = n16; i < n; ++i) m = x[i] > m ? x[i] : m;
  return m;
}

#endif /* AOT_ROWS_H */
