#include "schema/dispatcher_schemas.h"

#include <gtest/gtest.h>

#include <fstream>

namespace atenaot {
namespace {

TEST(DispatcherSchemas, SnapshotMatchesTheLiveDispatcher) {
  std::ifstream in("ir/testdata/aten_schemas.txt");
  ASSERT_TRUE(in.good());
  std::vector<std::string> snapshot;
  std::string line;
  while (std::getline(in, line)) snapshot.push_back(line);
  EXPECT_EQ(snapshot, DispatcherSchemaStrings())
      << "regenerate with: bazel run //schema:dump_schemas > ir/testdata/aten_schemas.txt";
}

TEST(DispatcherSchemas, LiveTableHasTheKnownFacts) {
  const OpTable& t = LiveOpTable();
  EXPECT_EQ(t.parse_failures(), 0);
  ASSERT_NE(t.Find("aten::add_.Tensor"), nullptr);
  EXPECT_EQ(t.Find("aten::add_.Tensor")->functional, t.Find("aten::add.Tensor"));
  EXPECT_EQ(t.Find("aten::select.int")->scatter, t.Find("aten::select_scatter"));
  EXPECT_EQ(t.Find("aten::view")->view_copy, t.Find("aten::view_copy"));
}

}  // namespace
}  // namespace atenaot
