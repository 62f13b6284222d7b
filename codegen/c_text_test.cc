#include "codegen/c_text.h"

#include <gtest/gtest.h>

#include <random>

namespace atenaot {
namespace {

// Nothing in the result may end or open a comment, splice a line, start a
// trigraph or leave printable ASCII, whatever bytes come in.
void ExpectInertComment(const std::string& in) {
  const std::string out = CComment(in);
  for (char c : out)
    EXPECT_TRUE(c >= 0x20 && c < 0x7f) << "byte " << int(static_cast<unsigned char>(c)) << " in " << out;
  EXPECT_EQ(out.find("*/"), std::string::npos) << out;
  EXPECT_EQ(out.find("/*"), std::string::npos) << out;
  EXPECT_EQ(out.find('\\'), std::string::npos) << out;
  EXPECT_EQ(out.find('?'), std::string::npos) << out;
  ASSERT_FALSE(!out.empty() && (out.back() == '*' || out.back() == '/')) << out;
}

TEST(CComment, KeepsOrdinaryText) {
  EXPECT_EQ(CComment("%y = aten::add.Tensor"), "%y = aten::add.Tensor");
  EXPECT_EQ(CComment("models/resnet 18.pt"), "models/resnet 18.pt");
}

TEST(CComment, BreaksCommentEndsTrigraphsAndLines) {
  EXPECT_EQ(CComment("a*/b"), "a*<2F>b");
  EXPECT_EQ(CComment("a/*b"), "a/<2A>b");
  EXPECT_EQ(CComment("x\n#include <stdlib.h>"), "x<0A>#include <stdlib.h>");
  EXPECT_EQ(CComment("??/"), "<3F><3F>/ ");
  EXPECT_EQ(CComment("end\\"), "end<5C>");
  EXPECT_EQ(CComment("caf\xc3\xa9"), "caf<C3><A9>");
  EXPECT_EQ(CComment("ends with *"), "ends with * ");
}

TEST(CComment, RandomBytesStayInert) {
  std::mt19937 rng(7);
  const std::string alphabet = "*/\\?\n\r\t\"'#aZ \x80\xff";
  for (int i = 0; i < 20000; ++i) {
    std::string s(rng() % 12, ' ');
    for (char& c : s) c = alphabet[rng() % alphabet.size()];
    ExpectInertComment(s);
  }
}

TEST(CStringLiteral, EscapesEverythingThatCouldEndOrBendIt) {
  EXPECT_EQ(CStringLiteral("x"), "\"x\"");
  EXPECT_EQ(CStringLiteral("a\"b"), "\"a\\042b\"");
  EXPECT_EQ(CStringLiteral("a\\"), "\"a\\134\"");
  EXPECT_EQ(CStringLiteral("??/"), "\"\\077\\077/\"");
  EXPECT_EQ(CStringLiteral("\n\xc3"), "\"\\012\\303\"");
  // Octal escapes take at most three digits, so a digit after one stays a digit.
  EXPECT_EQ(CStringLiteral("\n7"), "\"\\0127\"");
}

TEST(CheckModelName, AcceptsOrdinaryIdentifiers) {
  const std::string names[] = {"net", "resnet50", "my_model", "Model2", "ota", "ato", "aten", std::string(64, 'm')};
  for (const std::string& ok : names)
    EXPECT_TRUE(CheckModelName(ok).ok()) << ok << ": " << CheckModelName(ok).ToString();
}

// Each of these broke a build: it overwrote the loader or a header, clashed
// with a header guard or an ABI symbol, or failed inside the C compiler.
TEST(CheckModelName, RejectsReservedAndClashingNames) {
  const std::pair<std::string, std::string> cases[] = {{"atenaot_runtime", "starts with 'atenaot'"},
                                                       {"atenaot_model", "starts with 'atenaot'"},
                                                       {"ATENAOT", "starts with 'atenaot'"},
                                                       {"atenaot", "starts with 'atenaot'"},
                                                       {"aot", "starts with 'aot'"},
                                                       {"aot_model", "starts with 'aot'"},
                                                       {"AOT_x", "starts with 'aot'"},
                                                       {std::string(65, 'm'), "longer than 64"},
                                                       {"", "empty"},
                                                       {"9lives", "starts with a digit"},
                                                       {"_x", "starts with '_'"},
                                                       {"a-b", "not a C identifier"},
                                                       {"a*/b", "not a C identifier"},
                                                       {"caf\xc3\xa9", "not a C identifier"}};
  for (const auto& [name, why] : cases) {
    Status s = CheckModelName(name);
    ASSERT_FALSE(s.ok()) << name;
    EXPECT_NE(s.ToString().find(why), std::string::npos) << name << ": " << s.ToString();
  }
}

}  // namespace
}  // namespace atenaot
