// Random straight-line ATen programs for differential testing.
//
// A Program is a list of Steps over a growing list of tensors (ids: the inputs
// first, then each step's results in order). The same Program runs eagerly on
// at::Tensors (the oracle) and, through TraceCpp, through every atenaot stage;
// CheckProgram compares the two (outputs and inputs after the run).
//
// Generation is seeded and reproducible: Generate(seed) always returns the
// same program, with the same input values, on every machine. While
// generating, every step is executed eagerly on the sample inputs, so shapes,
// dtypes, aliasing and index ranges are always valid (a step eager refuses is
// dropped and another one drawn), float values stay finite and moderate, and
// ops whose result depends on ties (max.dim, topk, sort) or on write order
// (index_put_ with repeated indices) only see inputs without ties.
#pragma once

#include <ATen/Tensor.h>

#include <cstdint>
#include <map>
#include <ostream>
#include <string>
#include <vector>

#include "passes/pipeline.h"

namespace atenaot {
namespace random_program {

enum class Op : uint8_t {
  // Functional ops with one result.
  kAdd,
  kSub,
  kMul,
  kDiv,
  kAddS,
  kSubS,
  kMulS,
  kDivS,
  kNeg,
  kRelu,
  kSigmoid,
  kTanh,
  kExp,
  kAbs,
  kClamp,
  kCmp,
  kCmpS,
  kWhere,
  kLogicalNot,
  kSum,
  kMean,
  kSumAll,
  kClone,
  kTo,
  kZeros,
  kArange,
  kConstIdx,
  // Views.
  kView,
  kReshape,
  kTranspose,
  kPermute,
  kSelect,
  kSlice,
  kNarrow,
  kDiagonal,
  kUnsqueeze,
  kSqueeze,
  kExpand,
  kAsStrided,
  kT,
  kContiguous,
  kSplit,
  kSplitSizes,
  kUnbind,
  kChunk,
  // Multi-output ops.
  kMaxDim,
  kMinDim,
  kTopk,
  kSort,
  // In-place and out= ops (no new ids; in[0] is written).
  kAdd_,
  kSub_,
  kMul_,
  kAddS_,
  kMulS_,
  kDivS_,
  kFill_,
  kFillT_,
  kZero_,
  kClamp_,
  kRelu_,
  kNeg_,
  kSigmoid_,
  kCmpS_,
  kCopy_,
  kIndexPut_,
  kMaskedFill_,
  kMaskedFillT_,
  kAddOut,
  kMulOut,
  kT_,  // in-place metadata change: only made on purpose, refused by design
  kNumOps
};

const char* OpName(Op op);

struct Step {
  Op op = Op::kAdd;
  std::vector<int> in;        // tensor ids; -1 = none (an index_put_ index)
  std::vector<int64_t> a, b;  // integer parameters (dims, sizes, strides, ...)
  int64_t c = 0;              // one more (as_strided's offset)
  double s0 = 0, s1 = 0;      // scalars
  bool int_scalar = false;    // s0/s1 are passed as integers
  bool flag = false;          // keepdim / accumulate / largest / descending
  std::vector<int> out;       // ids this step defines
};

struct InputSpec {
  enum class Kind { kFloat, kDouble, kIndex, kMask };
  enum class Layout {
    kContiguous,
    kTransposed,  // a transposed view of a fresh tensor (non-contiguous)
    kOffset,      // a narrow of a bigger tensor (non-zero storage offset)
    kViewOf,      // a view of input `of` (inputs that alias; one contains the other)
  };
  Kind kind = Kind::kFloat;
  Layout layout = Layout::kContiguous;
  std::vector<int64_t> shape;  // for kViewOf: the resulting shape
  int of = -1;
  int view = 0;            // kViewOf: 0 identical, 1 select(0, 1), 2 t(), 3 view(-1), 4 narrow(0, 0, n-1)
  int64_t lo = 0, hi = 2;  // kIndex: values in [lo, hi)
};

struct Program {
  uint64_t seed = 0;
  std::vector<InputSpec> inputs;
  std::vector<Step> steps;
  std::vector<int> outputs;  // ids
  int num_ids = 0;
  // Substrings of by-design refusals this program may trigger (it was made
  // to, on purpose); any other refusal is a failure.
  std::vector<std::string> may_refuse;
};

struct GeneratorOptions {
  int max_steps = 20;
  int64_t max_numel = 64;
  // Probability of generating a pattern atenaot refuses by design (then the
  // refusal is expected, and checked to carry the right message).
  double refusal_probability = 0.02;
  // Patterns that trigger known, not yet fixed atenaot bugs are not generated
  // while this is set (see tests/random/README.md); turn off to reproduce.
  bool avoid_known_bugs = true;
};

Program Generate(uint64_t seed, const GeneratorOptions& opts = {});

// Fresh sample inputs (deterministic: seeded from the program's seed).
std::vector<at::Tensor> MakeInputs(const Program& p);

// Runs the program eagerly on `inputs` (which it may modify) and returns its
// outputs. Throws (c10::Error) when eager refuses a step. With `ambiguous`
// set, also checks that no result depends on ties or on write order, and sets
// *ambiguous when one does; leave it null when tracing (the checks read data).
std::vector<at::Tensor> Execute(const Program& p, const std::vector<at::Tensor>& inputs, bool* ambiguous = nullptr);

// The program as C++ (the body of a CppProgram lambda over `in`), with the inputs described in a comment.
std::string ToCpp(const Program& p);

// Removing parts of a program, for minimisation. Each returns false when the
// removal leaves no output. Ids are renumbered densely (Compact).
bool DropStep(const Program& p, size_t k, Program* out);  // also drops the steps that depend on it
bool DropOutput(const Program& p, size_t k, Program* out);
bool DropUnusedInputs(const Program& p, Program* out);

// --- The differential check -------------------------------------------------

struct CheckResult {
  enum class Kind {
    kOk,        // every stage equals eager
    kRefused,   // a stage refused the program with an expected (by-design) message
    kInvalid,   // eager itself refused the program, or a result depends on ties (minimisation only)
    kMismatch,  // a stage's results differ from eager
    kError,     // a stage failed: import, a pass, the verifier or the interpreter
  };
  Kind kind = Kind::kOk;
  Stage stage = Stage::kImport;
  std::string variant;  // how the stage was run when not by RunPipeline
  std::string message;
  std::string signature;  // stage + kind + what failed: minimisation keeps it
  std::string ir;         // the graph at the failing stage (when there is one)
};

const char* KindName(CheckResult::Kind k);
bool IsFailure(const CheckResult& r);

std::vector<Stage> AllStages();
// "import,functional" -> stages; false on an unknown name.
bool ParseStages(const std::string& list, std::vector<Stage>* out);

struct CheckOptions {
  std::vector<Stage> stages = AllStages();  // checked in this order
  // When false, the reinplaced stage runs its passes with
  // ReinplaceOptions::reuse_restored_inputs off (the (1b) improvement), to
  // tell whether a failure comes from it.
  bool reinplace_reuse_restored_inputs = true;
};

CheckResult CheckProgram(const Program& p, const CheckOptions& opts = {});

// Greedily drops steps, outputs and unused inputs while the failure keeps its signature.
Program Minimize(const Program& p, const CheckResult& failure, const CheckOptions& opts = {},
                 int* checks_run = nullptr);

// Seed, failing stage, message, the minimised program's IR at stage import
// (PrintGraph; for a reinplaced failure also at stage functional, the
// reinplace pass's input) and at the failing stage, and its C++.
std::string FailureReport(const Program& minimized, const CheckResult& r);

struct RunSummary {
  int64_t programs = 0, ok = 0, refused = 0, invalid = 0, failures = 0;
  int64_t steps = 0;
  std::map<std::string, int64_t> op_counts;  // generated steps by op
  std::vector<uint64_t> failing_seeds;
  std::vector<std::string> reports;  // one per minimised failure
};

struct RunOptions {
  CheckOptions check;
  int max_minimized = 10;       // failures beyond this are listed by seed only
  std::ostream* log = nullptr;  // progress and reports as they happen
  int64_t progress_every = 0;   // a progress line every N programs (0: none)
};

RunSummary RunPrograms(uint64_t first_seed, int64_t count, const GeneratorOptions& gen, const RunOptions& run);

// Installs SIGSEGV/SIGABRT/SIGFPE/SIGBUS handlers that print the seed of the
// program being checked before the process dies.
void InstallCrashHandler();

}  // namespace random_program
}  // namespace atenaot
