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
