#include "passes/decompose.h"

#include <gtest/gtest.h>

#include "ir/parser.h"
#include "ir/printer.h"
#include "ir/test_op_table.h"
#include "ir/verifier.h"

namespace atenaot {
namespace {

TEST(Decompose, RewritesCompositesIntoSupportedOps) {
  auto g = ParseGraph(R"(graph @f(%x: f32[3,4]@s0, %y: f32[3,4]@s1) {
  %s = aten::stack([%x, %y], 1) : f32[3,2,4]@s2
  %v = aten::var.dim(%x, [1], true, false) : f32[3]@s3
  return (%s, %v)
}
)", SnapshotOpTable());
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  ASSERT_TRUE(Decompose(**g, SnapshotOpTable()).ok());
  ASSERT_TRUE(VerifyGraph(**g).ok()) << VerifyGraph(**g).ToString();
  std::string text = PrintGraph(**g);
  EXPECT_EQ(text.find("aten::stack"), std::string::npos) << text;
  EXPECT_EQ(text.find("aten::var"), std::string::npos) << text;
  EXPECT_NE(text.find("aten::unsqueeze(%x, 1) : f32[3,1,4]"), std::string::npos) << text;
  EXPECT_NE(text.find("aten::cat("), std::string::npos) << text;
  EXPECT_NE(text.find("aten::mean.dim(%x, [1], true, none) : f32[3,1]"), std::string::npos) << text;
  // n / (n - 1) for an unbiased variance of 4 elements.
  EXPECT_NE(text.find("aten::mul.Scalar("), std::string::npos) << text;
  EXPECT_NE(text.find(", 1.3333333333333333)"), std::string::npos) << text;
  EXPECT_GE(DecomposedOps().size(), 8u);
}

}  // namespace
}  // namespace atenaot
