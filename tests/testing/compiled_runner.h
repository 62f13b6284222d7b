// Compiles a graph to a C library (reinplace -> annotate -> fuse -> plan ->
// C codegen -> cc) and runs it through the C ABI loader, for differential
// tests against eager.
#pragma once

#include <ATen/Tensor.h>

#include <string>
#include <utility>
#include <vector>

#include "atenaot.h"
#include "ir/graph.h"
#include "tests/testing/program_suite.h"

namespace atenaot {

struct CompiledRun {
  std::vector<at::Tensor> outputs;
  std::string error;                          // non-empty when compiling or running failed
  std::string source;                         // the generated C, for failure messages
  std::vector<bool> mutated;                  // AOT_INFO_MUTATED of each input, as the library reports it
  std::vector<std::vector<at::Tensor>> runs;  // with thread_counts: the outputs of each run, in order
};

// Compiles `g` (at stage import; `inputs` are the sample inputs) into DIR and
// opens the library: "" and *model set, or the error. *source gets the C;
// split_all: every kernel that can split over threads does (tiny grain).
// winograd: CodegenOptions::winograd (`compile --winograd`).
std::string CompileAndOpen(Graph& g, const std::vector<at::Tensor>& inputs, const std::string& dir, aot_model** model,
                           const std::string& extra_cflags = "", bool float_accumulation = false,
                           std::string* source = nullptr, bool split_all = false, int winograd = 2);
// The C ABI descriptor of a CPU tensor (its data pointer, sizes and strides).
aot_tensor DescribeTensor(const at::Tensor& t);

// `g` is at stage import; `inputs` are used as sample inputs and then run on
// (they are updated in place when the program mutates them).
// float_accumulation: as `compile --embedded` generates the kernels.
// thread_counts: every kernel that can split does (tiny grain), and the one
// library runs once per entry with that "threads" option (outputs = the first
// run's); empty: once, on ATENAOT_TEST_THREADS threads when that is set.
CompiledRun CompileAndRun(Graph& g, std::vector<at::Tensor>& inputs, const std::string& dir,
                          const std::string& extra_cflags = "", bool float_accumulation = false,
                          const std::vector<int>& thread_counts = {}, int winograd = 2);

// Empty when the compiled program equals eager (outputs and inputs after) and
// every input eager changes is flagged AOT_INFO_MUTATED, or, for a program
// atenaot must refuse (rejected_with), when compiling refuses it with that
// message. kSkipPrefix + the reason when the program cannot be run through
// the C ABI at all (tests report that as a skip); anything else is a failure.
std::string RunProgramCompiled(const SuiteProgram& p, const std::string& dir);
inline const std::string kSkipPrefix = "SKIP: ";

// The ops the C backend is known not to lower, as (op, part of its reason),
// like tests/cuda's UNSUPPORTED. Remove an entry once the op compiles.
extern const std::vector<std::pair<std::string, std::string>> kKnownUnsupported;

// "" when `error` is not the C backend's refusal; the skip reason ("known
// unsupported op(s): ...") when every op it names is on kKnownUnsupported with
// its reason; else "FAIL: ..." naming the ops that are not (a codegen
// regression must not hide as a skip).
std::string KnownRefusal(const std::string& error);

}  // namespace atenaot
