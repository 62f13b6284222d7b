#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "runtime/aot_crc32.h"

namespace {

TEST(Crc32, MatchesZlibCheckValues) {
  EXPECT_EQ(aot__crc32(0, "123456789", 9), 0xCBF43926u);  // the standard check value
  EXPECT_EQ(aot__crc32(0, "", 0), 0u);
  // zlib.crc32(b"The quick brown fox jumps over the lazy dog")
  const char* fox = "The quick brown fox jumps over the lazy dog";
  EXPECT_EQ(aot__crc32(0, fox, std::strlen(fox)), 0x414FA339u);
}

TEST(Crc32, ContinuesAcrossChunksOfAnySize) {
  std::vector<unsigned char> data(1000);
  for (size_t i = 0; i < data.size(); ++i) data[i] = static_cast<unsigned char>(i * 131 + 7);
  const uint32_t whole = aot__crc32(0, data.data(), data.size());
  for (size_t cut = 0; cut <= data.size(); cut += 37) {
    uint32_t c = aot__crc32(0, data.data(), cut);
    EXPECT_EQ(aot__crc32(c, data.data() + cut, data.size() - cut), whole) << cut;
  }
}

TEST(Crc32, SeesEveryFlippedBit) {
  std::vector<unsigned char> data(64, 0x5a);
  const uint32_t good = aot__crc32(0, data.data(), data.size());
  for (size_t bit = 0; bit < data.size() * 8; ++bit) {
    data[bit / 8] ^= static_cast<unsigned char>(1u << (bit % 8));
    EXPECT_NE(aot__crc32(0, data.data(), data.size()), good) << bit;
    data[bit / 8] ^= static_cast<unsigned char>(1u << (bit % 8));
  }
}

}  // namespace
