// Importer robustness: bad models come back as a Status naming the problem
// (fuzz findings FZ6, FZ7), and the C++ tracer refuses uninitialised data (T1).
#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <string>

#include "capture/cpp_trace.h"
#include "capture/load_model.h"
#include "ir/printer.h"
#include "schema/dispatcher_schemas.h"

namespace atenaot {
namespace {

Status LoadText(const std::string& text) {
  std::string path = ::testing::TempDir() + "/model.ts";
  std::ofstream(path) << text;
  auto g = LoadModel(path, {}, LiveOpTable());
  return g.ok() ? Status::Ok() : g.status();
}

TEST(Capture, InvalidScalarTypeIsAnErrorNotASegfault) {  // FZ6
  Status s = LoadText(
      "graph(%x : Float(2, 3, strides=[3, 1], requires_grad=0, device=cpu)):\n"
      "  %1 : int = prim::Constant[value=-1]()\n"
      "  %v : Tensor = aten::view(%x, %1)\n"
      "  return (%v)\n");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("not a valid ScalarType code"), std::string::npos) << s.ToString();
}

TEST(Capture, ValidScalarTypeStillWorks) {
  Status s = LoadText(
      "graph(%x : Float(2, 3, strides=[3, 1], requires_grad=0, device=cpu)):\n"
      "  %1 : int = prim::Constant[value=3]()\n"
      "  %v : Tensor = aten::view(%x, %1)\n"
      "  return (%v)\n");
  EXPECT_TRUE(s.ok()) << s.ToString();
}

TEST(Capture, HugeInputTypeIsAnError) {  // FZ7
  Status s = LoadText(
      "graph(%x : Float(100000000000000, strides=[1], requires_grad=0, device=cpu)):\n"
      "  %y : Tensor = aten::relu(%x)\n"
      "  return (%y)\n");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("2^48"), std::string::npos) << s.ToString();
}

TEST(Capture, AtTensorInsideATraceIsRefused) {  // T1
  CppProgram fn = [](const std::vector<at::Tensor>& in) -> std::vector<at::Tensor> {
    at::Tensor c = at::tensor(std::vector<float>{1.5f, -2.0f, 0.25f});
    return {in[0] * c};
  };
  auto g = TraceCpp(fn, {at::randn({2, 3})}, LiveOpTable());
  ASSERT_FALSE(g.ok()) << PrintGraph(**g);
  EXPECT_NE(g.status().message().find("torch::tensor"), std::string::npos) << g.status().ToString();
}

TEST(Capture, EmptyWrittenWholeBeforeReadIsFine) {
  CppProgram fn = [](const std::vector<at::Tensor>& in) -> std::vector<at::Tensor> {
    at::Tensor a = at::empty({2, 3});
    a.view({6}).fill_(2);
    at::Tensor b = at::empty({2, 3});
    at::mul_out(b, in[0], a);
    at::Tensor c = at::empty_like(in[0]);
    c.copy_(b);
    return {c + 1};
  };
  auto g = TraceCpp(fn, {at::randn({2, 3})}, LiveOpTable());
  EXPECT_TRUE(g.ok()) << g.status().ToString();
}

TEST(Capture, EmptyPartlyWrittenIsRefused) {
  CppProgram fn = [](const std::vector<at::Tensor>& in) -> std::vector<at::Tensor> {
    at::Tensor a = at::empty({2, 3});
    a.select(0, 0).fill_(1);
    return {in[0] + a};
  };
  auto g = TraceCpp(fn, {at::randn({2, 3})}, LiveOpTable());
  EXPECT_FALSE(g.ok());
}

}  // namespace
}  // namespace atenaot
