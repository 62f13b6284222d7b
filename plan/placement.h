// Placement, the second part of memory planning: offsets in one arena for
// buffers with sizes and live ranges, so that no two buffers live at the same
// time share a byte. Several algorithms sit behind one interface, selectable
// by name; `best` runs them all and keeps the smallest arena.
//  - greedy_by_size: largest first, each into the best-fitting gap among the
//    buffers it overlaps in time (the gap before the first one included);
//  - greedy_by_conflicts: most-conflicting first, same gap search;
//  - hill_climb: a seeded local search over the placement order, starting
//    from the better greedy order (for up to a few hundred buffers);
//  - best: all of the above, smallest arena wins.
// Each result is checked for overlaps; none can be below LOAD (the most
// bytes live at once), so arena == LOAD certifies an optimal plan.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ir/status.h"

namespace atenaot {

struct BufferRequest {
  int64_t bytes = 0;
  int64_t first = 0;  // live on [first, last], inclusive
  int64_t last = 0;
};

struct Placement {
  std::vector<int64_t> offsets;  // one per request
  int64_t arena_bytes = 0;
  std::string algorithm;
};

// Names accepted by PlaceBuffers, in the order `best` tries them.
std::vector<std::string> PlacementAlgorithms();

StatusOr<Placement> PlaceBuffers(const std::vector<BufferRequest>& requests, const std::string& algorithm);

// Tests only: PlaceBuffers runs `fn` for `name` (not one of the built-in
// names, not part of `best`), so a test can hand the planner a wrong placement
// and see it rejected. An empty fn removes it.
using PlacementFnForTesting = Placement (*)(const std::vector<BufferRequest>& requests);
void SetPlacementForTesting(const std::string& name, PlacementFnForTesting fn);

// Bytes live at the busiest moment: no placement can use less.
int64_t LiveBytesLowerBound(const std::vector<BufferRequest>& requests);
// Sum of all sizes: the arena without any reuse.
int64_t NaiveBytes(const std::vector<BufferRequest>& requests);
// Empty when no two buffers live at the same time share bytes and all fit in
// the arena; otherwise names the first conflict.
std::string CheckPlacement(const std::vector<BufferRequest>& requests, const Placement& p);

}  // namespace atenaot
