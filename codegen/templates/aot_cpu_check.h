/* ---- the CPU this library was built for ----
 * The compiler defines a macro for each instruction-set extension its -march
 * enables; each is asked of the CPU at open. These functions are compiled
 * for baseline x86-64 (AOT_BASELINE) so the check itself runs anywhere. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__CUDACC__)
#define AOT_BASELINE __attribute__((target("arch=x86-64")))
#ifndef AOT_CPU_NAME
#define AOT_CPU_NAME "this build's -march"
#endif
/* Test hook: -DAOT_TEST_HIDE_CPU_FEATURE=\"avx2\" pretends the CPU lacks one. */
AOT_BASELINE AOT_UNUSED static int aot__cpu_hidden(const char* name) {
#ifdef AOT_TEST_HIDE_CPU_FEATURE
  return strcmp(name, AOT_TEST_HIDE_CPU_FEATURE) == 0;
#else
  (void)name;
  return 0;
#endif
}
AOT_BASELINE AOT_UNUSED static int aot__cpu_fail(char* err, size_t err_len, const char* feature) {
  static const char* const parts[] = {"this library was built for ",
                                      AOT_CPU_NAME,
                                      " and needs the CPU feature ",
                                      0,
                                      ", which this CPU lacks; rebuild it on this machine (atenaot compile picks "
                                      "its level by default) or with an older --cpu level",
                                      0};
  size_t n = 0;
  for (int k = 0; k < 5; ++k)
    for (const char* s = k == 3 ? feature : parts[k]; s && *s && err && n + 1 < err_len; ++s) err[n++] = *s;
  if (err && err_len) err[n] = 0;
  return AOT_ERR_UNSUPPORTED_CPU;
}
/* Fails unless the CPU has `feature` (a string literal, as
 * __builtin_cpu_supports needs), naming it in the message. */
#define AOT__NEED(feature) \
  if (!__builtin_cpu_supports(feature) || aot__cpu_hidden(feature)) return aot__cpu_fail(err, err_len, feature)
AOT_BASELINE AOT_UNUSED static int aot__cpu_check(char* err, size_t err_len) {
  (void)err; /* unused when built for the baseline ISA */
  (void)err_len;
  __builtin_cpu_init();
#ifdef __SSE3__
  AOT__NEED("sse3");
#endif
#ifdef __SSSE3__
  AOT__NEED("ssse3");
#endif
#ifdef __SSE4_1__
  AOT__NEED("sse4.1");
#endif
#ifdef __SSE4_2__
  AOT__NEED("sse4.2");
#endif
#ifdef __POPCNT__
  AOT__NEED("popcnt");
#endif
#ifdef __AVX__
  AOT__NEED("avx");
#endif
#ifdef __AVX2__
  AOT__NEED("avx2");
#endif
#ifdef __FMA__
  AOT__NEED("fma");
#endif
#ifdef __BMI__
  AOT__NEED("bmi");
#endif
#ifdef __BMI2__
  AOT__NEED("bmi2");
#endif
#ifdef __F16C__
  AOT__NEED("f16c");
#endif
#ifdef __AVX512F__
  AOT__NEED("avx512f");
#endif
#ifdef __AVX512BW__
  AOT__NEED("avx512bw");
#endif
#ifdef __AVX512CD__
  AOT__NEED("avx512cd");
#endif
#ifdef __AVX512DQ__
  AOT__NEED("avx512dq");
#endif
#ifdef __AVX512VL__
  AOT__NEED("avx512vl");
#endif
#ifdef __AVX512VNNI__
  AOT__NEED("avx512vnni");
#endif
#ifdef __AVX512IFMA__
  AOT__NEED("avx512ifma");
#endif
#ifdef __AVX512VBMI__
  AOT__NEED("avx512vbmi");
#endif
#ifdef __AVX512VBMI2__
  AOT__NEED("avx512vbmi2");
#endif
#ifdef __AVX512BITALG__
  AOT__NEED("avx512bitalg");
#endif
#ifdef __AVX512VPOPCNTDQ__
  AOT__NEED("avx512vpopcntdq");
#endif
#ifdef __AVX512BF16__
  AOT__NEED("avx512bf16");
#endif
#ifdef __GFNI__
  AOT__NEED("gfni");
#endif
#ifdef __VPCLMULQDQ__
  AOT__NEED("vpclmulqdq");
#endif
#ifdef __VAES__
  AOT__NEED("vaes");
#endif
  return AOT_OK;
}
#else
#define AOT_BASELINE
AOT_UNUSED static int aot__cpu_check(char* err, size_t err_len) {
  (void)err;
  (void)err_len;
  return AOT_OK;
}
#endif
