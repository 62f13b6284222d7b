# RUN: atenaot dump %i | FileCheck %s
# RUN: atenaot dump %i -o %t.ir && atenaot dump %t.ir | FileCheck %s
# RUN: tail -c 12 %t.ir.weights | head -c 8 | od -A n -t d8 | FileCheck %s --check-prefix=W
# Shape arithmetic folds into literals: aten::size -> prim::NumToTensor ->
# aten::Int and size(1) * size(2) become the view's [3, 4]; aten::size(x) the
# reshape's [3, 2, 2]; aten::dim(x) - 1 the flatten's end_dim. The
# NumToTensor tensor used as an operand (x * x.size(0) in a trace) becomes an
# i64[] weight holding 3 (the 8 bytes before the .weights file's final CRC-32).
graph(%x : Float(3, 2, 2, strides=[4, 2, 1], requires_grad=0, device=cpu)):
  %zero : int = prim::Constant[value=0]()
  %one : int = prim::Constant[value=1]()
  %two : int = prim::Constant[value=2]()
  %n : int = aten::size(%x, %zero)
  %nt : Tensor = prim::NumToTensor(%n)
  %ni : int = aten::Int(%nt)
  %m1 : int = aten::size(%x, %one)
  %m2 : int = aten::size(%x, %two)
  %m : int = aten::mul(%m1, %m2)
  %l : int[] = prim::ListConstruct(%ni, %m)
  %y : Tensor = aten::view(%x, %l)
  %all : int[] = aten::size(%x)
  %r : Tensor = aten::reshape(%y, %all)
  %d : int = aten::dim(%x)
  %last : int = aten::sub(%d, %one)
  %f : Tensor = aten::flatten(%x, %one, %last)
  %s : Tensor = aten::mul(%y, %nt)
  return (%y, %r, %f, %s)
# CHECK-LABEL: graph @forward(%x: f32[3,2,2]@s0) {
# CHECK-NEXT:    weight %[[NT:[0-9a-z_.]+]]: i64[]@s1 = "[[NT]]"
# CHECK-NEXT:    %[[Y:[0-9a-z_.]+]] = aten::view(%x, [3, 4]) : f32[3,4]@s0
# CHECK-NEXT:    %[[R:[0-9a-z_.]+]] = aten::reshape(%[[Y]], [3, 2, 2]) : f32[3,2,2]@s0
# CHECK-NEXT:    %[[F:[0-9a-z_.]+]] = aten::flatten.using_ints(%x, 1, 2) : f32[3,4]@s0
# CHECK-NEXT:    %[[S:[0-9a-z_.]+]] = aten::mul.Tensor(%[[Y]], %[[NT]]) : f32[3,4]@s2
# CHECK-NEXT:    return (%[[Y]], %[[R]], %[[F]], %[[S]])
# CHECK-NEXT:  }
# W: {{^ *}}3{{$}}
