# RUN: atenaot dump %i | FileCheck %s
# RUN: atenaot dump %i -o %t.ir && atenaot dump %t.ir | FileCheck %s
# In-place ops through views of an intermediate (b = a + a): b, its flat view,
# its diagonal, a row and its transpose all share b's storage @s1, and every
# in-place result keeps the metadata of the view it writes through. Overloads
# are resolved from the argument types (add_.Scalar for a float, sub_.Tensor
# for a tensor).
graph(%a : Float(3, 3, strides=[3, 1], requires_grad=0, device=cpu)):
  %one : int = prim::Constant[value=1]()
  %b : Tensor = aten::add(%a, %a, %one)
  %m1 : int = prim::Constant[value=-1]()
  %sz : int[] = prim::ListConstruct(%m1)
  %c : Tensor = aten::view(%b, %sz)
  %two : float = prim::Constant[value=2.]()
  %c2 : Tensor = aten::add_(%c, %two, %one)
  %z : int = prim::Constant[value=0]()
  %d : Tensor = aten::diagonal(%b, %z, %z, %one)
  %d2 : Tensor = aten::mul_(%d, %two)
  %r : Tensor = aten::select(%b, %z, %one)
  %ar : Tensor = aten::select(%a, %z, %z)
  %r2 : Tensor = aten::sub_(%r, %ar, %one)
  %t : Tensor = aten::t(%b)
  %tt : Tensor = aten::zero_(%t)
  %e : Tensor = aten::mul(%a, %a)
  return (%b, %c2, %d2, %e)
# CHECK-LABEL: graph @forward(%a: f32[3,3]@s0) {
# CHECK-NEXT:    %[[B:[0-9a-z_.]+]] = aten::add.Tensor(%a, %a, 1) : f32[3,3]@s1
# CHECK-NEXT:    %[[C:[0-9a-z_.]+]] = aten::view(%[[B]], [-1]) : f32[9]@s1
# CHECK-NEXT:    %[[C2:[0-9a-z_.]+]] = aten::add_.Scalar(%[[C]], 2.0, 1) : f32[9]@s1
# CHECK-NEXT:    %[[D:[0-9a-z_.]+]] = aten::diagonal(%[[B]], 0, 0, 1) : f32[3]{4}@s1
# CHECK-NEXT:    %[[D2:[0-9a-z_.]+]] = aten::mul_.Scalar(%[[D]], 2.0) : f32[3]{4}@s1
# CHECK-NEXT:    %[[R:[0-9a-z_.]+]] = aten::select.int(%[[B]], 0, 1) : f32[3]+3@s1
# CHECK-NEXT:    %[[AR:[0-9a-z_.]+]] = aten::select.int(%a, 0, 0) : f32[3]@s0
# CHECK-NEXT:    %{{[0-9a-z_.]+}} = aten::sub_.Tensor(%[[R]], %[[AR]], 1) : f32[3]+3@s1
# CHECK-NEXT:    %[[T:[0-9a-z_.]+]] = aten::t(%[[B]]) : f32[3,3]{1,3}@s1
# CHECK-NEXT:    %{{[0-9a-z_.]+}} = aten::zero_(%[[T]]) : f32[3,3]{1,3}@s1
# CHECK-NEXT:    %[[E:[0-9a-z_.]+]] = aten::mul.Tensor(%a, %a) : f32[3,3]@s2
# CHECK-NEXT:    return (%[[B]], %[[C2]], %[[D2]], %[[E]])
# CHECK-NEXT:  }
