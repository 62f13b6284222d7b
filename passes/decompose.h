// decompose: rewrites composite ATen ops that traces produce into the ops
// the C backend compiles, one table row per op (stack -> unsqueeze + cat,
// baddbmm -> bmm + mul + add, mv/dot -> matmul, var/std -> mean + sub + mul +
// mean (+ sqrt); pad, roll, new_* and norms:
// passes/decompose_shape.h; einsum: passes/decompose_einsum.h), and a linear
// read in pieces becomes one linear per piece (passes/split_linear.h). Works
// on functional or reinplaced graphs; new values get exact sizes and dtypes
// and contiguous layouts.
#pragma once

#include <string>
#include <vector>

#include "ir/graph.h"
#include "ir/op_table.h"
#include "ir/status.h"

namespace atenaot {

Status Decompose(Graph& g, const OpTable& ops);

// Qualified names of the ops the table rewrites (for documentation and tests).
std::vector<std::string> DecomposedOps();

}  // namespace atenaot
