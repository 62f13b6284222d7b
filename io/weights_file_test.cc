#include "io/weights_file.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>

#include "runtime/aot_crc32.h"

namespace atenaot {
namespace {

template <typename T>
void Put(std::string* out, T v) {
  out->append(reinterpret_cast<const char*>(&v), sizeof(T));
}

// A weights file with one float32 weight "w" of these sizes and `nbytes` data
// bytes (1.0, 2.0, ... as far as they go), with its CRC-32.
std::string OneWeight(const std::vector<int64_t>& sizes, uint64_t nbytes) {
  std::string f = "ATNW";
  Put<uint32_t>(&f, 2);
  Put<uint32_t>(&f, 1);
  const size_t entry = f.size();
  Put<uint32_t>(&f, 1);
  f += "w";
  Put<uint8_t>(&f, 6);  // ATen code of float32
  Put<uint32_t>(&f, static_cast<uint32_t>(sizes.size()));
  for (int64_t s : sizes) Put<int64_t>(&f, s);
  Put<uint64_t>(&f, nbytes);
  for (uint64_t k = 0; k < nbytes / 4; ++k) Put<float>(&f, static_cast<float>(k + 1));
  f += std::string(nbytes % 4, '\0');
  Put<uint32_t>(&f, aot__crc32(0, f.data() + entry, f.size() - entry));
  return f;
}

std::string WriteTemp(const std::string& bytes) {
  std::string path = ::testing::TempDir() + "/w.weights";
  std::ofstream(path, std::ios::binary) << bytes;
  return path;
}

TEST(WeightsFile, RoundTrips) {
  auto r = ReadWeightsFile(WriteTemp(OneWeight({2, 3}, 24)));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->at("w").meta.sizes, (std::vector<int64_t>{2, 3}));
  std::string path = ::testing::TempDir() + "/w2.weights";
  ASSERT_TRUE(WriteWeightsFile(path, *r).ok());
  auto again = ReadWeightsFile(path);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->at("w").bytes, r->at("w").bytes);
  // Every value survives both trips (1, 2, ..., 6: a zero-filled or shifted
  // copy would not).
  ASSERT_EQ(again->at("w").bytes.size(), 24u);
  for (int k = 0; k < 6; ++k) {
    float v;
    std::memcpy(&v, again->at("w").bytes.data() + 4 * k, 4);
    EXPECT_EQ(v, static_cast<float>(k + 1)) << "element " << k;
  }
}

// A same-size file with one flipped bit used to load and give outputs off by
// 1e35: every bit of every entry is now covered by its CRC-32.
TEST(WeightsFile, RejectsEveryFlippedBit) {
  const std::string good = OneWeight({2, 3}, 24);
  for (size_t bit = 12 * 8; bit < good.size() * 8; ++bit) {  // past magic, version and count
    std::string bad = good;
    bad[bit / 8] = static_cast<char>(bad[bit / 8] ^ (1 << (bit % 8)));
    auto r = ReadWeightsFile(WriteTemp(bad));
    ASSERT_FALSE(r.ok()) << "bit " << bit;
  }
  std::string bad = good;
  bad[good.size() - 8] ^= 0x40;  // in the data
  auto r = ReadWeightsFile(WriteTemp(bad));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("is corrupt: \"w\" fails its CRC-32 check"), std::string::npos)
      << r.status().message();
}

TEST(WeightsFile, RejectsVersion1WithAHint) {
  std::string v1 = OneWeight({2}, 8);
  v1[4] = 1;
  auto r = ReadWeightsFile(WriteTemp(v1));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("version 1, which has no checksums"), std::string::npos) << r.status().message();
}

// FZ5: sizes [2^62, 4] wrapped numel to 0, so 0 data bytes passed the check.
TEST(WeightsFile, RejectsSizesWhoseProductOverflows) {
  auto r = ReadWeightsFile(WriteTemp(OneWeight({int64_t{1} << 62, 4}, 0)));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("2^48"), std::string::npos) << r.status().message();
  r = ReadWeightsFile(WriteTemp(OneWeight({0, int64_t{1} << 62, 4}, 0)));
  ASSERT_FALSE(r.ok());
  r = ReadWeightsFile(WriteTemp(OneWeight({2, 3}, 20)));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("wrong byte count"), std::string::npos) << r.status().message();
}

}  // namespace
}  // namespace atenaot
