// Comparing arrays the way `atenaot compare` does: integers and bools exact
// (byte for byte, so all of int64), floats allclose with atol relative to the
// array's scale (its largest finite |expected|, 1 when that is 0). NaN equals
// NaN; infinities must match.
#pragma once

#include <cstdint>
#include <string>
#include <utility>

#include "io/npy.h"

namespace atenaot {

// torch.testing's default (rtol, atol) for a floating dtype.
std::pair<double, double> DefaultTolerances(DType t);

// Empty when equal, else why not: the count of differing elements, and for
// floats the largest |actual - expected| and where. Negative tolerances mean
// DefaultTolerances(expected.dtype).
std::string CompareArrays(const NpyArray& expected, const NpyArray& actual, double rtol, double atol);

// Element k as a double (exact for every integer up to 2^53); false for
// dtypes it cannot read.
bool ElementAsDouble(const NpyArray& a, int64_t k, double* v);

}  // namespace atenaot
