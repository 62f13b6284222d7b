/* ---- aot__sgemm split over the pool ----
 * By columns in units of 2 * NR (tile pairs stay put) or rows in units of MR,
 * over `parts` threads at most: the grain is ceil(units / parts), so the
 * pool makes at most `parts` chunks, each at least a grain long, and chunk
 * k's first unit lo has lo / grain == k: the scratch slot it packs into.
 * aot__sgemm_range makes the result bitwise the same for any split. */
typedef struct aot__sgemm_job {
  int64_t M, N, K, c_m, c_n, slot, grain;
  const aot__operand *A, *B;
  float* C;
  const aot__epilogue* ep;
  float* scratch;
  int split_n;
} aot__sgemm_job;
static void aot__sgemm_part(void* ctx, int64_t lo, int64_t hi) {
  const aot__sgemm_job* j = (const aot__sgemm_job*)ctx;
  float* s = j->slot ? j->scratch + lo / j->grain * j->slot : j->scratch; /* no scratch: NULL, no arithmetic on it */
  if (j->split_n)
    aot__sgemm_range(j->M, j->N, j->K, j->A, j->B, j->C, j->c_m, j->c_n, j->ep, s, 0, j->M, lo * 2 * AOT_GEMM_NR,
                     hi * 2 * AOT_GEMM_NR);
  else
    aot__sgemm_range(j->M, j->N, j->K, j->A, j->B, j->C, j->c_m, j->c_n, j->ep, s, lo * AOT_GEMM_MR, hi * AOT_GEMM_MR,
                     0, j->N);
}
/* scratch: `parts` slots of `slot` floats (aot__sgemm_scratch_floats each). */
AOT_UNUSED static void aot__sgemm_mt(int64_t M, int64_t N, int64_t K, const aot__operand* A, const aot__operand* B,
                                     float* C, int64_t c_m, int64_t c_n, const aot__epilogue* ep, float* scratch,
                                     int64_t slot, int parts, int split_n) {
  const int64_t units = split_n ? (N + 2 * AOT_GEMM_NR - 1) / (2 * AOT_GEMM_NR) : (M + AOT_GEMM_MR - 1) / AOT_GEMM_MR;
  aot__sgemm_job j = {M, N, K, c_m, c_n, slot, (units + parts - 1) / parts, A, B, C, ep, scratch, split_n};
  aot__parallel_for(units, 1, j.grain, aot__sgemm_part, &j);
}

/* ---- Winograd convolution split over the pool: `parts` units, unit k
 * the blocks of tile rows [k B / parts, (k + 1) B / parts) in scratch slot k
 * (whichever thread runs it; any split gives the same bits). ---- */
typedef struct aot__wino_job {
  int m;
  const aot__conv_geom* g;
  int64_t M, slot, blocks, parts;
  const float *x, *u;
  float* y;
  const aot__epilogue* ep;
  float* scratch;
} aot__wino_job;
static void aot__wino_part(void* ctx, int64_t lo, int64_t hi) {
  const aot__wino_job* j = (const aot__wino_job*)ctx;
  for (int64_t k = lo; k < hi; ++k)
    aot__conv2d_wino_range(j->m, j->g, j->M, j->x, j->u, j->y, j->ep, j->scratch + k * j->slot,
                           k * j->blocks / j->parts, (k + 1) * j->blocks / j->parts);
}
AOT_UNUSED static void aot__wino_mt(int m, const aot__conv_geom* g, int64_t M, const float* x, const float* u, float* y,
                                    const aot__epilogue* ep, float* scratch, int64_t slot, int parts) {
  aot__wino_job j = {m, g, M, slot, aot__wino_blocks(m, g, M), parts, x, u, y, ep, scratch};
  aot__parallel_for(parts, 1, 1, aot__wino_part, &j);
}

/* ---- a convolution and the windowed kernel reading it, in bands
 * (aot__conv_band_range), split over the pool as Winograd is: unit k the
 * bands [k B / parts, (k + 1) B / parts) in scratch slot k. ---- */
typedef struct aot__conv_band_job {
  const aot__conv_geom *cg, *qg;
  int reader;
  int64_t M, K, slot, bands, parts;
  const float *a, *x, *w2;
  const aot__epilogue *ep, *ep2;
  float *y, *scratch;
} aot__conv_band_job;
static void aot__conv_band_part(void* ctx, int64_t lo, int64_t hi) {
  const aot__conv_band_job* j = (const aot__conv_band_job*)ctx;
  for (int64_t k = lo; k < hi; ++k)
    aot__conv_band_range(j->cg, j->qg, j->reader, j->M, j->K, j->a, j->x, j->ep, j->w2, j->ep2, j->y,
                         j->scratch + k * j->slot, k * j->bands / j->parts, (k + 1) * j->bands / j->parts);
}
AOT_UNUSED static void aot__conv_band_mt(const aot__conv_geom* cg, const aot__conv_geom* qg, int reader, int64_t M,
                                         int64_t K, const float* a, const float* x, const aot__epilogue* ep,
                                         const float* w2, const aot__epilogue* ep2, float* y, float* scratch,
                                         int64_t slot, int parts) {
  aot__conv_band_job j = {cg, qg, reader, M,   K, slot,   aot__conv_bands(cg, qg, reader, M), parts, a,
                          x,  w2, ep,     ep2, y, scratch};
  aot__parallel_for(parts, 1, 1, aot__conv_band_part, &j);
}

/* ---- two linears in bands of rows (aot__linear_band_range), split over
 * the pool as the convolution bands are. ---- */
typedef struct aot__linear_band_job {
  int64_t M, K1, N1, N2, band, x_m, y_m, slot, bands, parts;
  const float *x, *w1, *w2;
  const aot__epilogue *ep1, *ep2;
  float *y, *scratch;
} aot__linear_band_job;
static void aot__linear_band_part(void* ctx, int64_t lo, int64_t hi) {
  const aot__linear_band_job* j = (const aot__linear_band_job*)ctx;
  for (int64_t k = lo; k < hi; ++k)
    aot__linear_band_range(j->M, j->K1, j->N1, j->N2, j->band, j->x, j->x_m, j->w1, j->ep1, j->w2, j->y, j->y_m, j->ep2,
                           j->scratch + k * j->slot, k * j->bands / j->parts, (k + 1) * j->bands / j->parts);
}
AOT_UNUSED static void aot__linear_band_mt(int64_t M, int64_t K1, int64_t N1, int64_t N2, int64_t band, const float* x,
                                           int64_t x_m, const float* w1, const aot__epilogue* ep1, const float* w2,
                                           float* y, int64_t y_m, const aot__epilogue* ep2, float* scratch,
                                           int64_t slot, int parts) {
  aot__linear_band_job j = {M,     K1, N1, N2, band, x_m, y_m, slot,   aot__linear_bands(M, band),
                            parts, x,  w1, w2, ep1,  ep2, y,   scratch};
  aot__parallel_for(parts, 1, 1, aot__linear_band_part, &j);
}
