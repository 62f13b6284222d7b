// What the LibTorch-side targets (ts_ir_fuzzer, pt_archive_fuzzer) share:
// one-thread LibTorch with the live op table, and LoadModel on bytes, where
// anything but a Status coming back (an escaping exception) is a finding.
#pragma once

#include <ATen/Parallel.h>

#include <string>
#include <vector>

#include "capture/load_model.h"
#include "fuzz/fuzz_util.h"
#include "ir/verifier.h"
#include "schema/dispatcher_schemas.h"

namespace atenaot_fuzz {

inline void InitLoadModelTarget() {
  at::set_num_threads(1);
  atenaot::LiveOpTable();
}

// Loads `bytes` through `file`; a graph that loads must verify.
inline void LoadModelMustReturn(MemFile& file, const std::string& bytes, const std::vector<atenaot::NpyArray>& inputs) {
  try {
    auto g = atenaot::LoadModel(file.Set(bytes.data(), bytes.size()), inputs, atenaot::LiveOpTable());
    if (g.ok()) (void)atenaot::VerifyGraph(**g);
  } catch (const std::exception& e) {
    Fail(std::string("exception escaped LoadModel: ") + e.what());
  } catch (...) {
    Fail("non-std exception escaped LoadModel");
  }
}

}  // namespace atenaot_fuzz
