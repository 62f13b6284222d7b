#include "tests/testing/program_suite.h"

#include <ATen/ATen.h>

namespace atenaot {
namespace {

using T = at::Tensor;
using Ts = std::vector<at::Tensor>;

// Seeded random inputs: each program gets its own seed so programs are
// independent of their order in the suite.
std::function<Ts()> Randn(uint64_t seed, std::vector<std::vector<int64_t>> shapes) {
  return [seed, shapes] {
    at::manual_seed(seed);
    Ts ts;
    for (const auto& s : shapes) ts.push_back(at::randn(s));
    return ts;
  };
}

// Seeded inputs of any dtypes: make runs after at::manual_seed(seed).
std::function<Ts()> Seeded(uint64_t seed, std::function<Ts()> make) {
  return [seed, make] {
    at::manual_seed(seed);
    return make();
  };
}

// An index list for index_put_ (nullopt stands for a full slice).
c10::List<c10::optional<at::Tensor>> Idx(std::initializer_list<c10::optional<at::Tensor>> ts) {
  c10::List<c10::optional<at::Tensor>> l;
  for (const auto& t : ts) l.push_back(t);
  return l;
}

std::vector<SuiteProgram> Build() {
  std::vector<SuiteProgram> ps;
  auto add = [&](std::string name, CppProgram fn, std::function<Ts()> inputs) {
    ps.push_back({std::move(name), std::move(fn), std::move(inputs), ""});
  };
  // Programs whose writes cannot be expressed functionally: refused, not miscompiled.
  auto reject = [&](std::string name, std::string why, CppProgram fn, std::function<Ts()> inputs) {
    ps.push_back({std::move(name), std::move(fn), std::move(inputs), std::move(why)});
  };

  // The seed texts' examples.
  add(
      "seed_view_of_intermediate",
      [](const Ts& in) -> Ts {
        T b = in[0] + 1;
        b.view({-1}).add_(1);
        return {b};
      },
      Randn(1, {{2}}));
  add(
      "seed_mutate_input_through_view",
      [](const Ts& in) -> Ts {
        in[0].view({-1}).add_(1);
        return {in[0]};
      },
      Randn(2, {{2}}));
  add(
      "seed_diagonal_fill",
      [](const Ts& in) -> Ts {
        T a = in[0] + in[0];
        a.diagonal().fill_(0);
        return {a};
      },
      Randn(3, {{3, 3}}));

  // One write through each view kind, on an intermediate.
  add(
      "write_through_transpose",
      [](const Ts& in) -> Ts {
        T b = in[0] * 2;
        b.transpose(0, 1).mul_(3);
        return {b, b.sum()};
      },
      Randn(10, {{2, 3}}));
  add(
      "write_through_permute",
      [](const Ts& in) -> Ts {
        T b = in[0].clone();
        b.permute({2, 0, 1}).add_(in[1]);
        return {b};
      },
      Randn(11, {{2, 3, 4}, {4, 2, 3}}));
  add(
      "write_through_select_slice_chain",
      [](const Ts& in) -> Ts {
        T b = in[0] - 1;
        b.select(1, 2).slice(0, 1, 4, 2).fill_(7);
        return {b};
      },
      Randn(12, {{5, 3}}));

  // ---------------------------------------------------------------------
  // Views of views, then reads.
  add(
      "view_chain_transpose_unsqueeze_select_slice_read",
      [](const Ts& in) -> Ts {
        T v = in[0].t().unsqueeze(0).select(2, 1).slice(1, 1, 4);
        return {v * 2, v.sum()};
      },
      Randn(100, {{3, 4}}));
  add(
      "view_chain_view_permute_diagonal_read",
      [](const Ts& in) -> Ts {
        T d = in[0].view({6, 4}).permute({1, 0}).diagonal(1);
        return {d + 1, d};
      },
      Randn(101, {{2, 3, 4}}));
  add(
      "view_chain_four_deep_of_intermediate_read",
      [](const Ts& in) -> Ts {
        T b = in[0] * 3;
        T v = b.view({2, 12}).slice(1, 2, 10, 2).t().narrow(0, 1, 3);
        return {v.exp(), v};
      },
      Randn(102, {{4, 6}}));
  add(
      "view_chain_diagonal_of_diagonal_write",
      [](const Ts& in) -> Ts {
        T b = in[0] + 0;
        b.diagonal(0, 0, 1).diagonal().fill_(5);
        return {b};
      },
      Randn(103, {{3, 3, 3}}));
  add(
      "sibling_views_see_write_through_select",
      [](const Ts& in) -> Ts {
        T b = in[0] + 0;
        T v1 = b.t();
        T v2 = b.select(0, 1);
        T v3 = b.view({-1});
        T v4 = b.slice(1, 1, 3);
        T before = v3.sum();
        v2.mul_(10);
        return {before, v1 * 1, v3 * 1, v4 * 1, b};
      },
      Randn(104, {{3, 4}}));
  add(
      "sibling_views_read_before_and_after_write",
      [](const Ts& in) -> Ts {
        T b = in[0].clone();
        T diag = b.diagonal();
        T top = b.narrow(0, 0, 2);
        T r0 = diag * 1;
        top.add_(1);
        T r1 = diag * 1;
        return {r0, r1, top, b};
      },
      Randn(105, {{4, 4}}));
  add(
      "view_taken_before_base_writes",
      [](const Ts& in) -> Ts {
        T b = in[0] * 1;
        T v = b.t().select(0, 2);
        b.add_(5);
        b.mul_(2);
        return {v + 0, v};
      },
      Randn(106, {{3, 4}}));
  add(
      "expand_read_after_base_write",
      [](const Ts& in) -> Ts {
        T b = in[1] * 1;
        T e = b.unsqueeze(0).expand({3, 4});
        T r0 = e + in[0];
        b.sub_(1);
        return {r0, e + in[0], e.sum(0)};
      },
      Randn(107, {{3, 4}, {4}}));
  add(
      "expand_of_input_read_only",
      [](const Ts& in) -> Ts {
        T e = in[1].expand({2, 3, 4});
        T f = in[0].unsqueeze(1).expand_as(e);
        return {(e * f).sum(1), e};
      },
      Randn(108, {{2, 4}, {3, 4}}));
  add(
      "unfold_overlapping_view_read_after_write",
      [](const Ts& in) -> Ts {
        T b = in[0] * 1;
        T w = b.unfold(0, 3, 1);
        b.narrow(0, 2, 1).fill_(9);
        return {w * 1, w.sum(1)};
      },
      Randn(109, {{6}}));

  // ---------------------------------------------------------------------
  // One in-place op through each view kind.
  add(
      "add_through_t",
      [](const Ts& in) -> Ts {
        T b = in[0] + 1;
        b.t().add_(in[1]);
        return {b};
      },
      Randn(110, {{3, 4}, {4, 3}}));
  add(
      "sub_through_diagonal_offset_dims",
      [](const Ts& in) -> Ts {
        T b = in[0] * 1;
        b.diagonal(1, 0, 2).sub_(in[1]);
        return {b};
      },
      Randn(111, {{2, 3, 4}, {3, 2}}));
  add(
      "relu_through_diagonal_negative_offset",
      [](const Ts& in) -> Ts {
        T b = in[0] * 1;
        b.diagonal(-1).relu_();
        return {b, b.diagonal(-1)};
      },
      Randn(112, {{4, 4}}));
  add(
      "div_through_select_negative_index",
      [](const Ts& in) -> Ts {
        T b = in[0].clone();
        b.select(0, -1).div_(in[1]);
        b.select(1, -2).div_(2.5);
        return {b};
      },
      Seeded(113, [] {
        return Ts{at::randn({3, 4}), at::rand({4}) + 1};
      }));
  add(
      "fill_through_slice_step_negative_start",
      [](const Ts& in) -> Ts {
        T b = in[0] * 2;
        b.slice(0, -5, c10::nullopt, 2).fill_(1.5);
        return {b};
      },
      Randn(114, {{6, 3}}));
  add(
      "clamp_through_slice_step",
      [](const Ts& in) -> Ts {
        T b = in[0] * 3;
        b.slice(1, 1, 6, 2).clamp_(-0.5, 0.5);
        return {b};
      },
      Randn(115, {{4, 6}}));
  add(
      "clamp_min_through_permute_select",
      [](const Ts& in) -> Ts {
        T b = in[0] * 1;
        b.permute({1, 2, 0}).select(0, 1).clamp_min_(0);
        return {b};
      },
      Randn(116, {{2, 3, 4}}));
  add(
      "mul_through_unsqueeze",
      [](const Ts& in) -> Ts {
        T b = in[0] + 0;
        b.unsqueeze(1).mul_(in[1]);
        return {b};
      },
      Randn(117, {{3, 4}, {4}}));
  add(
      "zero_through_squeeze_all",
      [](const Ts& in) -> Ts {
        T b = in[0] * 1;
        b.squeeze().select(1, 2).zero_();
        return {b};
      },
      Randn(118, {{1, 3, 1, 4}}));
  add(
      "fill_through_squeeze_dim",
      [](const Ts& in) -> Ts {
        T b = in[0] * 1;
        b.squeeze(1).narrow(1, 0, 2).fill_(-1);
        return {b, b.squeeze(1)};
      },
      Randn(119, {{3, 1, 4}}));
  add(
      "add_through_view_select",
      [](const Ts& in) -> Ts {
        T b = in[0] * 1;
        b.view({3, 4}).select(1, 0).add_(100);
        return {b};
      },
      Randn(120, {{2, 6}}));
  add(
      "mul_through_reshape_that_is_a_view",
      [](const Ts& in) -> Ts {
        T b = in[0] * 1;
        b.reshape({4, 3}).slice(0, 1, 3).mul_(-1);
        return {b};
      },
      Randn(121, {{2, 6}}));
  add(
      "reshape_copy_write_does_not_alias",
      [](const Ts& in) -> Ts {
        T b = in[0] * 1;
        T c = b.t().reshape({-1});
        c.add_(1);
        return {b, c};
      },
      Randn(122, {{2, 3}}));
  add(
      "fill_through_reshape_of_input",
      [](const Ts& in) -> Ts {
        in[0].reshape({-1}).narrow(0, 0, 3).fill_(0);
        return {in[0] * 1};
      },
      Randn(123, {{2, 4}}));
  add(
      "add_through_as_strided_intermediate",
      [](const Ts& in) -> Ts {
        T b = in[0] * 1;
        b.as_strided({2, 2}, {4, 1}, 5).add_(1);
        return {b};
      },
      Randn(124, {{4, 4}}));
  add(
      "mul_through_as_strided_input",
      [](const Ts& in) -> Ts {
        in[0].as_strided({3}, {5}, 0).mul_(2);
        return {in[0].sum()};
      },
      Randn(125, {{4, 4}}));
  add(
      "write_into_split_piece",
      [](const Ts& in) -> Ts {
        T b = in[0] * 1;
        auto ps = b.split(2, 0);
        ps[1].mul_(3);
        return {b, ps[0] + ps[2]};
      },
      Randn(126, {{6, 2}}));
  add(
      "split_with_sizes_zero_piece_then_math",
      [](const Ts& in) -> Ts {
        T b = in[0] + 1;
        auto ps = b.split({2, 3}, 1);
        ps[0].zero_();
        return {b, ps[1].sum(1), ps[0]};
      },
      Randn(127, {{3, 5}}));
  add(
      "copy_through_unbind",
      [](const Ts& in) -> Ts {
        T b = in[0] * 1;
        auto rows = b.unbind(0);
        rows[1].copy_(in[1]);
        return {b, rows[2] * rows[1]};
      },
      Randn(128, {{3, 4}, {4}}));
  add(
      "masked_fill_through_chunk",
      [](const Ts& in) -> Ts {
        T b = in[0] * 1;
        auto cs = b.chunk(3, 1);
        cs[2].masked_fill_(in[1], 0.0);
        return {b, cs[0]};
      },
      Seeded(129, [] {
        return Ts{at::randn({4, 6}), at::randn({4, 2}) > 0};
      }));
  add(
      "sub_through_narrow",
      [](const Ts& in) -> Ts {
        T b = in[0] * 1;
        b.narrow(1, 2, 3).sub_(in[1]);
        return {b};
      },
      Randn(130, {{4, 5}, {4, 3}}));
  add(
      "index_put_through_flatten",
      [](const Ts& in) -> Ts {
        T b = in[0] * 1;
        b.flatten().index_put_(Idx({in[1]}), in[2]);
        return {b};
      },
      Seeded(131, [] {
        return Ts{at::randn({2, 3, 4}), at::tensor(std::vector<int64_t>{5, 0, 17}), at::randn({3})};
      }));
  add(
      "flatten_copy_write_does_not_alias",
      [](const Ts& in) -> Ts {
        T b = in[0] * 1;
        T f = b.t().flatten();
        f.zero_();
        return {b, f};
      },
      Randn(132, {{3, 4}}));
  add(
      "add_through_unflatten",
      [](const Ts& in) -> Ts {
        T b = in[0] * 1;
        b.unflatten(1, {2, 3}).select(2, 1).add_(1);
        return {b};
      },
      Randn(133, {{2, 6}}));
  add(
      "mul_through_view_as",
      [](const Ts& in) -> Ts {
        T b = in[0] * 1;
        b.view_as(in[1]).mul_(in[1]);
        return {b};
      },
      Randn(134, {{12}, {3, 4}}));
  add(
      "relu_through_transpose_of_input",
      [](const Ts& in) -> Ts {
        in[0].transpose(0, 1).narrow(0, 0, 2).relu_();
        return {in[0] * 1};
      },
      Randn(135, {{3, 4}}));
  add(
      "masked_fill_through_transpose",
      [](const Ts& in) -> Ts {
        T b = in[0] * 1;
        b.transpose(0, 1).masked_fill_(in[1], -2.0);
        return {b};
      },
      Seeded(136, [] {
        return Ts{at::randn({3, 4}), at::randn({4, 3}) > 0};
      }));
  add(
      "add_through_movedim_select",
      [](const Ts& in) -> Ts {
        T b = in[0] * 1;
        b.movedim(0, 2).select(0, 1).add_(in[1]);
        return {b};
      },
      Randn(137, {{2, 3, 4}, {4, 2}}));

  // ---------------------------------------------------------------------
  // Writes to an intermediate through nested views.
  add(
      "nested_view_write_read_base_view_siblings",
      [](const Ts& in) -> Ts {
        T b = in[0] * 1;
        T v = b.t()[1].view({-1});
        T sib = b.t()[2];
        T row = b.select(0, 1);
        v.slice(0, 0, 2).add_(1);
        return {b, v, sib * 1, row * 1};
      },
      Randn(140, {{3, 4}}));
  add(
      "nested_write_through_input_views",
      [](const Ts& in) -> Ts {
        in[0].t().select(0, -1).narrow(0, 1, 2).mul_(0.5);
        return {in[0].sum(0)};
      },
      Randn(141, {{4, 3}}));
  add(
      "nested_write_view_then_base_then_view",
      [](const Ts& in) -> Ts {
        T b = in[0] * 1;
        T v = b.slice(0, 1, 3).slice(1, 1, 3);
        v.fill_(0);
        b.add_(1);
        v.mul_(2);
        return {b, v};
      },
      Randn(142, {{4, 4}}));
  add(
      "nested_views_of_permute_unsqueeze_write",
      [](const Ts& in) -> Ts {
        T b = in[0] - 2;
        T v = b.permute({2, 0, 1}).unsqueeze(1).select(0, 3).squeeze(0);
        v.select(1, 2).sub_(in[1]);
        return {b, v * 1};
      },
      Randn(143, {{2, 3, 4}, {2}}));

  // ---------------------------------------------------------------------
  // index_put_.
  add(
      "index_put_unique_indices",
      [](const Ts& in) -> Ts {
        T b = in[0] * 1;
        b.index_put_(Idx({in[1]}), in[2]);
        return {b};
      },
      Seeded(150, [] {
        return Ts{at::randn({5, 3}), at::tensor(std::vector<int64_t>{4, 0, 2}), at::randn({3, 3})};
      }));
  add(
      "index_put_accumulate_repeated_traced_indices",
      [](const Ts& in) -> Ts {
        T b = in[0] * 1;
        T idx = at::arange(6).remainder(3);
        b.index_put_(Idx({idx}), in[1], /*accumulate=*/true);
        return {b};
      },
      Randn(151, {{4, 3}, {6, 3}}));
  add(
      "index_put_accumulate_repeated_on_input",
      [](const Ts& in) -> Ts {
        in[0].index_put_(Idx({in[1]}), in[2], /*accumulate=*/true);
        return {in[0]};
      },
      Seeded(152, [] {
        return Ts{at::randn({5}), at::tensor(std::vector<int64_t>{1, 1, 3, 1}), at::randn({4})};
      }));
  add(
      "index_put_bool_mask_traced",
      [](const Ts& in) -> Ts {
        T b = in[0] * 1;
        T m = in[0] > 0.3;
        b.index_put_(Idx({m}), in[1]);
        return {b};
      },
      Seeded(153, [] {
        return Ts{at::randn({3, 4}), at::randn({})};
      }));
  add(
      "index_put_bool_mask_input",
      [](const Ts& in) -> Ts {
        in[0].index_put_(Idx({in[1]}), in[2]);
        return {in[0] + 1};
      },
      Seeded(154, [] {
        return Ts{at::randn({3, 4}), at::randn({3}) > 0, at::randn({4})};
      }));
  add(
      "index_put_none_first_index",
      [](const Ts& in) -> Ts {
        T b = in[0] * 1;
        b.index_put_(Idx({c10::nullopt, in[1]}), in[2]);
        return {b};
      },
      Seeded(155, [] {
        return Ts{at::randn({3, 5}), at::tensor(std::vector<int64_t>{0, 3}), at::randn({3, 2})};
      }));
  add(
      "index_put_two_index_tensors",
      [](const Ts& in) -> Ts {
        T b = in[0] * 1;
        b.index_put_(Idx({in[1], in[2]}), in[3]);
        return {b, b.diagonal()};
      },
      Seeded(156, [] {
        return Ts{at::randn({4, 4}), at::tensor(std::vector<int64_t>{0, 1, 3}),
                  at::tensor(std::vector<int64_t>{2, 2, 0}), at::randn({3})};
      }));
  add(
      "index_put_through_transposed_view",
      [](const Ts& in) -> Ts {
        T b = in[0] * 1;
        b.view({3, 4}).t().index_put_(Idx({in[1]}), in[2]);
        return {b};
      },
      Seeded(157, [] {
        return Ts{at::randn({2, 6}), at::tensor(std::vector<int64_t>{1, 3}), at::randn({2, 3})};
      }));

  // ---------------------------------------------------------------------
  // masked_fill_.
  add(
      "masked_fill_scalar_on_intermediate",
      [](const Ts& in) -> Ts {
        T b = in[0].sin();
        b.masked_fill_(in[1], 1.0);
        return {b, b.sum()};
      },
      Seeded(160, [] {
        return Ts{at::randn({3, 4}), at::randn({3, 4}) > 0};
      }));
  add(
      "masked_fill_zero_dim_tensor_value_on_input",
      [](const Ts& in) -> Ts {
        in[0].masked_fill_(in[1], in[2]);
        return {in[0]};
      },
      Seeded(161, [] {
        return Ts{at::randn({3, 4}), at::randn({3, 4}) > 0, at::randn({})};
      }));
  add(
      "masked_fill_broadcast_traced_mask",
      [](const Ts& in) -> Ts {
        T b = in[0] * 1;
        b.masked_fill_(in[1] > 0, -1);
        return {b};
      },
      Randn(162, {{3, 4}, {4}}));

  // ---------------------------------------------------------------------
  // copy_.
  add(
      "copy_broadcast_row",
      [](const Ts& in) -> Ts {
        T b = in[0] * 1;
        b.copy_(in[1]);
        return {b, b + 1};
      },
      Randn(170, {{3, 4}, {4}}));
  add(
      "copy_float_from_int64",
      [](const Ts& in) -> Ts {
        T b = in[0] * 1;
        b.copy_(in[1]);
        return {b};
      },
      Seeded(171, [] {
        return Ts{at::randn({3, 4}), at::randint(-5, 5, {3, 4}, at::kLong)};
      }));
  add(
      "copy_into_double_input_from_float",
      [](const Ts& in) -> Ts {
        in[0].copy_(in[1] * 3);
        return {in[0] * 2};
      },
      Seeded(172, [] {
        return Ts{at::randn({3, 4}, at::kDouble), at::randn({3, 4})};
      }));
  add(
      "copy_int32_from_float",
      [](const Ts& in) -> Ts {
        T b = at::zeros({2, 3}, at::kInt);
        b.copy_(in[0] * 3);
        return {b, b + 1};
      },
      Randn(173, {{2, 3}}));
  add(
      "copy_into_strided_slice_of_intermediate",
      [](const Ts& in) -> Ts {
        T b = in[0].exp();
        b.slice(0, 1, 3).slice(1, 0, 4, 2).copy_(in[1]);
        return {b};
      },
      Randn(174, {{4, 4}, {2, 2}}));
  add(
      "copy_into_input",
      [](const Ts& in) -> Ts {
        in[0].copy_(in[1] * 2);
        return {in[0] + 1};
      },
      Randn(175, {{3, 4}, {3, 4}}));
  add(
      "copy_broadcast_into_input_narrow",
      [](const Ts& in) -> Ts {
        in[0].narrow(0, 1, 2).copy_(in[1]);
        return {in[0].sum(1)};
      },
      Randn(176, {{4, 4}, {4}}));

  // ---------------------------------------------------------------------
  // zero_ / fill_ on inputs and views of inputs.
  add(
      "zero_input",
      [](const Ts& in) -> Ts {
        in[0].zero_();
        return {in[1] + in[0]};
      },
      Randn(180, {{3, 4}, {3, 4}}));
  add(
      "fill_and_zero_views_of_input_return_view",
      [](const Ts& in) -> Ts {
        in[0].select(1, 2).fill_(3.0);
        in[0].diagonal().zero_();
        return {in[0].t()};
      },
      Randn(181, {{4, 4}}));
  add(
      "fill_with_zero_dim_tensor_through_slice",
      [](const Ts& in) -> Ts {
        T b = in[0] * 1;
        b.slice(1, 0, 2).fill_(in[1]);
        return {b};
      },
      Randn(182, {{3, 4}, {}}));

  // ---------------------------------------------------------------------
  // Comparison in-place ops (result dtype of the functional op differs) and
  // type-promoting in-place ops.
  add(
      "ge_inplace_tensor",
      [](const Ts& in) -> Ts {
        T b = in[0] * 1;
        b.ge_(in[1]);
        return {b, b + 1};
      },
      Randn(190, {{3, 4}, {3, 4}}));
  add(
      "lt_scalar_inplace_through_transpose",
      [](const Ts& in) -> Ts {
        T b = in[0] * 1;
        b.t().narrow(0, 1, 2).lt_(0.5);
        return {b};
      },
      Randn(191, {{3, 4}}));
  add(
      "eq_inplace_partially_equal",
      [](const Ts& in) -> Ts {
        T b = in[0] * 1;
        T y = in[0].clone();
        y.narrow(0, 0, 1).add_(1);
        b.eq_(y);
        return {b, y};
      },
      Randn(192, {{3, 4}}));
  add(
      "lt_inplace_int64_input",
      [](const Ts& in) -> Ts {
        in[0].lt_(in[1]);
        return {in[0], in[0] * 3};
      },
      Seeded(193, [] {
        return Ts{at::randint(-3, 4, {3, 4}, at::kLong), at::randint(-3, 4, {3, 4}, at::kLong)};
      }));
  add(
      "add_double_zero_dim_to_float",
      [](const Ts& in) -> Ts {
        T b = in[0] * 1;
        b.add_(in[1]);
        in[0].add_(in[1], 2);
        return {b};
      },
      Seeded(194, [] {
        return Ts{at::randn({3, 4}), at::randn({}, at::kDouble)};
      }));
  add(
      "mul_float_by_int64_tensor",
      [](const Ts& in) -> Ts {
        T b = in[0] * 1;
        b.mul_(in[1]);
        return {b};
      },
      Seeded(195, [] {
        return Ts{at::randn({3, 4}), at::randint(-3, 4, {3, 4}, at::kLong)};
      }));
  add(
      "div_float_by_int64_tensor_through_view",
      [](const Ts& in) -> Ts {
        T b = in[0] * 1;
        b.t().div_(in[1]);
        return {b};
      },
      Seeded(196, [] {
        return Ts{at::randn({3, 4}), at::randint(1, 5, {4, 3}, at::kLong)};
      }));
  add(
      "add_int64_input_by_int32",
      [](const Ts& in) -> Ts {
        in[0].add_(in[1]);
        return {in[0], in[0] * 2};
      },
      Seeded(197, [] {
        return Ts{at::randint(-10, 10, {3, 4}, at::kLong), at::randint(-10, 10, {3, 4}, at::kInt)};
      }));

  // ---------------------------------------------------------------------
  // Multi-output ops.
  add(
      "max_dim_values_and_indices",
      [](const Ts& in) -> Ts {
        auto [v, i] = in[0].max(1);
        return {v * 2, i, v + i.to(at::kFloat)};
      },
      Randn(200, {{3, 5}}));
  add(
      "min_dim_keepdim_then_subtract",
      [](const Ts& in) -> Ts {
        auto [v, i] = in[0].min(0, /*keepdim=*/true);
        return {in[0] - v, i};
      },
      Randn(201, {{4, 3}}));
  add(
      "topk_then_math",
      [](const Ts& in) -> Ts {
        auto [v, i] = in[0].topk(2, 1);
        return {v.sum(1), i, v * in[0].narrow(1, 0, 2)};
      },
      Randn(202, {{3, 5}}));
  add(
      "sort_descending_then_write_values",
      [](const Ts& in) -> Ts {
        auto [v, i] = in[0].sort(1, /*descending=*/true);
        v.select(1, 0).zero_();
        return {v, i};
      },
      Randn(203, {{3, 4}}));
  add(
      "split_pieces_used_in_math",
      [](const Ts& in) -> Ts {
        auto ps = in[0].split(2, 1);
        return {ps[0] * ps[1] + ps[2]};
      },
      Randn(204, {{3, 6}}));
  add(
      "unbind_pieces_used_in_math",
      [](const Ts& in) -> Ts {
        auto rs = in[0].unbind(1);
        return {rs[0] + rs[1] * rs[2]};
      },
      Randn(205, {{4, 3}}));
  add(
      "chunk_write_piece_from_sibling_piece",
      [](const Ts& in) -> Ts {
        T b = in[0] * 1;
        auto cs = b.chunk(2, 0);
        cs[0].add_(cs[1]);
        return {b, cs[0]};
      },
      Randn(206, {{4, 3}}));
  add(
      "max_dim_of_mutated_intermediate",
      [](const Ts& in) -> Ts {
        T b = in[0] * 1;
        b.select(1, 0).fill_(10);
        auto [v, i] = b.max(1);
        v.add_(1);
        return {v, i, b};
      },
      Randn(207, {{3, 4}}));

  // ---------------------------------------------------------------------
  // In-place on inputs; outputs aliasing inputs and each other.
  add(
      "several_mutations_of_same_input",
      [](const Ts& in) -> Ts {
        in[0].add_(1);
        in[0].mul_(in[1]);
        in[0].t()[0].zero_();
        in[0].clamp_(-1, 1);
        return {in[0].sum()};
      },
      Randn(210, {{3, 4}, {3, 4}}));
  add(
      "mutate_input_and_return_it",
      [](const Ts& in) -> Ts {
        in[0].mul_(2);
        return {in[0]};
      },
      Randn(211, {{3, 4}}));
  add(
      "return_views_of_mutated_input",
      [](const Ts& in) -> Ts {
        in[0].add_(in[1]);
        return {in[0].t(), in[0].select(0, 1)};
      },
      Randn(212, {{3, 4}, {3, 4}}));
  add(
      "return_same_tensor_twice",
      [](const Ts& in) -> Ts {
        T b = in[0] + 1;
        b.narrow(0, 0, 1).add_(1);
        return {b, b};
      },
      Randn(213, {{3, 4}}));
  add(
      "outputs_alias_each_other",
      [](const Ts& in) -> Ts {
        T b = in[0] * 1;
        b.narrow(0, 0, 1).add_(1);
        return {b, b.view({-1}), b.t()};
      },
      Randn(214, {{3, 4}}));
  add(
      "outputs_alias_mutated_input",
      [](const Ts& in) -> Ts {
        in[0].sub_(1);
        return {in[0], in[0].view({-1})};
      },
      Randn(215, {{3, 4}}));
  add(
      "mutate_other_input_through_view_not_returned",
      [](const Ts& in) -> Ts {
        in[1].t().mul_(in[0].t());
        return {in[0] * 1};
      },
      Randn(216, {{3, 4}, {3, 4}}));
  add(
      "output_is_unmutated_view_of_input",
      [](const Ts& in) -> Ts {
        return {in[0].view({-1}), in[0].select(0, 0)};
      },
      Randn(217, {{3, 4}}));

  // ---------------------------------------------------------------------
  // Inputs that alias each other.
  add(
      "aliasing_inputs_row_of_base",
      [](const Ts& in) -> Ts {
        in[1].add_(10);
        return {in[0] * 1};
      },
      Seeded(220, [] {
        T base = at::randn({3, 4});
        return Ts{base, base.select(0, 1)};
      }));
  add(
      "aliasing_inputs_flat_view_and_base",
      [](const Ts& in) -> Ts {
        in[0].narrow(0, 2, 3).mul_(-1);
        return {in[1].sum(0), in[0]};
      },
      Seeded(221, [] {
        T base = at::randn({3, 4});
        return Ts{base.view({-1}), base};
      }));
  add(
      "aliasing_inputs_partial_overlap_read_only",
      [](const Ts& in) -> Ts {
        return {in[0] + in[1], in[0].matmul(in[1].t())};
      },
      Seeded(222, [] {
        T base = at::randn({5, 3});
        return Ts{base.narrow(0, 0, 3), base.narrow(0, 2, 3)};
      }));
  add(
      "aliasing_inputs_mutate_base_read_transposed",
      [](const Ts& in) -> Ts {
        in[0].mul_(2);
        T r = in[1] * 1;
        in[1].select(0, 0).fill_(0);
        return {r, in[0] * 1};
      },
      Seeded(223, [] {
        T base = at::randn({3, 4});
        return Ts{base, base.t()};
      }));
  reject(
      "aliasing_inputs_partial_overlap_write", "shares memory with another input, and neither contains the other",
      [](const Ts& in) -> Ts {
        in[0].add_(1);
        return {in[1] * 1};
      },
      Seeded(224, [] {
        T base = at::randn({5, 3});
        return Ts{base.narrow(0, 0, 3), base.narrow(0, 2, 3)};
      }));

  // ---------------------------------------------------------------------
  // out= ops.
  add(
      "add_out_into_intermediate",
      [](const Ts& in) -> Ts {
        T out = at::zeros({3, 4});
        at::add_out(out, in[0], in[1]);
        return {out * 2};
      },
      Randn(230, {{3, 4}, {3, 4}}));
  add(
      "mul_out_into_view_of_intermediate",
      [](const Ts& in) -> Ts {
        T acc = at::zeros({4, 4});
        T o = acc.narrow(0, 1, 2);
        at::mul_out(o, in[0], in[1]);
        return {acc, o};
      },
      Randn(231, {{2, 4}, {2, 4}}));
  add(
      "mul_out_into_input",
      [](const Ts& in) -> Ts {
        T o = in[2];
        at::mul_out(o, in[0], in[1]);
        return {o + 1};
      },
      Randn(232, {{3, 4}, {3, 4}, {3, 4}}));

  // ---------------------------------------------------------------------
  // Mixed computations.
  add(
      "layernorm_with_residual_slice",
      [](const Ts& in) -> Ts {
        const T& x = in[0];
        T mean = x.mean({-1}, true);
        T var = (x - mean).pow(2).mean({-1}, true);
        T y = (x - mean) / (var + 1e-5).sqrt();
        y.narrow(1, 0, 4).add_(in[1]);
        y.mul_(in[2]);
        return {y};
      },
      Randn(240, {{4, 8}, {4, 4}, {8}}));
  add(
      "attention_with_residual_slice",
      [](const Ts& in) -> Ts {
        const T &q = in[0], &k = in[1], &v = in[2];
        T p = (q.matmul(k.t()) * 0.5).softmax(-1);
        T o = p.matmul(v);
        o.slice(0, 1, 3).add_(q.slice(0, 1, 3));
        return {o, p};
      },
      Randn(241, {{4, 4}, {4, 4}, {4, 4}}));
  add(
      "running_sum_unrolled_into_accumulator_slices",
      [](const Ts& in) -> Ts {
        T acc = at::zeros({5, 4});
        for (int64_t i = 0; i < 5; ++i) {
          acc.narrow(0, i, 1).add_(in[0][i]);
          if (i > 0) acc.narrow(0, i, 1).add_(acc.narrow(0, i - 1, 1));
        }
        return {acc};
      },
      Randn(242, {{5, 4}}));
  add(
      "running_sum_unrolled_into_input",
      [](const Ts& in) -> Ts {
        for (int64_t i = 0; i < 5; ++i) in[1].select(0, i % 2).add_(in[0][i]);
        return {in[1].sum(0)};
      },
      Randn(243, {{5, 3}, {2, 3}}));

  // ---------------------------------------------------------------------
  // Ops that alias only sometimes, and in-place view ops.
  add(
      "contiguous_of_contiguous_aliases_on_write",
      [](const Ts& in) -> Ts {
        T b = in[0] * 1;
        T c = b.contiguous();
        c.add_(1);
        T d = b.t().contiguous();
        d.mul_(0);
        return {b, c, d};
      },
      Randn(250, {{3, 4}}));
  add(
      "detach_aliases_on_write",
      [](const Ts& in) -> Ts {
        T b = in[0] * 1;
        b.detach().select(0, 1).mul_(2);
        return {b};
      },
      Randn(251, {{3, 4}}));
  add(
      "transpose_inplace_then_write",
      [](const Ts& in) -> Ts {
        T b = in[0] * 1;
        T v = b.view({-1});
        b.t_();
        b.select(0, 0).add_(1);
        return {b, v * 1};
      },
      Randn(252, {{3, 4}}));
  // ---------------------------------------------------------------------
  // More edge cases: offset/non-contiguous inputs, self-aliasing operands,
  // 0-dim views, identical inputs.
  reject(
      "as_strided_on_offset_input_view", "needs its base %0 to be contiguous from offset 0",
      [](const Ts& in) -> Ts {
        // as_strided's offset is absolute in the storage; the input is a view
        // with a nonzero offset into a larger storage.
        in[0].as_strided({2, 2}, {3, 1}, in[0].storage_offset() + 1).mul_(-1);
        return {in[0] * 1};
      },
      Seeded(260, [] {
        return Ts{at::randn({4, 3}).narrow(0, 1, 2)};
      }));
  add(
      "write_through_view_of_noncontiguous_input",
      [](const Ts& in) -> Ts {
        in[0].select(0, 1).add_(1);
        in[0].narrow(1, 0, 2).mul_(3);
        return {in[0], in[0].sum(1)};
      },
      Seeded(261, [] {
        return Ts{at::randn({4, 3}).t()};
      }));
  // A fused producer (t + y, computed inside the last add's kernel) reads %t
  // there, after the softmax: %t's buffer must live that long, not be given to
  // the softmax's output (a plan bug found 2026-12-02).
  add(
      "fused_producer_reads_late",
      [](const Ts& in) -> Ts {
        T t = in[0] * 2;
        T s = t.sum();
        T u = t + in[1];
        T z = at::softmax(in[2], 1, at::kDouble);
        return {u + z, s};
      },
      Randn(275, {{64}, {2, 64}, {2, 64}}));
  add(
      "read_expanded_input",
      [](const Ts& in) -> Ts {
        return {in[0] * 2, in[0].sum(0)};
      },
      Seeded(262, [] {
        return Ts{at::randn({4}).expand({3, 4})};
      }));
  add(
      "return_input_unchanged",
      [](const Ts& in) -> Ts {
        return {in[0], in[1] + 1};
      },
      Randn(263, {{3, 4}, {2}}));
  add(
      "return_expanded_view_after_base_write",
      [](const Ts& in) -> Ts {
        T b = in[0] * 1;
        T e = b.unsqueeze(0).expand({3, 4});
        b.select(0, 1).fill_(7);
        return {e};
      },
      Randn(264, {{4}}));
  add(
      "inplace_with_same_memory_operand",
      [](const Ts& in) -> Ts {
        T b = in[0] * 1;
        b.select(0, 1).mul_(b.select(0, 1));
        b.add_(b);
        return {b};
      },
      Randn(265, {{3, 4}}));
  add(
      "copy_between_sibling_slices",
      [](const Ts& in) -> Ts {
        T b = in[0] * 1;
        T src = b.narrow(0, 2, 2);
        b.narrow(0, 0, 2).copy_(src);
        src.add_(1);
        return {b};
      },
      Randn(266, {{4, 3}}));
  add(
      "write_through_zero_dim_select",
      [](const Ts& in) -> Ts {
        T b = in[0] * 1;
        b.select(0, 2).fill_(0);
        T s = b.sum();
        s.mul_(in[1]);
        b.select(0, -1).add_(s);
        return {b, s};
      },
      Randn(267, {{5}, {}}));
  add(
      "copy_float_from_bool_mask",
      [](const Ts& in) -> Ts {
        T b = in[0] * 1;
        b.t().copy_(in[1]);
        return {b};
      },
      Seeded(268, [] {
        return Ts{at::randn({3, 4}), at::randn({4, 3}) > 0};
      }));
  add(
      "unary_inplace_chain_through_views",
      [](const Ts& in) -> Ts {
        T b = in[0] * 1;
        b.select(0, 0).neg_();
        b.t().narrow(0, 1, 2).abs_();
        b.diagonal().sigmoid_();
        b.slice(0, 1, 3).tanh_();
        b.narrow(1, 3, 1).addcmul_(in[1], in[1], 0.5);
        b.select(1, 0).lerp_(in[2], 0.25);
        b.pow_(2);
        return {b};
      },
      Randn(269, {{3, 4}, {3, 1}, {3}}));
  add(
      "write_into_split_of_transposed_view",
      [](const Ts& in) -> Ts {
        T b = in[0] * 1;
        auto ps = b.t().split(1, 0);
        ps[1].fill_(0);
        ps[3].add_(ps[0]);
        return {b};
      },
      Randn(270, {{3, 4}}));
  add(
      "aliasing_inputs_identical",
      [](const Ts& in) -> Ts {
        in[0].mul_(3);
        T r = in[1] + 1;
        in[1].narrow(0, 0, 1).zero_();
        return {r, in[0] * 1};
      },
      Seeded(271, [] {
        T base = at::randn({3, 4});
        return Ts{base, base};
      }));
  add(
      "aliasing_inputs_view_first_mutate_base",
      [](const Ts& in) -> Ts {
        T before = in[0] * 1;
        in[1].select(1, 2).add_(5);
        return {before, in[0] * 1};
      },
      Seeded(272, [] {
        T base = at::randn({3, 4});
        return Ts{base.t().narrow(0, 1, 2), base};
      }));
  add(
      "int_slice_inplace_through_views",
      [](const Ts& in) -> Ts {
        T b = in[0] * 2;
        b.narrow(0, 1, 2).add_(in[1]);
        b.t().select(0, 0).mul_(-1);
        return {b, in[0]};
      },
      Seeded(273, [] {
        return Ts{at::randint(-5, 5, {4, 3}, at::kLong), at::randint(-5, 5, {3}, at::kLong)};
      }));
  // ---------------------------------------------------------------------
  // What PyTorch's functionalize accepts (issue 14 item 7): in-place metadata
  // ops, out= arguments resized, programs without tensor inputs.
  add(
      "metadata_inplace_chain_then_write",
      [](const Ts& in) -> Ts {
        T b = in[0] * 2;
        T v = b.view({-1});
        b.t_();
        b.unsqueeze_(0);
        b.squeeze_(0);
        b.swapdims_(0, 1);
        b.transpose_(0, 1);
        b.select(0, 1).add_(1);
        return {b, v * 1};
      },
      Randn(400, {{2, 3}}));
  add(
      "as_strided_inplace_then_write",
      [](const Ts& in) -> Ts {
        T c = in[0] + 1;
        T v = c.view({-1});
        c.as_strided_({2, 2}, {1, 3}, 1);
        c.mul_(-2);
        return {c * 1, v * 1};
      },
      Randn(401, {{2, 3}}));
  add(
      "metadata_inplace_on_view_of_input",
      [](const Ts& in) -> Ts {
        T v = in[0].view({3, 2});
        v.t_();
        v.unsqueeze_(2);
        v.add_(in[1].unsqueeze(2));
        return {v};
      },
      Randn(402, {{2, 3}, {2, 3}}));
  // As in PyTorch's functionalize, the caller's tensor keeps its sizes and
  // strides; the writes through the transposed input reach its memory.
  add(
      "metadata_inplace_on_input",
      [](const Ts& in) -> Ts {
        in[0].t_();
        in[0].select(0, 1).add_(1);
        return {in[0] * 1, in[0]};
      },
      Randn(403, {{2, 3}}));
  add(
      "out_resized_add_with_cast",
      [](const Ts& in) -> Ts {
        T o = at::empty({0}, at::kDouble);
        at::add_out(o, in[0], in[1]);
        return {o * 2, o};
      },
      Randn(404, {{2, 3}, {3}}));
  add(
      "out_resized_cat_then_write",
      [](const Ts& in) -> Ts {
        T o = at::empty({0});
        at::cat_out(o, {in[0], in[1]}, 0);
        o.select(1, 0).fill_(3);
        return {o};
      },
      Randn(405, {{2, 3}, {1, 3}}));
  add(
      "out_resized_transposed_operands",
      [](const Ts& in) -> Ts {
        T o = at::empty({0});
        at::mul_out(o, in[0].t(), in[1].t());
        return {o + 1};
      },
      Randn(406, {{3, 4}, {3, 4}}));
  add(
      "no_tensor_inputs_factories",
      [](const Ts&) -> Ts {
        T a = at::arange(6, at::kFloat).view({2, 3});
        T b = at::ones({2, 3}) * 2;
        a.add_(b);
        return {a, a.sum()};
      },
      Randn(407, {}));
  // ---------------------------------------------------------------------
  // PyTorch's test/test_functionalization.py: its programs that trace (the
  // resize_ ones do not: the scripted fixtures scripted_torch_resize and
  // scripted_resize_metadata and the goldens cover them), with random inputs
  // of the same shapes.
  add(
      "torch_multiple_views_of_same_base",
      [](const Ts& in) -> Ts {
        T y = in[0].view({-1});
        T z = in[0].view({-1});
        in[0].add_(1);
        T y2 = y + 1;
        return {z + 1, y2};
      },
      Randn(500, {{4}}));
  add(
      "torch_simple",
      [](const Ts& in) -> Ts {
        T y = in[0].view({4, 2});
        y.add_(at::ones({4, 2}));
        T z = in[0] * in[0];
        return {y, z};
      },
      Randn(501, {{4, 2}}));
  add(
      "torch_simple_out",
      [](const Ts& in) -> Ts {
        T y = in[0].view({4, 2});
        T z = at::empty({});
        at::add_out(z, y, at::ones({4, 2}));
        return {z * z};
      },
      Randn(502, {{4, 2}}));
  // test_multi_out (aminmax with out=(out_max, out_min)) is left out: LibTorch
  // 1.13's tracer records an op with several out= tensors with the first one
  // twice (aten::aminmax(%x, 0, false, %out_max, %out_max)), so it does not
  // trace as it runs.
  add(
      "torch_tensor_ctr",
      [](const Ts& in) -> Ts {
        T y = at::arange(1, 4, in[0].options());
        y.view({-1}).add_(1);
        return {y};
      },
      Randn(504, {{3}}));
  add(
      "torch_inplace_on_non_view",
      [](const Ts& in) -> Ts {
        T y = in[0].view({4, 2});
        in[0].add_(at::ones({4, 2}));
        return {y};
      },
      Randn(505, {{4, 2}}));
  add(
      "torch_as_strided",
      [](const Ts& in) -> Ts {
        in[0].as_strided({2}, {2}, 1).add_(1);
        return {in[0]};
      },
      Randn(506, {{9}}));
  add(
      "torch_cat",
      [](const Ts& in) -> Ts {
        T out = at::empty({0});
        at::cat_out(out, {in[0]}, 0);
        return {out};
      },
      Randn(507, {{2, 2}}));
  add(
      "torch_diagonal",
      [](const Ts& in) -> Ts {
        in[0].diagonal().add_(at::ones({2}));
        return {in[0] * in[0]};
      },
      Randn(508, {{2, 2}}));
  add(
      "torch_split",
      [](const Ts& in) -> Ts {
        auto ys = in[0].split(2);
        T y3 = ys[1].diagonal();
        y3.add_(at::ones({2}));
        T z = in[0] * in[0];
        return {y3, z};
      },
      Randn(509, {{4, 2}}));
  add(
      "torch_view_inplace",
      [](const Ts& in) -> Ts {
        in[0].transpose_(1, 0);
        in[0].select(0, 0).add_(at::ones({4}));
        return {in[0]};
      },
      Randn(510, {{4, 2}}));
  add(
      "torch_optional_tensor_list",
      [](const Ts& in) -> Ts {
        T y = in[0].view({8});
        y.index_put_(Idx({at::arange(4)}), at::arange(4, y.options()), false);
        return {y};
      },
      Randn(511, {{4, 2}}));
  add(
      "torch_scalars",
      [](const Ts& in) -> Ts {
        T y = in[0].view({4, 2});
        y.add_(1);
        T z = y * 2;
        z.div_(1);
        return {z};
      },
      Randn(512, {{4, 2}}));
  add(
      "torch_metadata_change", [](const Ts& in) -> Ts { return {in[0].ge_(0)}; }, Randn(513, {{4, 2}}));
  add(
      "torch_only_one_view",
      [](const Ts& in) -> Ts {
        return {in[0].view({4, 2})};
      },
      Randn(514, {{4, 2}}));
  add(
      "torch_everything",
      [](const Ts& in) -> Ts {
        T x2 = in[0] + in[0];
        T y = x2.view({8});
        T z0 = y.reshape({2, 4});
        T z1 = z0.transpose(1, 0);
        z1.unsqueeze_(0);
        z1.squeeze_();
        auto zs = z1.split(2);
        zs[0].add_(at::ones({2, 2}));
        T z4 = z0.select(0, 0) + zs[0].reshape({4});
        return {zs[0], z4};
      },
      Randn(515, {{4, 2}}));
  add(
      "torch_aliases_maintained",
      [](const Ts& in) -> Ts {
        T y = in[0].view({4, 2});
        T z = in[0].view({4, 2});
        y.add_(at::ones({4, 2}));
        return {y, z};
      },
      Randn(516, {{4, 2}}));
  for (auto [name, dtype, n] :
       std::vector<std::tuple<std::string, at::ScalarType, int64_t>>{{"same", at::kFloat, 2},
                                                                     {"broadcast", at::kFloat, 1},
                                                                     {"long", at::kLong, 2},
                                                                     {"long_broadcast", at::kLong, 1}})
    add(
        "torch_copy_" + name,
        [](const Ts& in) -> Ts {
          T tmp = at::zeros({2, 2});
          T y = tmp.diagonal().copy_(in[0]);
          return {y.add_(in[0]), tmp};
        },
        Seeded(517, [dtype = dtype, n = n] { return Ts{at::randint(-4, 4, {n}, at::TensorOptions().dtype(dtype))}; }));
  add(
      "torch_fill_",
      [](const Ts& in) -> Ts {
        T y = in[0] + in[0];
        y.diagonal().fill_(0);
        return {y};
      },
      Randn(518, {{2, 2}}));
  add(
      "torch_nested_functions_propagate_updates",
      [](const Ts& in) -> Ts {
        in[0].select(0, 0).add_(1);
        return {in[0] + in[0]};
      },
      Randn(519, {{2, 2}}));
  add(
      "torch_tensor_list_composite",
      [](const Ts& in) -> Ts {
        return {at::block_diag({in[0], in[0]})};
      },
      Randn(520, {{2, 2}}));
  // ---------------------------------------------------------------------
  // What torch.fx's reinplace does (issue 14 item 8): an elementwise op whose
  // other operand is the same view as self; scatters into an as_strided view
  // of an intermediate.
  add(
      "elementwise_with_same_view_operand",
      [](const Ts& in) -> Ts {
        T t = in[0] * 2;
        T u = t.add(t.view({-1}));
        T w = u.view({2, 3});
        T z = w.mul(w.view({2, 3}));
        return {z, in[0] * 1};
      },
      Randn(410, {{6}}));
  for (int64_t offset : {0, 1})
    for (int64_t slot : {0, 1})
      add(
          "select_scatter_into_as_strided_mirror_" + std::to_string(offset) + "_" + std::to_string(slot),
          [offset, slot](const Ts& in) -> Ts {
            T a = in[0].clone();
            T c = a.select(1, 1).select(0, 1);
            T c_updated = c.add(1);
            T mirror = a.as_strided({4}, {4}, offset);
            return {at::select_scatter(mirror, c_updated, 0, slot)};
          },
          Randn(411, {{4, 4}}));
  // PyTorch's test_reinplace_scatter_op: functionalize writes the 0-dim
  // select back through view(add, []), a reshape of the value written.
  add(
      "scatter_of_reshaped_result",
      [](const Ts& in) -> Ts {
        T a = in[0].clone();
        T e = a.view({-1});
        a.view({-1}).select(0, 0).view({-1}).add_(1);
        return {a + e};
      },
      Randn(413, {{4}}));
  add(
      "write_through_select_of_as_strided_view",
      [](const Ts& in) -> Ts {
        T x = in[0] * 2;
        T b = x.as_strided({2, 3}, {4, 1}, 1);
        b.select(0, 1).add_(1);
        b.narrow(1, 0, 2).mul_(3);
        return {x};
      },
      Randn(412, {{4, 4}}));
  // ---------------------------------------------------------------------
  // Composite ops the C backend gets through the decompose pass.
  add(
      "composite_stack_baddbmm_mv_dot",
      [](const Ts& in) -> Ts {
        T st = at::stack({in[0], in[0] * 2}, 1);
        T bd = at::baddbmm(in[1], in[2], in[3], 0.5, 2);
        T mv = at::mv(in[0], in[4]);
        T dt = at::dot(in[4], in[4]);
        return {st, bd, mv, dt};
      },
      Randn(300, {{3, 4}, {2, 3, 5}, {2, 3, 4}, {2, 4, 5}, {4}}));
  add(
      "composite_var_std",
      [](const Ts& in) -> Ts {
        return {in[0].var(1), in[0].std(), at::var(in[0], {0}, /*unbiased=*/false, /*keepdim=*/true),
                at::std(in[0], {1}, /*unbiased=*/true, /*keepdim=*/false)};
      },
      Randn(301, {{4, 6}}));
  // ---------------------------------------------------------------------
  // Advanced indexing and embedding_bag (issue 14 item 6).
  auto I64 = [](std::vector<int64_t> v, std::vector<int64_t> shape) { return at::tensor(v).view(shape); };
  add(
      "index_tensor_one_index_negative_entries",
      [](const Ts& in) -> Ts {
        return {at::index(in[0], Idx({c10::nullopt, in[1]})) * 2};
      },
      Seeded(310, [I64] {
        return Ts{at::randn({4, 5, 6}), I64({0, -1, 3, -5, 2, 2}, {2, 3})};
      }));
  add(
      "index_tensor_broadcast_adjacent_dims",
      [](const Ts& in) -> Ts {
        return {at::index(in[0], Idx({c10::nullopt, in[1], in[2]}))};
      },
      Seeded(311, [I64] {
        return Ts{at::randn({4, 5, 6}), I64({4, 0, -2}, {3, 1}), I64({5, -6}, {2})};
      }));
  add(
      "index_tensor_non_adjacent_dims_first",
      [](const Ts& in) -> Ts {
        return {at::index(in[0].transpose(0, 2), Idx({in[1], c10::nullopt, in[2]}))};
      },
      Seeded(312, [I64] {
        return Ts{at::randn({4, 5, 6}), I64({5, 0, 2}, {3}), I64({3, 1, -1}, {3})};
      }));
  add(
      "index_tensor_index_of_table_then_view",
      [](const Ts& in) -> Ts {
        return {at::index(in[0], Idx({in[1].view({-1})})).view({4, 4, 3})};
      },
      Seeded(313, [] {
        return Ts{at::randn({7, 3}), at::randint(0, 7, {4, 4}, at::kLong)};
      }));
  add(
      "index_put_broadcast_indices_block_values_accumulate",
      [](const Ts& in) -> Ts {
        T b = in[0] * 1;
        b.index_put_(Idx({c10::nullopt, in[1], in[2]}), in[3], /*accumulate=*/true);
        return {b};
      },
      Seeded(314, [I64] {
        return Ts{at::randn({2, 4, 5}), I64({1, -1}, {2, 1}), I64({0, 4, 0}, {3}), at::randn({2, 2, 3})};
      }));
  add(
      "embedding_bag_sum_weighted_mean_padded_max",
      [](const Ts& in) -> Ts {
        T w = in[0], idx = in[1], off = in[2], psw = in[3];
        T s = std::get<0>(at::embedding_bag(w, idx, off, false, 0, false, psw, false, c10::nullopt));
        // Bag 2 is empty; index 3 is padding.
        T m = std::get<0>(at::embedding_bag(w, idx, off, false, 1, false, c10::nullopt, false, 3));
        T x = std::get<0>(at::embedding_bag(w, idx, off, false, 2, false, c10::nullopt, false, c10::nullopt));
        T l = std::get<0>(at::embedding_bag(w, idx, at::cat({off, at::full({1}, 8, at::kLong)}), false, 0, false,
                                            c10::nullopt, true, c10::nullopt));
        return {s, m, x, l};
      },
      Seeded(315, [I64] {
        return Ts{at::randn({6, 4}), I64({1, 3, 0, 3, 3, 5, 2, 1}, {8}), I64({0, 3, 5, 5}, {4}), at::randn({8})};
      }));
  // ---------------------------------------------------------------------
  // Decomposed: pad, roll, repeat, new_* factories, norms (passes/decompose_shape.h).
  add(
      "pad_constant_negative_and_value_roll_negative_dims",
      [](const Ts& in) -> Ts {
        T a = at::pad(in[0], {1, 2, 0, 3}, "constant", 0.5);
        T c = at::constant_pad_nd(in[0], {-1, 2, 2, -1, 1, 0});  // crops and pads; no dims given past rank
        T r = at::roll(in[0], {-2, 7}, {-1, 1});
        T f = at::roll(in[0], {5});          // no dims: the flattened tensor
        T z = at::pad(in[0], {0, 0, 0, 0});  // nothing to pad: still a copy
        z.add_(1);
        return {a, c, r, f, z, in[0] * 1};
      },
      Randn(320, {{2, 3, 4}}));
  add(
      "repeat_more_dims_ones_zero_transposed_and_written",
      [](const Ts& in) -> Ts {
        T a = in[0].repeat({2, 1, 3});   // a leading dimension added
        T o = in[0].repeat({1, 1});      // every repeat 1: still a copy
        o.mul_(2);                       // which must not write the input
        T z = in[0].repeat({0, 2});      // no elements
        T t = in[0].t().repeat({2, 2});  // a strided input
        T r = in[1].repeat({3});         // a scalar-like 1-element vector
        return {a, o, z, t, r, in[0] + 0};
      },
      Randn(323, {{2, 3}, {1}}));
  add(
      "new_zeros_ones_full_keep_dtype",
      [](const Ts& in) -> Ts {
        T i = in[0].to(at::kLong);
        return {in[0].new_zeros({2, 3}) + 1, i.new_ones({4}), in[0].new_full({3}, 2.5),
                i.new_zeros({2}).add_(i.select(0, 0).sum())};
      },
      Randn(321, {{3, 2}}));
  add(
      "norm_p2_p1_inf_p3_all_dims_normalize",
      [](const Ts& in) -> Ts {
        const T& x = in[0];
        return {x.norm(2, {-1}, /*keepdim=*/true),
                at::norm(x, 1, std::vector<int64_t>{0, 2}),
                at::norm(x, INFINITY, {1}),
                at::norm(x, -INFINITY, {1}),
                at::norm(x, 3, {-1}),
                x.norm(),
                at::norm(x, 0, {2}),
                x / x.norm(2, {1}, true).clamp_min(1e-12)};
      },
      Randn(322, {{2, 3, 5}}));
  add(
      "einsum_attention_broadcast_ellipsis_implicit_three_operands",
      [](const Ts& in) -> Ts {
        const T &q = in[0], &k = in[1], &a = in[2], &c = in[3], &v = in[4];
        return {at::einsum("bhid,bhjd->bhij", {q, k}),                  // batched q k^T
                at::einsum("...ij,...jk->...ik", {a, c}),               // batch 1 broadcast against 2
                at::einsum("ji,jk", {a.select(0, 0), c.select(0, 1)}),  // implicit output ik
                at::einsum("ab,bc,cd->da", {a.select(0, 0), c.select(0, 0), c.select(0, 1).t()}),
                at::einsum("i,j->ij", {v, v}),
                at::einsum("bhid->", {q}),
                at::einsum("bhid->dbi", {q})};
      },
      Randn(323, {{2, 3, 4, 5}, {2, 3, 6, 5}, {1, 4, 4}, {2, 4, 3}, {3}}));
  // ---------------------------------------------------------------------
  // sort, topk, cumsum, cumprod (C kernels).
  add(
      "topk_largest_smallest_negative_dim_k_full",
      [](const Ts& in) -> Ts {
        auto [a, ai] = in[0].topk(3, -1);
        auto [b, bi] = in[0].topk(2, 0, /*largest=*/false);
        auto [c, ci] = in[0].topk(6, 1, true, true);  // k = the whole row
        return {a, ai, b, bi, c, ci};
      },
      Randn(330, {{4, 6}}));
  add(
      "sort_stable_ties_nan_both_directions",
      [](const Ts& in) -> Ts {
        auto [a, ai] = in[0].sort(/*stable=*/true, 1, /*descending=*/false);
        auto [b, bi] = in[0].sort(/*stable=*/true, -1, /*descending=*/true);
        auto [c, ci] = in[0].t().sort(0);
        return {a, ai, b, bi, c, ci};
      },
      Seeded(331, [] {
        // Rows with repeated values (ties keep their order) and a NaN (sorts as the largest).
        T x = at::randint(0, 4, {3, 7}).to(at::kFloat);
        x.index_put_({1, 2}, NAN);
        return Ts{x};
      }));
  add(
      "cumsum_dtypes_negative_dim_cumprod",
      [](const Ts& in) -> Ts {
        T i = in[1];
        return {in[0].cumsum(1),         in[0].cumsum(-3, at::kDouble), i.cumsum(0),
                i.cumsum(1, at::kFloat), (in[0] > 0).cumsum(2),         in[0].cumprod(-1)};
      },
      Seeded(332, [] {
        return Ts{at::randn({2, 3, 4}), at::randint(-5, 5, {3, 4}, at::kInt)};
      }));
  // ---------------------------------------------------------------------
  // cat written in place (codegen/inplace_cat.h): producers write into their
  // slice; what cannot move is copied. The plan-checked runs put every slice
  // at its planned offset.
  add(
      "cat_in_place_inception_branches",
      [](const Ts& in) -> Ts {
        const T& x = in[0];
        T y = at::cat({x * 2, (x + 1).relu(), at::avg_pool2d(x, 3, 1, 1), at::max_pool2d(x, 3, 1, 1)}, 1);
        return {y.tanh(), y.sum({2, 3})};
      },
      Randn(340, {{1, 3, 5, 5}}));
  add(
      "cat_in_place_dense_block_prefix_views",
      [](const Ts& in) -> Ts {
        T x0 = in[0].relu();
        T f1 = (x0 * 0.5).sin();
        T c1 = at::cat({x0, f1}, 1);
        T f2 = c1.sum(1, true).cos();
        T c2 = at::cat({x0, f1, f2}, 1);
        T f3 = c2.mean(1, true) * 2;
        T c3 = at::cat({x0, f1, f2, f3}, 1);
        return {c3 * 1.5, c1.exp(), c2.amax(1)};
      },
      Randn(341, {{1, 2, 3, 4}}));
  add(
      "cat_in_place_input_read_by_a_sibling_producer_and_repeated",
      [](const Ts& in) -> Ts {
        T a = in[0].exp();
        T b = a * 2;  // reads a: only one of them may move
        T y = at::cat({a, b, a}, 0);
        return {y + 1};
      },
      Randn(342, {{2, 3}}));
  add(
      "cat_in_place_nested_output_and_graph_output_input",
      [](const Ts& in) -> Ts {
        T a = in[0].sigmoid(), b = in[0].cos(), c = in[1] * in[1];
        T inner = at::cat({a, b}, 1);
        T outer = at::cat({inner, c}, 1);
        return {outer, b};  // outer straight into the caller's memory; b is an output itself
      },
      Randn(343, {{1, 2, 3}, {1, 4, 3}}));
  add(
      "cat_not_in_place_batch_two_dtype_mix_and_write_after",
      [](const Ts& in) -> Ts {
        T a = in[0] + 1, b = in[0].abs();
        T y = at::cat({a, b}, 1);  // batch 2: the slices are strided, copied
        T i = at::cat({in[1], in[1] + 1}, 0);
        T m = at::cat({in[1].to(at::kFloat) * 2, a.select(0, 0)}, 0);  // int and float: promoted, copied
        T w = in[0] - 1;
        T z = at::cat({w, a}, 0);
        w.mul_(3);  // written after the cat: must not change z
        return {y, i, m, z, w};
      },
      Seeded(344, [] {
        return Ts{at::randn({2, 3}), at::randint(-5, 5, {3}, at::kLong)};
      }));
  // ---------------------------------------------------------------------
  // Float sums over contiguous runs (aot__sum_f32d, host builds): global and
  // binned adaptive average pooling, a slice of the channels (planes apart),
  // a transposed input (strided rows: the plain loop), mean and sum over
  // trailing, leading and all dims.
  add(
      "float_sums_pooling_and_means_over_runs",
      [](const Ts& in) -> Ts {
        const T& x = in[0];
        return {at::adaptive_avg_pool2d(x, {1, 1}),
                at::adaptive_avg_pool2d(x.narrow(1, 1, 2), {1, 1}),  // planes 2 of 3 apart in each image
                at::adaptive_avg_pool2d(x, {3, 2}),
                at::adaptive_avg_pool2d(x.transpose(2, 3), {1, 1}),
                x.mean({2, 3}),
                x.sum({1, 2, 3}, true),
                x.sum(0),
                x.mean(),
                (x * 1e3).sum(-1)};
      },
      Randn(345, {{2, 3, 7, 37}}));
  // A kernel may write its output over its dying input 0 (KernelReusePairs),
  // but not while another operand reads that buffer elsewhere: a + a[0]
  // over a's buffer changed row 0 before rows 1.. read it (random program
  // seed 7319 of the 100,000-program compiled run, and 19 more like it).
  add(
      "output_over_input_read_through_a_view",
      [](const Ts& in) -> Ts {
        T a = in[0].abs();
        T b = in[1].neg();
        return {a + a.select(0, 0), b * b.select(1, 2).unsqueeze(1) + b.t()};
      },
      Randn(346, {{3, 3}, {4, 4}}));
  // Float rows through the vectorised paths: softmax and log_softmax (exp in
  // float, the sum over double lanes), a row masked to -inf in part and one
  // in full (NaN, as eager); layer_norm with and without weights and
  // native_layer_norm's mean and rstd; a linear over [2, 3, 8] (one GEMM of
  // six rows: FoldSharedBatchIntoRows) and over its transpose (rows that do
  // not run on: a GEMM per batch).
  add(
      "float_rows_softmax_layer_norm_and_batched_linear",
      [](const Ts& in) -> Ts {
        const T& x = in[0];  // [2, 3, 8]
        T masked = at::cat(
            {x.narrow(1, 0, 2).masked_fill(x.narrow(1, 0, 2) > 0.5, -INFINITY), at::full({2, 1, 8}, -INFINITY)}, 1);
        auto ln = at::native_layer_norm(x, {8}, in[1], in[2], 1e-3);
        return {x.softmax(-1),
                x.log_softmax(-1),
                masked.softmax(-1),
                at::layer_norm(x, {8}, in[1], in[2]),
                at::layer_norm(x * 3.0, {3, 8}),
                std::get<0>(ln),
                std::get<1>(ln),
                std::get<2>(ln),
                at::linear(x, in[3], in[4]),
                at::linear(x.transpose(0, 1), in[3])};
      },
      Randn(347, {{2, 3, 8}, {8}, {8}, {5, 8}, {5}}));
  // nn.MultiheadAttention's in-projection of one batch-first sequence runs
  // over [T, 1, E], the rows 1 apart in T: T one-row products folded into one
  // GEMM of T rows (FoldSharedBatchIntoRows with M = 1), with and without a
  // bias and a relu in the store; beside it two sequences, which do not fold.
  add(
      "seq_first_linear_of_one_sequence",
      [](const Ts& in) -> Ts {
        const T& x = in[0];                         // [2, 6, 8]
        T one = x.narrow(0, 0, 1).transpose(0, 1);  // [6, 1, 8], strides (8, 48, 1)
        return {at::linear(one, in[1], in[2]), at::relu(at::linear(one * 2.0, in[1])),
                at::linear(x.transpose(0, 1), in[1], in[2])};
      },
      Randn(348, {{2, 6, 8}, {5, 8}, {5}}));
  // Softmax rows under size-1 dims (a GPT block's [1, heads, T, T] scores):
  // the rows split over the first dim that is not 1; rows longer than 16
  // with a tail (aot__max_f32's lanes), and a strided softmax beside them.
  add(
      "softmax_rows_under_unit_dims",
      [](const Ts& in) -> Ts {
        const T& x = in[0];  // [1, 6, 1, 37]
        return {x.softmax(-1), x.log_softmax(-1), x.softmax(1), (x * 40.0).softmax(-1)};
      },
      Randn(349, {{1, 6, 1, 37}}));
  // 0-dim tensors through the kernels along one dimension: ATen takes dim 0
  // and -1 of a scalar as a row of one element (the compiler crashed on
  // each of these until 2026-12-07); an empty input is contiguous whatever
  // its strides (the CUDA backend refused [2, 0]).
  add(
      "zero_dim_rows_and_empty_input",
      [](const Ts& in) -> Ts {
        const T& s = in[0];  // []
        auto [mx, mi] = s.max(0);
        auto [mn, ni] = s.min(-1, /*keepdim=*/true);
        return {s.softmax(0),
                s.log_softmax(-1),
                s.cumsum(0),
                s.cumprod(-1),
                s.sum(0),
                s.mean(-1, true),
                s.amax(0),
                s.amin({-1}),
                s.prod(0),
                s.argmax(0),
                s.argmin(-1),
                mx,
                mi,
                mn,
                ni,
                in[1].index_select(0, in[3]),
                in[2].sum(-1) + 1,
                in[2].softmax(-1)};
      },
      Seeded(350, [] {
        return Ts{at::randn({}), at::randn({3}), at::randn({2, 0}), at::full({}, 1, at::kLong)};
      }));
  // argmax/argmin with no dim (a classifier's logits.argmax()): the index in
  // row-major order over all elements of a contiguous tensor or a view that
  // is one; ties and NaN as eager (the first; NaN wins).
  add(
      "argmax_argmin_over_all_elements",
      [](const Ts& in) -> Ts {
        const T& x = in[0];  // [2, 3, 4]
        T nan = at::where(x > 1.5, x * NAN, x);
        return {in[1].argmax(),
                x.argmin(c10::nullopt, /*keepdim=*/true),
                x.narrow(0, 1, 1).argmax(),
                (x > 0).to(at::kFloat).argmax(),
                nan.argmax(),
                nan.argmin(),
                (x * 10).to(at::kLong).argmax(),
                in[2].argmax()};
      },
      Seeded(351, [] {
        return Ts{at::randn({2, 3, 4}), at::randn({1, 1000}), at::randn({})};
      }));
  // gather (one body for C and CUDA, codegen/element_kernels): along the
  // last, a negative and a middle dim, from a strided view, int64 values.
  add(
      "gather_dims_views_dtypes",
      [](const Ts& in) -> Ts {
        const T& x = in[0];  // [3, 4, 5]
        return {x.gather(2, in[1]), (x * 2).gather(-3, in[2]), x.transpose(0, 2).gather(1, in[3]),
                (x * 10).to(at::kLong).gather(1, in[4])};
      },
      Seeded(352, [] {
        return Ts{at::randn({3, 4, 5}), at::randint(0, 5, {3, 4, 2}, at::kLong),
                  at::randint(0, 3, {2, 4, 5}, at::kLong), at::randint(0, 4, {5, 3, 3}, at::kLong),
                  at::randint(0, 4, {3, 1, 5}, at::kLong)};
      }));
  // logsumexp, flip and frobenius_norm (decompose_shape.cc): logsumexp over
  // one, several and all dims (named: eager 1.13 fails on an empty list),
  // rows with +inf, -inf only and NaN (ATen's infinite-max rule), an empty
  // row; flip of several and negative dims, of
  // a view, of int64; frobenius_norm over all, two and one dim (keepdim);
  // nan_to_num (an elementwise op) with its defaults and given values.
  add(
      "logsumexp_flip_frobenius_norm_nan_to_num",
      [](const Ts& in) -> Ts {
        const T& x = in[0];  // [3, 4, 5] with special rows
        return {at::logsumexp(x, {1}),
                at::logsumexp(x, std::vector<int64_t>{0, 2}, /*keepdim=*/true),
                at::logsumexp(x.transpose(1, 2) * 2, {-1}),
                at::logsumexp(in[1], std::vector<int64_t>{0, 1, 2}),
                at::logsumexp(in[2], {1}),
                at::flip(x, {0, 2}),
                at::flip(x.narrow(1, 1, 2), {-1}) + 1,
                at::flip((in[1] * 10).to(at::kLong), {1}),
                at::frobenius_norm(in[1]),
                at::frobenius_norm(in[1], {1, 2}),
                at::frobenius_norm(in[1], {0}, /*keepdim=*/true),
                at::nan_to_num(x),
                at::nan_to_num(x * 3, 0.5, 2.0, -2.0)};
      },
      Seeded(353, [] {
        T x = at::randn({3, 4, 5});
        x.select(0, 0).select(0, 1).fill_(INFINITY);
        x.select(0, 1).select(0, 2).fill_(-INFINITY);
        x.select(0, 2).select(0, 0).select(0, 3).fill_(NAN);
        return Ts{x, at::randn({2, 3, 4}), at::randn({2, 0})};
      }));
  // argsort (sort's indices, decompose_shape.cc): last and first dim,
  // descending, a transposed view, stable with ties (the first index first).
  add(
      "argsort_dims_descending_stable",
      [](const Ts& in) -> Ts {
        const T& x = in[0];  // [3, 5]
        return {x.argsort(), x.argsort(0, /*descending=*/true), x.t().argsort(int64_t{1}),
                at::argsort(in[1], /*stable=*/true, 1, /*descending=*/false),
                at::argsort(in[1], /*stable=*/true, 0, /*descending=*/true)};
      },
      Seeded(354, [] {
        return Ts{at::randn({3, 5}), at::randint(0, 3, {4, 6}).to(at::kFloat)};
      }));
  return ps;
}

}  // namespace

const std::vector<SuiteProgram>& ProgramSuite() {
  static const std::vector<SuiteProgram> suite = Build();
  return suite;
}

}  // namespace atenaot
