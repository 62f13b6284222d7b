# RUN: atenaot dump %i -o %t.ir && FileCheck %s --input-file %t.ir
# RUN: atenaot dump %t.ir | FileCheck %s
# RUN: atenaot run %i --inputs tests/golden/cli/inputs/f32_4.npy --out-dir %t.out --print | FileCheck %s --check-prefix=VALS
# Python scalars in a trace are 0-dim tensor constants, prim::Constant[value={v}]
# (which parseIR reads as uninitialised memory; the importer re-reads them from
# the text). Each becomes a weight named and keyed by its value number, with
# the dtype of its annotation (Double -> f64, Long -> i64, Bool -> bool,
# Float -> f32). e * e, computed from constants only, folds into a weight
# holding 9. The run with x = [1, -2, 3, 4] shows the values are right.
graph(%x : Float(4, strides=[1], requires_grad=0, device=cpu)):
  %c : Double(requires_grad=0, device=cpu) = prim::Constant[value={2.5}]()
  %d : Double(requires_grad=0, device=cpu) = prim::Constant[value={-0.125}]()
  %e : Long(requires_grad=0, device=cpu) = prim::Constant[value={3}]()
  %f : Bool(requires_grad=0, device=cpu) = prim::Constant[value={1}]()
  %g : Float(requires_grad=0, device=cpu) = prim::Constant[value={0.5}]()
  %one : int = prim::Constant[value=1]()
  %y1 : Tensor = aten::mul(%x, %c)
  %y2 : Tensor = aten::mul(%x, %d)
  %y3 : Tensor = aten::add(%x, %e, %one)
  %y4 : Tensor = aten::mul(%x, %f)
  %y5 : Tensor = aten::sub(%x, %g, %one)
  %y6 : Tensor = aten::mul(%e, %e)
  return (%y1, %y2, %y3, %y4, %y5, %y6)
# CHECK-LABEL: graph @forward(%x: f32[4]@s0) {
# CHECK-NEXT:    weight %[[C:[0-9]+]]: f64[]@s1 = "[[C]]"
# CHECK-NEXT:    weight %[[D:[0-9]+]]: f64[]@s3 = "[[D]]"
# CHECK-NEXT:    weight %[[E:[0-9]+]]: i64[]@s5 = "[[E]]"
# CHECK-NEXT:    weight %[[F:[0-9]+]]: bool[]@s7 = "[[F]]"
# CHECK-NEXT:    weight %[[G:[0-9]+]]: f32[]@s9 = "[[G]]"
# CHECK-NEXT:    weight %[[Y6:[0-9]+]]: i64[]@s11 = "[[Y6]]"
# CHECK-NEXT:    %[[Y1:[0-9a-z_.]+]] = aten::mul.Tensor(%x, %[[C]]) : f32[4]@s2
# CHECK-NEXT:    %[[Y2:[0-9a-z_.]+]] = aten::mul.Tensor(%x, %[[D]]) : f32[4]@s4
# CHECK-NEXT:    %[[Y3:[0-9a-z_.]+]] = aten::add.Tensor(%x, %[[E]], 1) : f32[4]@s6
# CHECK-NEXT:    %[[Y4:[0-9a-z_.]+]] = aten::mul.Tensor(%x, %[[F]]) : f32[4]@s8
# CHECK-NEXT:    %[[Y5:[0-9a-z_.]+]] = aten::sub.Tensor(%x, %[[G]], 1) : f32[4]@s10
# CHECK-NEXT:    return (%[[Y1]], %[[Y2]], %[[Y3]], %[[Y4]], %[[Y5]], %[[Y6]])
# CHECK-NEXT:  }
# VALS:      output_0: f32[4] = 2.5 -5 7.5 10
# VALS-NEXT: output_1: f32[4] = -0.125 0.25 -0.375 -0.5
# VALS-NEXT: output_2: f32[4] = 4 1 6 7
# VALS-NEXT: output_3: f32[4] = 1 -2 3 4
# VALS-NEXT: output_4: f32[4] = 0.5 -2.5 2.5 3.5
# VALS-NEXT: output_5: i64[] = 9
# VALS-NEXT: wrote 6 outputs and 1 inputs to {{.*}}
