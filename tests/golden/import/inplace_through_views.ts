# RUN: atenaot dump %i | FileCheck %s
# A write through a view of an input keeps the view (same storage @s0) and the
# in-place op; shapes, strides and offsets come from the annotated types.
graph(%x : Float(2, 3, strides=[3, 1], requires_grad=0, device=cpu)):
  %1 : int = prim::Constant[value=-1]()
  %2 : int[] = prim::ListConstruct(%1)
  %v : Float(6, strides=[1], requires_grad=0, device=cpu) = aten::view(%x, %2)
  %4 : int = prim::Constant[value=0]()
  %5 : int = prim::Constant[value=1]()
  %s : Float(3, strides=[1], requires_grad=0, device=cpu) = aten::select(%x, %4, %5)
  %7 : float = prim::Constant[value=2.5]()
  %f : Float(3, strides=[1], requires_grad=0, device=cpu) = aten::fill_(%s, %7)
  %t : Float(3, 2, strides=[1, 3], requires_grad=0, device=cpu) = aten::t(%x)
  return (%v, %t)
# CHECK-LABEL: graph @forward(%x: f32[2,3]@s0) {
# CHECK-NEXT:    %[[V:[0-9a-z_.]+]] = aten::view(%x, [-1]) : f32[6]@s0
# CHECK-NEXT:    %[[S:[0-9a-z_.]+]] = aten::select.int(%x, 0, 1) : f32[3]+3@s0
# CHECK-NEXT:    %{{[0-9a-z_.]+}} = aten::fill_.Scalar(%[[S]], 2.5) : f32[3]+3@s0
# CHECK-NEXT:    %[[T:[0-9a-z_.]+]] = aten::t(%x) : f32[3,2]{1,3}@s0
# CHECK-NEXT:    return (%[[V]], %[[T]])
