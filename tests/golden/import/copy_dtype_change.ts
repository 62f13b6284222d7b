# RUN: atenaot dump %i -o %t.ir && FileCheck %s --input-file %t.ir
# RUN: atenaot dump %t.ir | FileCheck %s
# RUN: atenaot run %i --inputs tests/fixtures/copy_broadcast_dtype/input_0.npy tests/fixtures/copy_broadcast_dtype/input_1.npy tests/fixtures/copy_broadcast_dtype/input_2.npy tests/fixtures/copy_broadcast_dtype/input_3.npy --out-dir %t.out --print | FileCheck %s --check-prefix=VALS
# copy_ that changes dtype (and broadcasts): f32[4] into an f64[3,4] made by
# aten::zeros (dtype 7, device literal), i32 into a strided slice of an f32
# intermediate, f32[4] into an f64 input, f32 into i64 (truncation toward
# zero). copy_ keeps the destination's dtype, metadata and storage. The float
# 10.0 prints as 10.0 (shortest text that reads back exactly). Values were
# computed independently with numpy from the fixture inputs.
graph(%y : Float(4, strides=[1], requires_grad=0, device=cpu),
      %iz : Int(2, 2, strides=[2, 1], requires_grad=0, device=cpu),
      %x : Float(2, 4, strides=[4, 1], requires_grad=0, device=cpu),
      %d : Double(3, 4, strides=[4, 1], requires_grad=0, device=cpu)):
  %zero : int = prim::Constant[value=0]()
  %one : int = prim::Constant[value=1]()
  %two : int = prim::Constant[value=2]()
  %three : int = prim::Constant[value=3]()
  %four : int = prim::Constant[value=4]()
  %f64 : int = prim::Constant[value=7]()
  %i64 : int = prim::Constant[value=4]()
  %none : NoneType = prim::Constant()
  %cpu : Device = prim::Constant[value="cpu"]()
  %f : bool = prim::Constant[value=0]()
  %ten : float = prim::Constant[value=10.]()
  %sz : int[] = prim::ListConstruct(%three, %four)
  %a : Tensor = aten::zeros(%sz, %f64, %none, %cpu, %f)
  %a2 : Tensor = aten::copy_(%a, %y, %f)
  %b : Tensor = aten::mul(%x, %two)
  %bs : Tensor = aten::slice(%b, %one, %one, %three, %one)
  %bs2 : Tensor = aten::copy_(%bs, %iz, %f)
  %d2 : Tensor = aten::copy_(%d, %y, %f)
  %xsz : int[] = aten::size(%x)
  %xi : Tensor = aten::zeros(%xsz, %i64, %none, %cpu, %f)
  %x10 : Tensor = aten::mul(%x, %ten)
  %xi2 : Tensor = aten::copy_(%xi, %x10, %f)
  return (%a2, %b, %bs2, %d2, %xi2)
# CHECK-LABEL: graph @forward(%y: f32[4]@s0, %iz: i32[2,2]@s1, %x: f32[2,4]@s2, %d: f64[3,4]@s3) {
# CHECK-NEXT:    %[[A:[0-9a-z_.]+]] = aten::zeros([3, 4], 7, none, device("cpu"), false) : f64[3,4]@s4
# CHECK-NEXT:    %[[A2:[0-9a-z_.]+]] = aten::copy_(%[[A]], %y, false) : f64[3,4]@s4
# CHECK-NEXT:    %[[B:[0-9a-z_.]+]] = aten::mul.Scalar(%x, 2) : f32[2,4]@s5
# CHECK-NEXT:    %[[BS:[0-9a-z_.]+]] = aten::slice.Tensor(%[[B]], 1, 1, 3, 1) : f32[2,2]{4,1}+1@s5
# CHECK-NEXT:    %[[BS2:[0-9a-z_.]+]] = aten::copy_(%[[BS]], %iz, false) : f32[2,2]{4,1}+1@s5
# CHECK-NEXT:    %[[D2:[0-9a-z_.]+]] = aten::copy_(%d, %y, false) : f64[3,4]@s3
# CHECK-NEXT:    %[[XI:[0-9a-z_.]+]] = aten::zeros([2, 4], 4, none, device("cpu"), false) : i64[2,4]@s6
# CHECK-NEXT:    %[[X10:[0-9a-z_.]+]] = aten::mul.Scalar(%x, 10.0) : f32[2,4]@s7
# CHECK-NEXT:    %[[XI2:[0-9a-z_.]+]] = aten::copy_(%[[XI]], %[[X10]], false) : i64[2,4]@s6
# CHECK-NEXT:    return (%[[A2]], %[[B]], %[[BS2]], %[[D2]], %[[XI2]])
# CHECK-NEXT:  }
# VALS:      output_0: f64[3,4] = 0.793104 -0.914603 -2.26833 0.497229 0.793104 -0.914603 -2.26833 0.497229 0.793104 -0.914603 -2.26833 0.497229
# VALS-NEXT: output_1: f32[2,4] = -1.9367 -1 -4 -2.45085 -0.671234 -1 1 2.49172
# VALS-NEXT: output_2: f32[2,2] = -1 -4 -1 1
# VALS-NEXT: output_3: f64[3,4] = 0.793104 -0.914603 -2.26833 0.497229 0.793104 -0.914603 -2.26833 0.497229 0.793104 -0.914603 -2.26833 0.497229
# VALS-NEXT: output_4: i64[2,4] = -9 14 -1 -12 -3 0 -3 12
# VALS-NEXT: wrote 5 outputs and 4 inputs to {{.*}}
