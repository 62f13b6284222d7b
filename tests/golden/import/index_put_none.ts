# RUN: atenaot dump %i | FileCheck %s
# RUN: atenaot dump %i -o %t.ir && atenaot dump %t.ir | FileCheck %s
# index_put_ / index with a Tensor?[] list that holds a None (x[:, idx] = v):
# the list prints as [none, %idx]; the in-place form keeps x's storage, the
# out-of-place forms get fresh ones. Overloads: index_put_ and index_put have
# none, index resolves to index.Tensor. The second RUN line re-reads the
# printed IR, which must print the same.
graph(%x : Float(3, 4, strides=[4, 1], requires_grad=0, device=cpu),
      %idx : Long(2, strides=[1], requires_grad=0, device=cpu),
      %v : Float(3, 2, strides=[2, 1], requires_grad=0, device=cpu)):
  %none : NoneType = prim::Constant()
  %l : Tensor?[] = prim::ListConstruct(%none, %idx)
  %f : bool = prim::Constant[value=0]()
  %y : Tensor = aten::index_put_(%x, %l, %v, %f)
  %l2 : Tensor?[] = prim::ListConstruct(%idx)
  %t : bool = prim::Constant[value=1]()
  %zero : int = prim::Constant[value=0]()
  %row : Tensor = aten::select(%x, %zero, %zero)
  %z : Tensor = aten::index_put(%x, %l2, %row, %t)
  %w : Tensor = aten::index(%x, %l)
  return (%y, %z, %w)
# CHECK-LABEL: graph @forward(%x: f32[3,4]@s0, %idx: i64[2]@s1, %v: f32[3,2]@s2) {
# CHECK-NEXT:    %[[Y:[0-9a-z_.]+]] = aten::index_put_(%x, [none, %idx], %v, false) : f32[3,4]@s0
# CHECK-NEXT:    %[[ROW:[0-9a-z_.]+]] = aten::select.int(%x, 0, 0) : f32[4]@s0
# CHECK-NEXT:    %[[Z:[0-9a-z_.]+]] = aten::index_put(%x, [%idx], %[[ROW]], true) : f32[3,4]@s3
# CHECK-NEXT:    %[[W:[0-9a-z_.]+]] = aten::index.Tensor(%x, [none, %idx]) : f32[3,2]@s4
# CHECK-NEXT:    return (%[[Y]], %[[Z]], %[[W]])
# CHECK-NEXT:  }
