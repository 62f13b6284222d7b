#include "io/compare.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

namespace atenaot {
namespace {

template <typename T>
NpyArray Array(DType dt, std::vector<T> values) {
  NpyArray a;
  a.dtype = dt;
  a.shape = {static_cast<int64_t>(values.size())};
  a.data.resize(values.size() * sizeof(T));
  std::memcpy(a.data.data(), values.data(), a.data.size());
  return a;
}

TEST(Compare, IntegersAreExactForAllOfInt64) {
  const int64_t big = (int64_t{1} << 60) + 1;  // not a double
  EXPECT_EQ(CompareArrays(Array<int64_t>(DType::kInt64, {big, 2}), Array<int64_t>(DType::kInt64, {big, 2}), -1, -1),
            "");
  EXPECT_EQ(CompareArrays(Array<int64_t>(DType::kInt64, {big, 2}), Array<int64_t>(DType::kInt64, {big - 1, 2}), 1, 1),
            "1 of 2 elements differ");
}

TEST(Compare, DtypeAndShapeMustMatch) {
  EXPECT_EQ(CompareArrays(Array<float>(DType::kFloat32, {1}), Array<double>(DType::kFloat64, {1}), -1, -1),
            "dtype f64 != expected f32");
  EXPECT_EQ(CompareArrays(Array<float>(DType::kFloat32, {1}), Array<float>(DType::kFloat32, {1, 1}), -1, -1),
            "shape differs");
}

// atol scales with the largest finite |expected|: 100-sized logits may
// differ by 1e-3 with atol 1e-5, 1-sized ones may not.
TEST(Compare, AtolIsRelativeToTheArraysScale) {
  EXPECT_EQ(
      CompareArrays(Array<float>(DType::kFloat32, {100, 0}), Array<float>(DType::kFloat32, {100, 5e-4f}), 0, 1e-5), "");
  const std::string why =
      CompareArrays(Array<float>(DType::kFloat32, {1, 0}), Array<float>(DType::kFloat32, {1, 5e-4f}), 0, 1e-5);
  EXPECT_NE(why.find("1 of 2 elements differ (max abs diff 0.0005"), std::string::npos) << why;
  EXPECT_NE(why.find("at element 1"), std::string::npos) << why;
  // An all-zero expected array has scale 1, not 0.
  EXPECT_EQ(CompareArrays(Array<float>(DType::kFloat32, {0}), Array<float>(DType::kFloat32, {5e-6f}), 0, 1e-5), "");
}

TEST(Compare, NanEqualsNanInfinitiesMustMatch) {
  const float inf = std::numeric_limits<float>::infinity(), nan = std::nanf("");
  EXPECT_EQ(CompareArrays(Array<float>(DType::kFloat32, {nan, inf, -inf}),
                          Array<float>(DType::kFloat32, {nan, inf, -inf}), -1, -1),
            "");
  EXPECT_NE(CompareArrays(Array<float>(DType::kFloat32, {inf}), Array<float>(DType::kFloat32, {-inf}), 1, 1), "");
  EXPECT_NE(CompareArrays(Array<float>(DType::kFloat32, {1}), Array<float>(DType::kFloat32, {nan}), 1, 1), "");
  // Found while moving this out of the CLI: rtol * |inf| accepted any actual.
  EXPECT_NE(CompareArrays(Array<float>(DType::kFloat32, {inf, 1}), Array<float>(DType::kFloat32, {5, 1}), 1, 1), "");
  EXPECT_NE(CompareArrays(Array<float>(DType::kFloat32, {5, 1}), Array<float>(DType::kFloat32, {inf, 1}), 1, 1), "");
}

TEST(Compare, NegativeTolerancesMeanTorchTestingDefaults) {
  EXPECT_EQ(DefaultTolerances(DType::kFloat64), (std::pair<double, double>{1e-7, 1e-7}));
  EXPECT_EQ(DefaultTolerances(DType::kFloat32), (std::pair<double, double>{1.3e-6, 1e-5}));
  // 1e-6 relative passes float32's defaults, fails float64's.
  EXPECT_EQ(CompareArrays(Array<float>(DType::kFloat32, {1}), Array<float>(DType::kFloat32, {1 + 1e-6f}), -1, -1), "");
  EXPECT_NE(CompareArrays(Array<double>(DType::kFloat64, {1}), Array<double>(DType::kFloat64, {1 + 2e-6}), -1, -1), "");
}

TEST(Compare, ElementAsDoubleReadsEveryIntegerDtype) {
  double v = 0;
  ASSERT_TRUE(ElementAsDouble(Array<int8_t>(DType::kInt8, {-3}), 0, &v));
  EXPECT_EQ(v, -3);
  ASSERT_TRUE(ElementAsDouble(Array<int16_t>(DType::kInt16, {0, -300}), 1, &v));
  EXPECT_EQ(v, -300);
  ASSERT_TRUE(ElementAsDouble(Array<uint8_t>(DType::kUInt8, {200}), 0, &v));
  EXPECT_EQ(v, 200);
  EXPECT_FALSE(ElementAsDouble(Array<uint16_t>(DType::kFloat16, {0}), 0, &v));
}

}  // namespace
}  // namespace atenaot
