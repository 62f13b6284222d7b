# RUN: atenaot dump %i | FileCheck %s
# RUN: atenaot dump %i -o %t.ir && atenaot dump %t.ir | FileCheck %s
# A graph with several outputs (return (%t, %b)) becomes one tuple; a tuple
# among them stays nested.
graph(%x : Float(2, 3, strides=[3, 1], requires_grad=0, device=cpu)):
  %b : Tensor = aten::neg(%x)
  %t : (Tensor, Tensor) = prim::TupleConstruct(%b, %x)
  return (%t, %b)
# CHECK-LABEL: graph @forward(%x: f32[2,3]@s0) {
# CHECK-NEXT:    %[[B:[0-9a-z_.]+]] = aten::neg(%x) : f32[2,3]@s1
# CHECK-NEXT:    return ((%[[B]], %x), %[[B]])
# CHECK-NEXT:  }
