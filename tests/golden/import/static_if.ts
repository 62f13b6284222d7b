# RUN: atenaot dump %i | FileCheck %s
# RUN: atenaot dump %i -o %t.ir && atenaot dump %t.ir | FileCheck %s
# A prim::If whose condition is static (shape arithmetic: x.size(0) > 2, then
# x.size(1) == 2 in a nested If) imports only the branch taken for these
# shapes: no node of the other branches appears (they call an op that does not
# exist, which would be an error if imported), and the If's results, a tensor
# and an int, are the taken branch's (the int folds into the view's sizes).
graph(%x : Float(4, 3, strides=[3, 1], requires_grad=0, device=cpu)):
  %zero : int = prim::Constant[value=0]()
  %one : int = prim::Constant[value=1]()
  %two : int = prim::Constant[value=2]()
  %n : int = aten::size(%x, %zero)
  %c : bool = aten::gt(%n, %two)
  %r : Tensor, %k : int = prim::If(%c)
    block0():
      %m : int = aten::size(%x, %one)
      %d : bool = aten::eq(%m, %two)
      %inner : Tensor = prim::If(%d)
        block0():
          %u : Tensor = aten::frobnicate(%x)
          -> (%u)
        block1():
          %v : Tensor = aten::relu(%x)
          -> (%v)
      -> (%inner, %m)
    block1():
      %w : Tensor = aten::frobnicate(%x)
      -> (%w, %n)
  %l : int[] = prim::ListConstruct(%k, %n)
  %y : Tensor = aten::view(%r, %l)
  return (%y)
# CHECK-LABEL: graph @forward(%x: f32[4,3]@s0) {
# CHECK-NEXT:    %[[V:[0-9a-z_.]+]] = aten::relu(%x) : f32[4,3]@s1
# CHECK-NEXT:    %[[Y:[0-9a-z_.]+]] = aten::view(%[[V]], [3, 4]) : f32[3,4]@s1
# CHECK-NEXT:    return %[[Y]]
# CHECK-NEXT:  }
