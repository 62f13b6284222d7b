# RUN: atenaot dump %i | FileCheck %s
# RUN: atenaot dump %i -o %t.ir && atenaot dump %t.ir | FileCheck %s
# Traced shape arithmetic (channel shuffle: c // 2, h * w; x.size(-1) / 2;
# (h*w - 2) + 2 as a Scalar) runs on prim::NumToTensor tensors and 0-dim
# tensor constants. Shapes are fixed by the sample input, so these fold at
# import: the view's sizes become literals, the float tensor s = 2 / 2 a
# 0-dim weight and the ScalarImplicit the literal 6. No floor_divide, mul,
# div, sub or add of shape values remains.
graph(%x : Float(2, 4, 3, 2, strides=[24, 6, 2, 1], requires_grad=0, device=cpu)):
  %zero : int = prim::Constant[value=0]()
  %one : int = prim::Constant[value=1]()
  %two : int = prim::Constant[value=2]()
  %three : int = prim::Constant[value=3]()
  %m1 : int = prim::Constant[value=-1]()
  %5 : int = aten::size(%x, %zero)
  %b : Long(device=cpu) = prim::NumToTensor(%5)
  %bi : int = aten::Int(%b)
  %8 : int = aten::size(%x, %one)
  %c : Long(device=cpu) = prim::NumToTensor(%8)
  %11 : int = aten::size(%x, %two)
  %h : Long(device=cpu) = prim::NumToTensor(%11)
  %14 : int = aten::size(%x, %three)
  %w : Long(device=cpu) = prim::NumToTensor(%14)
  %k2 : Long(requires_grad=0, device=cpu) = prim::Constant[value={2}]()
  %g : Long(requires_grad=0, device=cpu) = aten::floor_divide(%c, %k2)
  %gi : int = aten::Int(%g)
  %hw : Long(requires_grad=0, device=cpu) = aten::mul(%h, %w)
  %hwi : int = aten::Int(%hw)
  %l : int[] = prim::ListConstruct(%bi, %two, %gi, %hwi)
  %v : Tensor = aten::view(%x, %l)
  %35 : int = aten::size(%x, %m1)
  %36 : Long(device=cpu) = prim::NumToTensor(%35)
  %s : Float(requires_grad=0, device=cpu) = aten::div(%36, %k2)
  %hw1 : Long(requires_grad=0, device=cpu) = aten::sub(%hw, %k2, %one)
  %hw2 : Long(requires_grad=0, device=cpu) = aten::add(%hw1, %k2, %one)
  %sc : Scalar = aten::ScalarImplicit(%hw2)
  %y : Tensor = aten::mul(%v, %s)
  %z : Tensor = aten::add(%v, %sc, %one)
  return (%y, %z)
# CHECK-LABEL: graph @forward(%x: f32[2,4,3,2]@s0) {
# CHECK-NEXT:    weight %[[S:[0-9a-z_.]+]]: f32[]@s1 = "[[S]]"
# CHECK-NEXT:    %[[V:[0-9a-z_.]+]] = aten::view(%x, [2, 2, 2, 6]) : f32[2,2,2,6]@s0
# CHECK-NEXT:    %[[Y:[0-9a-z_.]+]] = aten::mul.Tensor(%[[V]], %[[S]]) : f32[2,2,2,6]@s2
# CHECK-NEXT:    %[[Z:[0-9a-z_.]+]] = aten::add.Scalar(%[[V]], 6, 1) : f32[2,2,2,6]@s3
# CHECK-NEXT:    return (%[[Y]], %[[Z]])
# CHECK-NEXT:  }
