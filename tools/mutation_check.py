#!/usr/bin/env python3
"""Shows that tests can fail: breaks the code a test names (one small edit),
runs the test, expects it to FAIL, and puts the code back (git checkout).

usage: python3 tools/mutation_check.py [CASE...]     (default: all cases)

Needs the files it edits to be unchanged from HEAD. Prints a Markdown table
(test, the break, result); tests/MUTATION_CHECK.md records a run.
"""
import os
import re
import subprocess
import sys

# name, test target, bazel test options, file, old text, new text, the break in words[, file, old, new]...
CASES = [
    ("verifier", "//ir:verifier_test", [], "ir/verifier.cc",
     "    if (!op.Representable())\n", "    if (false)\n",
     "the verifier no longer rejects ops it cannot represent"),
    ("weights", "//io:weights_file_test", [], "io/weights_file.cc",
     "    out.append(reinterpret_cast<const char*>(w.bytes.data()), w.bytes.size());",
     "    out.append(std::string(w.bytes.size(), '\\0'));",
     "WriteWeightsFile writes zeros instead of the data (with a matching CRC)"),
    ("trace_clone", "//tests:cpp_trace_test", [], "capture/cpp_trace.cc",
     "for (const at::Tensor& t : CloneKeepingAliasing(sample_inputs)) stack.push_back(t);",
     "for (const at::Tensor& t : sample_inputs) stack.push_back(t);",
     "TraceCpp traces on the caller's tensors instead of copies (tracing mutates them)"),
    ("t1_refusal", "//tests/random:known_bugs_test", [], "capture/cpp_trace.cc",
     "    AOT_RETURN_IF_ERROR(CheckEmptiesWrittenFirst(*g));", "",
     "TraceCpp no longer refuses at::tensor(values) (bug T1 back)"),
    ("abi_message", "//tests/c_abi:c_abi_test", [], "codegen/templates/aot_validation.h",
     "      aot__put_int(&m, t->sizes[d]);\n      aot__put(&m, \" in dimension \");",
     "      aot__put_int(&m, info->sizes[d]);\n      aot__put(&m, \" in dimension \");",
     "the BAD_SHAPE message gives the model's size where it should give the caller's"),
    ("bad_placement", "//plan:buffers_test", [], "plan/placement.cc",
     "  std::string bad = CheckPlacement(r, p);", "  std::string bad;",
     "PlaceBuffers and PlanMemory no longer check placements for overlaps",
     "plan/memory_plan.cc", "  std::string bad = CheckPlacement(req, p.placement);", "  std::string bad;"),
    ("help_plan", "//tests/golden:cli_help_plan_test", [], "tools/atenaot_main.cc",
     "  --algo NAME     greedy_by_size | greedy_by_conflicts | hill_climb | best",
     "  --algo NAME     greedy_by_size | greedy_by_conflicts | best",
     "`plan --help` no longer lists hill_climb"),
    ("count_crash", "//tests:count_tests_test", [], "tools/count_tests.py",
     "    if status == \"FAILED\" and not any(r == \"failed\" for _, r, _ in out):",
     "    if False:",
     "tools/count_tests.py counts a failed test without a failing case as passed (the old double count)"),
    ("codegen_refusal", "//tests:codegen_diff_test", ["--test_filter=Suite/SuiteCompiled.EqualsEager/unary_inplace_chain_through_views"], "codegen/elementwise.cc",
     "  add(\"sigmoid\", {0},", "  if (false) add(\"sigmoid\", {0},",
     "the C backend loses its sigmoid lowering (a refusal not on kKnownUnsupported)"),
    ("random_compiled", "//tests/random:random_compiled_test",
     ["--test_env=ATENAOT_RANDOM_COMPILED=100", "--test_filter=RandomCompiled.CompiledCEqualsEager"],
     "codegen/elementwise.cc",
     "  add(\"neg\", {0}, [](const X& x, const Node&, const std::string&) { return \"(-\" + x[0] + \")\"; });",
     "  add(\"neg\", {0}, [](const X& x, const Node&, const std::string&) { return \"(+\" + x[0] + \")\"; });",
     "the C backend emits neg as identity"),
    ("empty_output", "//tests:codegen_diff_test", ["--test_filter=Compiled.EmptyOutputWithPyTorchStridesIsAccepted"],
     "codegen/templates/aot_validation.h",
     "  for (int d = info->ndim - 1; d >= 0 && numel != 0; --d) {",
     "  for (int d = info->ndim - 1; d >= 0; --d) {",
     "the C ABI again refuses PyTorch's strides for an output without elements (the fix of the random test's seed 56)"),
    ("cat_reader_writes", "//tests:codegen_diff_test", ["--test_filter=Suite/SuiteCompiled.EqualsEager/cat_*"],
     "codegen/inplace_cat.cc",
     "      if (chain.empty() || !NoReaderWrites(chain, s)) continue;", "      if (chain.empty()) continue;",
     "cat in place also moves an input whose producer reads a slice of the same buffer (the emitters take it for a view)"),
    ("cat_partial_view", "//tests:codegen_diff_test", ["--test_filter=Suite/SuiteCompiled.EqualsEager/cat_*"],
     "codegen/kernel_util.cc",
     "      if (!CatInputInPlace(n, k)) return false;\n      any = true;", "      if (CatInputInPlace(n, k)) any = true;",
     "a cat with only some inputs in place counts as a view (the copies of the others are skipped)"),
]


def run(cmd, **kw):
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True, **kw)


def first_failure(target):
    log = os.path.join("bazel-testlogs", target[2:].replace(":", "/"), "test.log")
    try:
        text = open(log, errors="replace").read()
    except OSError:
        return "(no test.log)"
    for pat in (r"^FAIL[^\n]*", r"^[^\n]*Failure\n[^\n]*\n[^\n]*", r"^FAILED[^\n]*", r"^[^\n]*\bfail[^\n]*"):
        m = re.search(pat, text, re.M | re.I)
        if m:
            return " ".join(m.group(0).split())[:220]
    return "(see %s)" % log


def main():
    os.chdir(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    wanted = set(sys.argv[1:])
    rows = []
    for case in CASES:
        name, target, opts, what = case[0], case[1], case[2], case[6]
        edits = [case[3:6]] + [case[k:k + 3] for k in range(7, len(case), 3)]  # (path, old, new)
        if wanted and name not in wanted:
            continue
        paths = sorted({e[0] for e in edits})
        for path in paths:
            if run(["git", "diff", "--quiet", "HEAD", "--", path]).returncode != 0:
                sys.exit("%s has uncommitted changes: commit or stash them first" % path)
        try:
            for path, old, new in edits:
                text = open(path).read()
                if text.count(old) != 1:
                    sys.exit("%s: the text to break is not there exactly once (case %s)" % (path, name))
                with open(path, "w") as f:
                    f.write(text.replace(old, new))
            r = run(["bazel", "test", "--test_output=errors", target] + opts)
            if re.search(r"^%s\s.*\bFAILED\b" % re.escape(target), r.stdout, re.M):
                result, detail = "FAILED (as it must)", first_failure(target)
            elif re.search(r"^%s\s.*\bPASSED\b" % re.escape(target), r.stdout, re.M):
                result, detail = "PASSED: the test missed the break", ""
            else:
                result, detail = "did not run", r.stdout[-300:].replace("\n", " ")
        finally:
            run(["git", "checkout", "--"] + paths)
        print("%s: %s %s" % (name, result, detail), file=sys.stderr)
        rows.append((target + (" " + " ".join(opts) if opts else ""), what, result, detail))
    print("| test | the break | result | first failure line |")
    print("|---|---|---|---|")
    for t, w, res, d in rows:
        print("| `%s` | %s | %s | %s |" % (t, w, res, d.replace("|", "\\|")))
    return 0 if all(r[2].startswith("FAILED") for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
