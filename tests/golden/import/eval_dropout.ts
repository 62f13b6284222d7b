# RUN: atenaot dump %i | FileCheck %s
# RUN: atenaot dump %i --stage functional | FileCheck %s --check-prefix=FUNC
# Eval-mode dropout (train=False) returns its input, in every variant, in
# place or not (MobileNetV3 and EfficientNet trace to dropout_): the importer
# drops them, so only the relu and the mul remain.
graph(%x : Float(2, 3, strides=[3, 1], requires_grad=0, device=cpu)):
  %p : float = prim::Constant[value=0.2]()
  %f : bool = prim::Constant[value=0]()
  %two : int = prim::Constant[value=2]()
  %a : Tensor = aten::relu(%x)
  %b : Tensor = aten::dropout_(%a, %p, %f)
  %c : Tensor = aten::feature_dropout_(%b, %p, %f)
  %d : Tensor = aten::alpha_dropout_(%c, %p, %f)
  %e : Tensor = aten::feature_alpha_dropout_(%d, %p, %f)
  %g : Tensor = aten::dropout(%e, %p, %f)
  %h : Tensor = aten::feature_dropout(%g, %p, %f)
  %i : Tensor = aten::alpha_dropout(%h, %p, %f)
  %j : Tensor = aten::feature_alpha_dropout(%i, %p, %f)
  %k : Tensor = aten::mul(%j, %two)
  return (%k)
# CHECK-LABEL: graph @forward(%x: f32[2,3]@s0) {
# CHECK-NEXT:    %[[A:[0-9a-z_.]+]] = aten::relu(%x) : f32[2,3]@s1
# CHECK-NEXT:    %[[K:[0-9a-z_.]+]] = aten::mul.Scalar(%[[A]], 2) : f32[2,3]@s2
# CHECK-NEXT:    return %[[K]]
# CHECK-NEXT:  }
# FUNC:        aten::relu
# FUNC-NOT:    dropout
