// atenaot IR text: ParseGraph (snapshot op table) and, for what parses,
// VerifyGraph and PrintGraph must never crash; a graph that verifies must
// print to text that parses again and prints identically (print is a fixed
// point of parse . print).
#include <cstdint>
#include <string>

#include "fuzz/fuzz_util.h"
#include "ir/parser.h"
#include "ir/printer.h"
#include "ir/test_op_table.h"
#include "ir/verifier.h"

using namespace atenaot;

namespace atenaot_fuzz {

void IrParserInit() {
  SnapshotOpTable();  // reads ir/testdata/aten_schemas.txt: run from the repository root
}

int IrParserOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  (void)LooksLikeAtenaotIr(text);
  auto g = ParseGraph(text, SnapshotOpTable());
  if (!g.ok()) return 0;
  VerifyOptions vo;
  vo.require_weight_data = false;  // weight data lives in a side file
  const bool verified = VerifyGraph(**g, vo).ok();
  const std::string printed = PrintGraph(**g);
  if (!verified) return 0;
  auto g2 = ParseGraph(printed, SnapshotOpTable());
  if (!g2.ok()) atenaot_fuzz::Fail("printed graph does not parse: " + g2.status().ToString() + "\n" + printed);
  if (!VerifyGraph(**g2, vo).ok()) atenaot_fuzz::Fail("printed graph does not verify:\n" + printed);
  const std::string again = PrintGraph(**g2);
  if (again != printed) atenaot_fuzz::Fail("print . parse . print differs:\n" + printed + "---\n" + again);
  return 0;
}

}  // namespace atenaot_fuzz

#ifdef ATENAOT_LIBFUZZER
extern "C" int LLVMFuzzerInitialize(int*, char***) {
  atenaot_fuzz::IrParserInit();
  return 0;
}
extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return atenaot_fuzz::IrParserOneInput(data, size);
}
#endif
