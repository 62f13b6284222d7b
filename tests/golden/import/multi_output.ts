# RUN: atenaot dump %i | FileCheck %s
# RUN: atenaot dump %i -o %t.ir && atenaot dump %t.ir | FileCheck %s
# Multi-output ops print all results on one line (max.dim, topk); ops returning
# Tensor[] (split.Tensor, unbind.int, split_with_sizes) take their result names
# from the prim::ListUnpack that follows and print their types in [...]. The
# pieces are views of x (@s0) at the right offsets; a Tensor[] argument built
# by prim::ListConstruct prints as [%a, %b].
graph(%x : Float(4, 6, strides=[6, 1], requires_grad=0, device=cpu)):
  %one : int = prim::Constant[value=1]()
  %two : int = prim::Constant[value=2]()
  %zero : int = prim::Constant[value=0]()
  %m1 : int = prim::Constant[value=-1]()
  %f : bool = prim::Constant[value=0]()
  %t : bool = prim::Constant[value=1]()
  %mx : Tensor, %ix : Tensor = aten::max(%x, %one, %f)
  %tv : Tensor, %ti : Tensor = aten::topk(%x, %two, %m1, %t, %t)
  %parts : Tensor[] = aten::split(%x, %two, %zero)
  %p0 : Tensor, %p1 : Tensor = prim::ListUnpack(%parts)
  %cols : Tensor[] = aten::unbind(%x, %one)
  %c0 : Tensor, %c1 : Tensor, %c2 : Tensor, %c3 : Tensor, %c4 : Tensor, %c5 : Tensor = prim::ListUnpack(%cols)
  %three : int = prim::Constant[value=3]()
  %sizes : int[] = prim::ListConstruct(%one, %two, %three)
  %chunks : Tensor[] = aten::split_with_sizes(%x, %sizes, %one)
  %k0 : Tensor, %k1 : Tensor, %k2 : Tensor = prim::ListUnpack(%chunks)
  %s : Tensor = aten::add(%p0, %p1, %one)
  %cl : Tensor[] = prim::ListConstruct(%c5, %c0)
  %st : Tensor = aten::stack(%cl, %zero)
  return (%mx, %ix, %tv, %ti, %s, %st, %k2)
# CHECK-LABEL: graph @forward(%x: f32[4,6]@s0) {
# CHECK-NEXT:    %[[MX:[0-9a-z_.]+]], %[[IX:[0-9a-z_.]+]] = aten::max.dim(%x, 1, false) : f32[4]@s1, i64[4]@s2
# CHECK-NEXT:    %[[TV:[0-9a-z_.]+]], %[[TI:[0-9a-z_.]+]] = aten::topk(%x, 2, -1, true, true) : f32[4,2]@s3, i64[4,2]@s4
# CHECK-NEXT:    %[[P0:[0-9a-z_.]+]], %[[P1:[0-9a-z_.]+]] = aten::split.Tensor(%x, 2, 0) : [f32[2,6]@s0, f32[2,6]+12@s0]
# CHECK-NEXT:    %[[C0:[0-9a-z_.]+]], %{{[0-9a-z_.]+}}, %{{[0-9a-z_.]+}}, %{{[0-9a-z_.]+}}, %{{[0-9a-z_.]+}}, %[[C5:[0-9a-z_.]+]] = aten::unbind.int(%x, 1) : [f32[4]{6}@s0, f32[4]{6}+1@s0, f32[4]{6}+2@s0, f32[4]{6}+3@s0, f32[4]{6}+4@s0, f32[4]{6}+5@s0]
# CHECK-NEXT:    %{{[0-9a-z_.]+}}, %{{[0-9a-z_.]+}}, %[[K2:[0-9a-z_.]+]] = aten::split_with_sizes(%x, [1, 2, 3], 1) : [f32[4,1]{6,1}@s0, f32[4,2]{6,1}+1@s0, f32[4,3]{6,1}+3@s0]
# CHECK-NEXT:    %[[S:[0-9a-z_.]+]] = aten::add.Tensor(%[[P0]], %[[P1]], 1) : f32[2,6]@s5
# CHECK-NEXT:    %[[ST:[0-9a-z_.]+]] = aten::stack([%[[C5]], %[[C0]]], 0) : f32[2,4]@s6
# CHECK-NEXT:    return (%[[MX]], %[[IX]], %[[TV]], %[[TI]], %[[S]], %[[ST]], %[[K2]])
# CHECK-NEXT:  }
