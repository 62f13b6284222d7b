# RUN: atenaot dump %i | FileCheck %s
# RUN: atenaot dump %i -o %t.ir && atenaot dump %t.ir | FileCheck %s
# A nested tuple output keeps its structure: a graph input returned as is, a
# one-element tuple (printed with a trailing comma), a Tensor[] built by
# prim::ListConstruct, a Tensor[] op result returned without unpacking, and
# values routed through prim::TupleConstruct/TupleUnpack (no node for them).
graph(%x : Float(2, 3, strides=[3, 1], requires_grad=0, device=cpu),
      %y : Float(2, 3, strides=[3, 1], requires_grad=0, device=cpu)):
  %one : int = prim::Constant[value=1]()
  %zero : int = prim::Constant[value=0]()
  %a : Tensor = aten::add(%x, %y, %one)
  %b : Tensor = aten::neg(%x)
  %parts : Tensor[] = aten::split(%a, %one, %zero)
  %inner1 : (Tensor) = prim::TupleConstruct(%b)
  %pair : (Tensor, Tensor) = prim::TupleConstruct(%a, %b)
  %q : Tensor, %r : Tensor = prim::TupleUnpack(%pair)
  %lst : Tensor[] = prim::ListConstruct(%r, %y)
  %inner2 : ((Tensor), Tensor[]) = prim::TupleConstruct(%inner1, %lst)
  %out : (Tensor, ((Tensor), Tensor[]), Tensor[], Tensor) = prim::TupleConstruct(%x, %inner2, %parts, %q)
  return (%out)
# CHECK-LABEL: graph @forward(%x: f32[2,3]@s0, %y: f32[2,3]@s1) {
# CHECK-NEXT:    %[[A:[0-9a-z_.]+]] = aten::add.Tensor(%x, %y, 1) : f32[2,3]@s2
# CHECK-NEXT:    %[[B:[0-9a-z_.]+]] = aten::neg(%x) : f32[2,3]@s3
# CHECK-NEXT:    %[[P0:[0-9a-z_.]+]], %[[P1:[0-9a-z_.]+]] = aten::split.Tensor(%[[A]], 1, 0) : [f32[1,3]@s2, f32[1,3]+3@s2]
# CHECK-NEXT:    return (%x, ((%[[B]],), [%[[B]], %y]), [%[[P0]], %[[P1]]], %[[A]])
# CHECK-NEXT:  }
