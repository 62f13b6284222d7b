# RUN: atenaot dump %i -o %t.ir && FileCheck %s --input-file %t.ir
# RUN: atenaot dump %t.ir | FileCheck %s
# RUN: atenaot run %i --inputs tests/fixtures/int_ops/input_0.npy tests/fixtures/int_ops/input_1.npy tests/fixtures/int_ops/input_2.npy --out-dir %t.out --print | FileCheck %s --check-prefix=VALS
# int64 and bool tensors: result dtypes follow type promotion (i64 arithmetic,
# bool comparisons and masks, sum of a bool is i64, to.dtype/arange with dtype
# code 6 give f32); int and str arguments pick the Scalar / Scalar_mode
# overloads. Inputs: a = [-2 -9 -7 -8 -3 9], b = [-4 -4 7 -9 5 -3],
# mask = [F F T F T F]; the values are checked by hand (floor division rounds
# toward -inf).
graph(%a : Long(6, strides=[1], requires_grad=0, device=cpu),
      %b : Long(6, strides=[1], requires_grad=0, device=cpu),
      %mask : Bool(6, strides=[1], requires_grad=0, device=cpu)):
  %one : int = prim::Constant[value=1]()
  %three : int = prim::Constant[value=3]()
  %floor : str = prim::Constant[value="floor"]()
  %none : NoneType = prim::Constant()
  %f : bool = prim::Constant[value=0]()
  %s : Tensor = aten::add(%a, %b, %one)
  %m : Tensor = aten::mul(%s, %three)
  %q : Tensor = aten::div(%a, %three, %floor)
  %g : Tensor = aten::gt(%a, %b)
  %gm : Tensor = aten::__and__(%g, %mask)
  %nm : Tensor = aten::logical_not(%gm)
  %w : Tensor = aten::where(%mask, %a, %b)
  %cnt : Tensor = aten::sum(%mask, %none)
  %dt : int = prim::Constant[value=6]()
  %fl : Tensor = aten::to(%a, %dt, %f, %f, %none)
  %ar : Tensor = aten::arange(%three, %dt, %none, %none, %none)
  return (%m, %q, %nm, %w, %cnt, %fl, %ar)
# CHECK-LABEL: graph @forward(%a: i64[6]@s0, %b: i64[6]@s1, %mask: bool[6]@s2) {
# CHECK-NEXT:    %[[S:[0-9a-z_.]+]] = aten::add.Tensor(%a, %b, 1) : i64[6]@s3
# CHECK-NEXT:    %[[M:[0-9a-z_.]+]] = aten::mul.Scalar(%[[S]], 3) : i64[6]@s4
# CHECK-NEXT:    %[[Q:[0-9a-z_.]+]] = aten::div.Scalar_mode(%a, 3, "floor") : i64[6]@s5
# CHECK-NEXT:    %[[G:[0-9a-z_.]+]] = aten::gt.Tensor(%a, %b) : bool[6]@s6
# CHECK-NEXT:    %[[GM:[0-9a-z_.]+]] = aten::__and__.Tensor(%[[G]], %mask) : bool[6]@s7
# CHECK-NEXT:    %[[NM:[0-9a-z_.]+]] = aten::logical_not(%[[GM]]) : bool[6]@s8
# CHECK-NEXT:    %[[W:[0-9a-z_.]+]] = aten::where.self(%mask, %a, %b) : i64[6]@s9
# CHECK-NEXT:    %[[CNT:[0-9a-z_.]+]] = aten::sum(%mask, none) : i64[]@s10
# CHECK-NEXT:    %[[FL:[0-9a-z_.]+]] = aten::to.dtype(%a, 6, false, false, none) : f32[6]@s11
# CHECK-NEXT:    %[[AR:[0-9a-z_.]+]] = aten::arange(3, 6, none, none, none) : f32[3]@s12
# CHECK-NEXT:    return (%[[M]], %[[Q]], %[[NM]], %[[W]], %[[CNT]], %[[FL]], %[[AR]])
# CHECK-NEXT:  }
# VALS:      output_0: i64[6] = -18 -39 0 -51 6 18
# VALS-NEXT: output_1: i64[6] = -1 -3 -3 -3 -1 3
# VALS-NEXT: output_2: bool[6] = 1 1 1 1 1 1
# VALS-NEXT: output_3: i64[6] = -4 -4 -7 -9 -3 -3
# VALS-NEXT: output_4: i64[] = 2
# VALS-NEXT: output_5: f32[6] = -2 -9 -7 -8 -3 9
# VALS-NEXT: output_6: f32[3] = 0 1 2
# VALS-NEXT: wrote 7 outputs and 3 inputs to {{.*}}
