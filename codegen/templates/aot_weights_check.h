/* ---- the weights check (codegen/templates/aot_weights_check.h) ----
 * aot__check_weights(w): AOT_OK when w holds the AOT_M_BLOB_BYTES bytes the
 * model was built with (CRC-32, zlib's: AOT_M_WEIGHTS_CRC), else
 * AOT_ERR_CORRUPT_WEIGHTS naming NAME.weights (AOT_M_WEIGHTS_ARG: the caller
 * passes the weights) or the weights built into the library. Needs
 * runtime/aot_crc32.h and aot_validation.h before it. */
static int aot__check_weights(const void* w, char* err, size_t err_len) {
  if (!w) return aot__fail(err, err_len, AOT_ERR_NULL_POINTER, "the weights", "are NULL");
  if (aot__crc32(0, w, AOT_M_BLOB_BYTES) == AOT_M_WEIGHTS_CRC) return AOT_OK;
#if AOT_M_WEIGHTS_ARG
  return aot__fail(err, err_len, AOT_ERR_CORRUPT_WEIGHTS, "the weights file " AOT_M_NAME_STR ".weights",
                   "fails its CRC-32 check: it was changed after the build, or comes from another build");
#else
  return aot__fail(err, err_len, AOT_ERR_CORRUPT_WEIGHTS, "the weights embedded in " AOT_M_NAME_STR,
                   "fail their CRC-32 check: the library was changed after the build");
#endif
}
