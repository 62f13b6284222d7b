# RUN: atenaot dump %i | FileCheck %s
# RUN: atenaot dump %i -o %t.ir && atenaot dump %t.ir | FileCheck %s
# Views of views of an input: every view keeps storage @s0 and its metadata is
# composed through the chain (transpose -> select -> slice -> slice, permute ->
# select -> strided slice, diagonal with an offset -> narrow, unsqueeze ->
# expand with a zero stride -> select). Sizes{strides}+offset are hand-computed
# from x's [12,4,1] strides; a copy (contiguous) gets a fresh storage.
graph(%x : Float(2, 3, 4, strides=[12, 4, 1], requires_grad=0, device=cpu)):
  %c0 : int = prim::Constant[value=0]()
  %c1 : int = prim::Constant[value=1]()
  %c2 : int = prim::Constant[value=2]()
  %c3 : int = prim::Constant[value=3]()
  %big : int = prim::Constant[value=9223372036854775807]()
  %t : Tensor = aten::transpose(%x, %c0, %c1)
  %s : Tensor = aten::select(%t, %c0, %c1)
  %u : Tensor = aten::slice(%s, %c1, %c1, %c3, %c1)
  %v : Tensor = aten::slice(%u, %c0, %c1, %big, %c1)
  %pl : int[] = prim::ListConstruct(%c2, %c0, %c1)
  %p : Tensor = aten::permute(%x, %pl)
  %q : Tensor = aten::select(%p, %c0, %c3)
  %r : Tensor = aten::slice(%q, %c1, %c0, %c3, %c2)
  %d : Tensor = aten::diagonal(%x, %c1, %c1, %c2)
  %n : Tensor = aten::narrow(%d, %c1, %c1, %c2)
  %m1 : int = prim::Constant[value=-1]()
  %el : int[] = prim::ListConstruct(%c3, %m1, %m1, %m1)
  %xu : Tensor = aten::unsqueeze(%x, %c0)
  %fa : bool = prim::Constant[value=0]()
  %e : Tensor = aten::expand(%xu, %el, %fa)
  %es : Tensor = aten::select(%e, %c0, %c2)
  %k : Tensor = aten::contiguous(%r, %c0)
  return (%s, %u, %v, %r, %n, %es, %k)
# CHECK-LABEL: graph @forward(%x: f32[2,3,4]@s0) {
# CHECK-NEXT:    %[[T:[0-9a-z_.]+]] = aten::transpose.int(%x, 0, 1) : f32[3,2,4]{4,12,1}@s0
# CHECK-NEXT:    %[[S:[0-9a-z_.]+]] = aten::select.int(%[[T]], 0, 1) : f32[2,4]{12,1}+4@s0
# CHECK-NEXT:    %[[U:[0-9a-z_.]+]] = aten::slice.Tensor(%[[S]], 1, 1, 3, 1) : f32[2,2]{12,1}+5@s0
# CHECK-NEXT:    %[[V:[0-9a-z_.]+]] = aten::slice.Tensor(%[[U]], 0, 1, 9223372036854775807, 1) : f32[1,2]{12,1}+17@s0
# CHECK-NEXT:    %[[P:[0-9a-z_.]+]] = aten::permute(%x, [2, 0, 1]) : f32[4,2,3]{1,12,4}@s0
# CHECK-NEXT:    %[[Q:[0-9a-z_.]+]] = aten::select.int(%[[P]], 0, 3) : f32[2,3]{12,4}+3@s0
# CHECK-NEXT:    %[[R:[0-9a-z_.]+]] = aten::slice.Tensor(%[[Q]], 1, 0, 3, 2) : f32[2,2]{12,8}+3@s0
# CHECK-NEXT:    %[[D:[0-9a-z_.]+]] = aten::diagonal(%x, 1, 1, 2) : f32[2,3]{12,5}+1@s0
# CHECK-NEXT:    %[[N:[0-9a-z_.]+]] = aten::narrow(%[[D]], 1, 1, 2) : f32[2,2]{12,5}+6@s0
# CHECK-NEXT:    %[[XU:[0-9a-z_.]+]] = aten::unsqueeze(%x, 0) : f32[1,2,3,4]@s0
# CHECK-NEXT:    %[[E:[0-9a-z_.]+]] = aten::expand(%[[XU]], [3, -1, -1, -1], false) : f32[3,2,3,4]{0,12,4,1}@s0
# CHECK-NEXT:    %[[ES:[0-9a-z_.]+]] = aten::select.int(%[[E]], 0, 2) : f32[2,3,4]@s0
# CHECK-NEXT:    %[[K:[0-9a-z_.]+]] = aten::contiguous(%[[R]], 0) : f32[2,2]@s1
# CHECK-NEXT:    return (%[[S]], %[[U]], %[[V]], %[[R]], %[[N]], %[[ES]], %[[K]])
# CHECK-NEXT:  }
