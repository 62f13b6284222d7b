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
AOT_BASELINE AOT_UNUSED static int aot__cpu_check(char* err, size_t err_len) {
  (void)err; /* unused when built for the baseline ISA */
  (void)err_len;
  __builtin_cpu_init();
#ifdef __SSE3__
  if (!__builtin_cpu_supports("sse3") || aot__cpu_hidden("sse3")) return aot__cpu_fail(err, err_len, "sse3");
#endif
#ifdef __SSSE3__
  if (!__builtin_cpu_supports("ssse3") || aot__cpu_hidden("ssse3")) return aot__cpu_fail(err, err_len, "ssse3");
#endif
#ifdef __SSE4_1__
  if (!__builtin_cpu_supports("sse4.1") || aot__cpu_hidden("sse4.1")) return aot__cpu_fail(err, err_len, "sse4.1");
#endif
#ifdef __SSE4_2__
  if (!__builtin_cpu_supports("sse4.2") || aot__cpu_hidden("sse4.2")) return aot__cpu_fail(err, err_len, "sse4.2");
#endif
#ifdef __POPCNT__
  if (!__builtin_cpu_supports("popcnt") || aot__cpu_hidden("popcnt")) return aot__cpu_fail(err, err_len, "popcnt");
#endif
#ifdef __AVX__
  if (!__builtin_cpu_supports("avx") || aot__cpu_hidden("avx")) return aot__cpu_fail(err, err_len, "avx");
#endif
#ifdef __AVX2__
  if (!__builtin_cpu_supports("avx2") || aot__cpu_hidden("avx2")) return aot__cpu_fail(err, err_len, "avx2");
#endif
#ifdef __FMA__
  if (!__builtin_cpu_supports("fma") || aot__cpu_hidden("fma")) return aot__cpu_fail(err, err_len, "fma");
#endif
#ifdef __BMI__
  if (!__builtin_cpu_supports("bmi") || aot__cpu_hidden("bmi")) return aot__cpu_fail(err, err_len, "bmi");
#endif
#ifdef __BMI2__
  if (!__builtin_cpu_supports("bmi2") || aot__cpu_hidden("bmi2")) return aot__cpu_fail(err, err_len, "bmi2");
#endif
#ifdef __F16C__
  if (!__builtin_cpu_supports("f16c") || aot__cpu_hidden("f16c")) return aot__cpu_fail(err, err_len, "f16c");
#endif
#ifdef __AVX512F__
  if (!__builtin_cpu_supports("avx512f") || aot__cpu_hidden("avx512f")) return aot__cpu_fail(err, err_len, "avx512f");
#endif
#ifdef __AVX512BW__
  if (!__builtin_cpu_supports("avx512bw") || aot__cpu_hidden("avx512bw"))
    return aot__cpu_fail(err, err_len, "avx512bw");
#endif
#ifdef __AVX512CD__
  if (!__builtin_cpu_supports("avx512cd") || aot__cpu_hidden("avx512cd"))
    return aot__cpu_fail(err, err_len, "avx512cd");
#endif
#ifdef __AVX512DQ__
  if (!__builtin_cpu_supports("avx512dq") || aot__cpu_hidden("avx512dq"))
    return aot__cpu_fail(err, err_len, "avx512dq");
#endif
#ifdef __AVX512VL__
  if (!__builtin_cpu_supports("avx512vl") || aot__cpu_hidden("avx512vl"))
    return aot__cpu_fail(err, err_len, "avx512vl");
#endif
#ifdef __AVX512VNNI__
  if (!__builtin_cpu_supports("avx512vnni") || aot__cpu_hidden("avx512vnni"))
    return aot__cpu_fail(err, err_len, "avx512vnni");
#endif
#ifdef __AVX512IFMA__
  if (!__builtin_cpu_supports("avx512ifma") || aot__cpu_hidden("avx512ifma"))
    return aot__cpu_fail(err, err_len, "avx512ifma");
#endif
#ifdef __AVX512VBMI__
  if (!__builtin_cpu_supports("avx512vbmi") || aot__cpu_hidden("avx512vbmi"))
    return aot__cpu_fail(err, err_len, "avx512vbmi");
#endif
#ifdef __AVX512VBMI2__
  if (!__builtin_cpu_supports("avx512vbmi2") || aot__cpu_hidden("avx512vbmi2"))
    return aot__cpu_fail(err, err_len, "avx512vbmi2");
#endif
#ifdef __AVX512BITALG__
  if (!__builtin_cpu_supports("avx512bitalg") || aot__cpu_hidden("avx512bitalg"))
    return aot__cpu_fail(err, err_len, "avx512bitalg");
#endif
#ifdef __AVX512VPOPCNTDQ__
  if (!__builtin_cpu_supports("avx512vpopcntdq") || aot__cpu_hidden("avx512vpopcntdq"))
    return aot__cpu_fail(err, err_len, "avx512vpopcntdq");
#endif
#ifdef __AVX512BF16__
  if (!__builtin_cpu_supports("avx512bf16") || aot__cpu_hidden("avx512bf16"))
    return aot__cpu_fail(err, err_len, "avx512bf16");
#endif
#ifdef __GFNI__
  if (!__builtin_cpu_supports("gfni") || aot__cpu_hidden("gfni")) return aot__cpu_fail(err, err_len, "gfni");
#endif
#ifdef __VPCLMULQDQ__
  if (!__builtin_cpu_supports("vpclmulqdq") || aot__cpu_hidden("vpclmulqdq"))
    return aot__cpu_fail(err, err_len, "vpclmulqdq");
#endif
#ifdef __VAES__
  if (!__builtin_cpu_supports("vaes") || aot__cpu_hidden("vaes")) return aot__cpu_fail(err, err_len, "vaes");
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
