/* CRC-32 (IEEE 802.3, the polynomial and conventions of zlib's crc32(), so
 * `python3 -c "import zlib; print(zlib.crc32(open(F,'rb').read()))"` gives
 * the same number). Slice-by-8: about 2 GB/s on one core, table built on the
 * stack per call (no static state, no malloc). One source for the compiler
 * (io/weights_file.cc) and for compiled models (embedded in NAME.c), which
 * check their weights with it. Plain C99. */
#ifndef AOT_CRC32_H_
#define AOT_CRC32_H_

#include <stddef.h>
#include <stdint.h>

/* Continues `crc` (0 to start) over n bytes at p. */
static uint32_t aot__crc32(uint32_t crc, const void* p, size_t n) {
  uint32_t t[8][256];
  for (uint32_t i = 0; i < 256; ++i) {
    uint32_t c = i;
    for (int k = 0; k < 8; ++k) c = (c >> 1) ^ (0xEDB88320u & (0u - (c & 1u)));
    t[0][i] = c;
  }
  for (uint32_t i = 0; i < 256; ++i)
    for (int s = 1; s < 8; ++s) t[s][i] = (t[s - 1][i] >> 8) ^ t[0][t[s - 1][i] & 0xFFu];
  const unsigned char* b = (const unsigned char*)p;
  crc = ~crc;
  for (; n >= 8; n -= 8, b += 8) {
    /* Byte order spelled out, so big-endian targets get the same value. */
    uint32_t lo = crc ^ ((uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24);
    uint32_t hi = (uint32_t)b[4] | (uint32_t)b[5] << 8 | (uint32_t)b[6] << 16 | (uint32_t)b[7] << 24;
    crc = t[7][lo & 0xFFu] ^ t[6][(lo >> 8) & 0xFFu] ^ t[5][(lo >> 16) & 0xFFu] ^ t[4][lo >> 24] ^ t[3][hi & 0xFFu] ^
          t[2][(hi >> 8) & 0xFFu] ^ t[1][(hi >> 16) & 0xFFu] ^ t[0][hi >> 24];
  }
  for (; n > 0; --n, ++b) crc = (crc >> 8) ^ t[0][(crc ^ *b) & 0xFFu];
  return ~crc;
}

#endif /* AOT_CRC32_H_ */
