# RUN: atenaot dump %i | FileCheck %s
# Regression (fixed bug): the importer named each result after its TorchScript
# value, but the graph had already given the new value a fresh numeric name;
# when the two were equal, UniqueName saw the value itself as a clash and
# appended "_1" (%2_1, %3_1). Checked: %1, %2, %3.
graph(%x : Float(2, strides=[1], requires_grad=0, device=cpu)):
  %a : Tensor = aten::neg(%x)
  %b : Tensor = aten::relu(%a)
  %c : Tensor = aten::exp(%b)
  return (%c)
# CHECK-LABEL: graph @forward(%x: f32[2]@s0) {
# CHECK-NEXT:    %1 = aten::neg(%x) : f32[2]@s1
# CHECK-NEXT:    %2 = aten::relu(%1) : f32[2]@s2
# CHECK-NEXT:    %3 = aten::exp(%2) : f32[2]@s3
# CHECK-NEXT:    return %3
# CHECK-NEXT:  }
