/* Two linears where the second reads only the first's result (after the
 * activation in its store) -- a transformer's or ConvNeXt's MLP: linear,
 * gelu or relu, linear -- in bands of rows: each band's hidden rows go to
 * scratch as the first GEMM computes them, and the second multiplies them
 * into its output rows, so the hidden result (four times the layer's width:
 * ConvNeXt-T's first stage, 4.8 MB) is never stored whole. Both weights come
 * prepacked as B; the rows of x and of the hidden band are read in place
 * (unit column stride), so the GEMMs need no packing scratch. Each band has
 * at least AOT_GEMM_MR rows (the last takes the remainder), so every element
 * is summed as the unbanded GEMM sums it: bitwise the two linears'. */
#include "aot_kernels.h"

/* A band aims at LINEAR_BAND_FLOATS hidden floats (256 KB: in L2 while the
 * second GEMM reads it) and takes at least 64 rows; each band streams both
 * weights once, so where they exceed LINEAR_BAND_SMALL_WEIGHTS floats (2 MB)
 * a band takes at least 512 rows: BERT-base's MLP (19 MB of weights) in
 * bands of 64 of its 128 tokens ran 10-15% slower (bench/README.md), and
 * ConvNeXt-T's (0.3-4.7 MB) as fast as unbanded. */
#define AOT__LINEAR_BAND_FLOATS (64 * 1024)
#define AOT__LINEAR_BAND_SMALL_WEIGHTS (512 * 1024)

AOT_KAPI int64_t aot__linear_band_rows(int64_t K1, int64_t N1, int64_t N2) {
  const int64_t least = N1 * (K1 + N2) > AOT__LINEAR_BAND_SMALL_WEIGHTS ? 512 : 64;
  const int64_t rows = AOT__LINEAR_BAND_FLOATS / (N1 > 0 ? N1 : 1) / AOT_GEMM_MR * AOT_GEMM_MR;
  return rows < least ? least : rows;
}

AOT_KAPI int64_t aot__linear_bands(int64_t M, int64_t band) { return M <= band ? 1 : M / band; }

AOT_KAPI int64_t aot__linear_band_scratch_floats(int64_t M, int64_t N1, int64_t band) {
  const int64_t largest = M - (aot__linear_bands(M, band) - 1) * band;
  return (largest * N1 + 15) / 16 * 16;
}

AOT_KAPI void aot__linear_band_range(int64_t M, int64_t K1, int64_t N1, int64_t N2, int64_t band, const float* x,
                                     int64_t x_m, const float* w1, const aot__epilogue* ep1, const float* w2, float* y,
                                     int64_t y_m, const aot__epilogue* ep2, float* scratch, int64_t b0, int64_t b1) {
  const int64_t nb = aot__linear_bands(M, band);
  const aot__operand B1 = {w1, 0, 0, 1, 0, 0}, B2 = {w2, 0, 0, 1, 0, 0}, A2 = {scratch, N1, 1, 0, 0, 0};
  for (int64_t b = b0; b < b1; ++b) {
    const int64_t r0 = b * band, rows = (b + 1 == nb ? M : r0 + band) - r0;
    const aot__operand A1 = {x + r0 * x_m, x_m, 1, 0, 0, 0};
    /* The epilogues' row-strided operands start at the band's first row. */
    aot__epilogue e1 = *ep1, e2 = *ep2;
    if (e1.bias) e1.bias += r0 * e1.bias_m;
    if (e1.res) e1.res += r0 * e1.res_m;
    if (e2.bias) e2.bias += r0 * e2.bias_m;
    if (e2.res) e2.res += r0 * e2.res_m;
    aot__sgemm(rows, N1, K1, &A1, &B1, scratch, N1, 1, &e1, 0);
    aot__sgemm(rows, N2, N1, &A2, &B2, y + r0 * y_m, y_m, 1, &e2, 0);
  }
}
