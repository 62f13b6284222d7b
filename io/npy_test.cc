#include "io/npy.h"

#include <gtest/gtest.h>

#include <cstring>

namespace atenaot {
namespace {

TEST(Npy, RoundTripsEveryDtype) {
  for (DType d : {DType::kFloat32, DType::kFloat64, DType::kInt32, DType::kInt64, DType::kBool, DType::kUInt8,
                  DType::kInt8, DType::kInt16, DType::kFloat16}) {
    NpyArray a;
    a.dtype = d;
    a.shape = {2, 3};
    a.data.resize(static_cast<size_t>(6 * DTypeSize(d)));
    for (size_t i = 0; i < a.data.size(); ++i) a.data[i] = d == DType::kBool ? (i % 2) : static_cast<uint8_t>(i);
    auto b = ParseNpy(SerializeNpy(a), "mem");
    ASSERT_TRUE(b.ok()) << DTypeName(d) << ": " << b.status().ToString();
    EXPECT_EQ(b->dtype, d);
    EXPECT_EQ(b->shape, a.shape);
    EXPECT_EQ(b->data, a.data);
  }
}

TEST(Npy, ScalarsAndOneDimensional) {
  NpyArray a;
  a.dtype = DType::kFloat32;
  a.data.resize(4);
  std::string s = SerializeNpy(a);
  EXPECT_NE(s.find("'shape': ()"), std::string::npos);
  EXPECT_EQ((10 + static_cast<size_t>(static_cast<unsigned char>(s[8]))) % 64, 0u);
  a.shape = {1};
  EXPECT_NE(SerializeNpy(a).find("'shape': (1,)"), std::string::npos);
  ASSERT_TRUE(ParseNpy(SerializeNpy(a), "mem").ok());
}

TEST(Npy, ReadsNumpyWrittenFixtures) {
  auto a = ReadNpy("tests/fixtures/index_put/input_1.npy");
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  EXPECT_EQ(a->dtype, DType::kInt64);
  EXPECT_EQ(a->shape, std::vector<int64_t>({3}));
  auto m = ReadNpy("tests/fixtures/masked_fill/input_1.npy");
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(m->dtype, DType::kBool);
}

TEST(Npy, FortranOrderGivesColumnMajorStrides) {
  NpyArray a;
  a.shape = {2, 3};
  a.fortran_order = true;
  EXPECT_EQ(a.Strides(), std::vector<int64_t>({1, 2}));
  a.fortran_order = false;
  EXPECT_EQ(a.Strides(), std::vector<int64_t>({3, 1}));
}

struct Bad {
  std::string bytes;
  const char* error;
};

std::string Header(const std::string& dict, size_t data_bytes) {
  std::string h = dict + "\n";
  std::string out("\x93NUMPY\x01\x00", 8);
  out += static_cast<char>(h.size() & 0xff);
  out += static_cast<char>(h.size() >> 8);
  return out + h + std::string(data_bytes, '\0');
}

TEST(Npy, RejectsMalformedFilesWithAReason) {
  std::vector<Bad> cases = {
      {"", "missing the \\x93NUMPY magic"},
      {"hello world, not numpy", "missing the \\x93NUMPY magic"},
      {Header("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }", 4), "data is 4 bytes, shape needs 8"},
      {Header("{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }", 8), "bytes after the data"},
      {Header("{'descr': '<c16', 'fortran_order': False, 'shape': (1,), }", 16), "unsupported dtype '<c16'"},
      {Header("{'descr': '>f4', 'fortran_order': False, 'shape': (1,), }", 4), "big-endian"},
      {Header("{'fortran_order': False, 'shape': (1,), }", 4), "no 'descr'"},
      {Header("{'descr': '<f4', 'shape': (1,), }", 4), "no 'fortran_order'"},
      {Header("{'descr': '<f4', 'fortran_order': False, 'shape': (a,), }", 4), "non-integer"},
      {Header("{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999,99999999999), }", 4), "too large"},
      {Header("{'descr': '|b1', 'fortran_order': False, 'shape': (1,), }", 0) + "\x07", "bool array"},
      {std::string("\x93NUMPY\x01\x00\xff\x00", 10), "header longer than the file"},
  };
  for (const Bad& c : cases) {
    auto r = ParseNpy(c.bytes, "t.npy");
    ASSERT_FALSE(r.ok()) << c.error;
    EXPECT_NE(r.status().message().find(c.error), std::string::npos) << r.status().message();
  }
  EXPECT_EQ(ReadNpy("/nonexistent/x.npy").status().code(), StatusCode::kIoError);
}

// FZ4: a 0 dimension made the size check stop guarding, so huge other
// dimensions passed and Strides() overflowed; "(1 2, 3)" was read as (1, 2, 3).
TEST(Npy, ZeroSizeShapesAreBoundedAndShapesNeedCommas) {
  for (const char* order : {"False", "True"}) {
    auto r = ParseNpy(Header(std::string("{'descr': '<f4', 'fortran_order': ") + order +
                                 ", 'shape': (0, 10000000000000, 10000000), }",
                             0),
                      "t.npy");
    ASSERT_FALSE(r.ok()) << order;
    EXPECT_NE(r.status().message().find("too large"), std::string::npos) << r.status().message();
  }
  auto empty = ParseNpy(Header("{'descr': '<f4', 'fortran_order': False, 'shape': (0, 5, 7), }", 0), "t.npy");
  ASSERT_TRUE(empty.ok()) << empty.status().ToString();
  EXPECT_EQ(empty->Strides(), (std::vector<int64_t>{35, 7, 1}));
  auto r = ParseNpy(Header("{'descr': '<f4', 'fortran_order': False, 'shape': (1 2, 3), }", 24), "t.npy");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("not separated by ','"), std::string::npos) << r.status().message();
}

}  // namespace
}  // namespace atenaot
