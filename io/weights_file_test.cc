#include "io/weights_file.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <string>

namespace atenaot {
namespace {

template <typename T>
void Put(std::string* out, T v) {
  out->append(reinterpret_cast<const char*>(&v), sizeof(T));
}

// A weights file with one float32 weight "w" of these sizes and `nbytes` data bytes.
std::string OneWeight(const std::vector<int64_t>& sizes, uint64_t nbytes) {
  std::string f = "ATNW";
  Put<uint32_t>(&f, 1);
  Put<uint32_t>(&f, 1);
  Put<uint32_t>(&f, 1);
  f += "w";
  Put<uint8_t>(&f, 6);  // ATen code of float32
  Put<uint32_t>(&f, static_cast<uint32_t>(sizes.size()));
  for (int64_t s : sizes) Put<int64_t>(&f, s);
  Put<uint64_t>(&f, nbytes);
  return f + std::string(nbytes, '\0');
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
  EXPECT_EQ(again->at("w").bytes.size(), 24u);
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
