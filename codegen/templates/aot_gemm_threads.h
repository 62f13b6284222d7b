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

/* ---- kernels split into `parts` units over slots of scratch: units [lo,
 * hi) on one thread run the kernel's range function once, on blocks [lo B /
 * parts, hi B / parts) in scratch slot lo (any split gives the same bits; on
 * fewer threads than parts, the blocks then go in one range, as compiled for
 * one thread): Winograd's tile rows, the convolution bands, the linear
 * bands. Each kernel passes its arguments and an adapter that calls its
 * range. ---- */
typedef void (*aot__slot_range_fn)(const void* args, float* slot, int64_t b0, int64_t b1);
typedef struct aot__slot_job {
  aot__slot_range_fn range;
  const void* args;
  float* scratch;
  int64_t slot, blocks, parts;
} aot__slot_job;
static void aot__slot_part(void* ctx, int64_t lo, int64_t hi) {
  const aot__slot_job* j = (const aot__slot_job*)ctx;
  j->range(j->args, j->scratch + lo * j->slot, lo * j->blocks / j->parts, hi * j->blocks / j->parts);
}
static void aot__slot_split(aot__slot_range_fn range, const void* args, float* scratch, int64_t slot, int64_t blocks,
                            int parts) {
  aot__slot_job j = {range, args, scratch, slot, blocks, parts};
  aot__parallel_for(parts, 1, 1, aot__slot_part, &j);
}

/* ---- Winograd convolution (aot__conv2d_wino_range) ---- */
typedef struct aot__wino_args {
  int m;
  const aot__conv_geom* g;
  int64_t M;
  const float *x, *u;
  float* y;
  const aot__epilogue* ep;
} aot__wino_args;
static void aot__wino_slots(const void* args, float* slot, int64_t b0, int64_t b1) {
  const aot__wino_args* a = (const aot__wino_args*)args;
  aot__conv2d_wino_range(a->m, a->g, a->M, a->x, a->u, a->y, a->ep, slot, b0, b1);
}
AOT_UNUSED static void aot__wino_mt(int m, const aot__conv_geom* g, int64_t M, const float* x, const float* u, float* y,
                                    const aot__epilogue* ep, float* scratch, int64_t slot, int parts) {
  const aot__wino_args a = {m, g, M, x, u, y, ep};
  aot__slot_split(aot__wino_slots, &a, scratch, slot, aot__wino_tile_rows(m, g), parts);
}

/* ---- a convolution and the windowed kernel reading it, in bands
 * (aot__conv_band_range) ---- */
typedef struct aot__conv_band_args {
  const aot__conv_geom *cg, *qg;
  int reader;
  int64_t M, K, chunks;
  const float *a, *x, *w2;
  const aot__epilogue *ep, *ep2;
  float* y;
} aot__conv_band_args;
static void aot__conv_band_slots(const void* args, float* slot, int64_t u0, int64_t u1) {
  const aot__conv_band_args* a = (const aot__conv_band_args*)args;
  aot__conv_band_range(a->cg, a->qg, a->reader, a->M, a->K, a->chunks, a->a, a->x, a->ep, a->w2, a->ep2, a->y, slot, u0,
                       u1);
}
AOT_UNUSED static void aot__conv_band_mt(const aot__conv_geom* cg, const aot__conv_geom* qg, int reader, int64_t M,
                                         int64_t K, int64_t chunks, const float* a, const float* x,
                                         const aot__epilogue* ep, const float* w2, const aot__epilogue* ep2, float* y,
                                         float* scratch, int64_t slot, int parts) {
  const aot__conv_band_args args = {cg, qg, reader, M, K, chunks, a, x, w2, ep, ep2, y};
  aot__slot_split(aot__conv_band_slots, &args, scratch, slot, chunks * aot__conv_bands(cg, qg, reader, M), parts);
}

/* ---- two linears in bands of rows (aot__linear_band_range) ---- */
typedef struct aot__linear_band_args {
  int64_t M, K1, N1, N2, band, x_m, y_m;
  const float *x, *w1, *w2;
  const aot__epilogue *ep1, *ep2;
  float* y;
} aot__linear_band_args;
static void aot__linear_band_slots(const void* args, float* slot, int64_t b0, int64_t b1) {
  const aot__linear_band_args* a = (const aot__linear_band_args*)args;
  aot__linear_band_range(a->M, a->K1, a->N1, a->N2, a->band, a->x, a->x_m, a->w1, a->ep1, a->w2, a->y, a->y_m, a->ep2,
                         slot, b0, b1);
}
AOT_UNUSED static void aot__linear_band_mt(int64_t M, int64_t K1, int64_t N1, int64_t N2, int64_t band, const float* x,
                                           int64_t x_m, const float* w1, const aot__epilogue* ep1, const float* w2,
                                           float* y, int64_t y_m, const aot__epilogue* ep2, float* scratch,
                                           int64_t slot, int parts) {
  const aot__linear_band_args a = {M, K1, N1, N2, band, x_m, y_m, x, w1, w2, ep1, ep2, y};
  aot__slot_split(aot__linear_band_slots, &a, scratch, slot, aot__linear_bands(M, band), parts);
}
