#include "plan/placement.h"

#include <algorithm>
#include <map>
#include <numeric>
#include <random>

namespace atenaot {
namespace {

bool LiveTogether(const BufferRequest& a, const BufferRequest& b) { return a.first <= b.last && b.first <= a.last; }

// Places buffers in `order`, each at the best-fitting gap among the already
// placed buffers it overlaps in time (smallest gap that fits; the gap before
// the lowest one counts), else above the highest. O(n^2 log n).
Placement PlaceInOrder(const std::vector<BufferRequest>& r, const std::vector<int>& order) {
  Placement p;
  p.offsets.assign(r.size(), -1);
  std::vector<int> placed;
  std::vector<std::pair<int64_t, int64_t>> busy;  // [begin, end) of overlapping placed buffers
  for (int i : order) {
    busy.clear();
    for (int j : placed)
      if (LiveTogether(r[static_cast<size_t>(i)], r[static_cast<size_t>(j)]))
        busy.push_back(
            {p.offsets[static_cast<size_t>(j)], p.offsets[static_cast<size_t>(j)] + r[static_cast<size_t>(j)].bytes});
    std::sort(busy.begin(), busy.end());
    const int64_t need = r[static_cast<size_t>(i)].bytes;
    int64_t best = -1, best_gap = 0, cursor = 0;
    for (const auto& [b, e] : busy) {
      if (b > cursor) {
        int64_t gap = b - cursor;
        if (gap >= need && (best < 0 || gap < best_gap)) {
          best = cursor;
          best_gap = gap;
        }
      }
      cursor = std::max(cursor, e);
    }
    if (best < 0) best = cursor;  // above everything live at the same time
    p.offsets[static_cast<size_t>(i)] = best;
    p.arena_bytes = std::max(p.arena_bytes, best + need);
    placed.push_back(i);
  }
  return p;
}

std::vector<int> OrderBySize(const std::vector<BufferRequest>& r) {
  std::vector<int> o(r.size());
  std::iota(o.begin(), o.end(), 0);
  std::stable_sort(o.begin(), o.end(), [&](int a, int b) {
    const auto &x = r[static_cast<size_t>(a)], &y = r[static_cast<size_t>(b)];
    if (x.bytes != y.bytes) return x.bytes > y.bytes;
    return x.first < y.first;
  });
  return o;
}

std::vector<int> OrderByConflicts(const std::vector<BufferRequest>& r) {
  std::vector<int64_t> conflicts(r.size(), 0);  // bytes of the buffers each one overlaps
  for (size_t i = 0; i < r.size(); ++i)
    for (size_t j = 0; j < r.size(); ++j)
      if (i != j && LiveTogether(r[i], r[j])) conflicts[i] += r[j].bytes;
  std::vector<int> o(r.size());
  std::iota(o.begin(), o.end(), 0);
  std::stable_sort(o.begin(), o.end(), [&](int a, int b) {
    int64_t ca = conflicts[static_cast<size_t>(a)] + r[static_cast<size_t>(a)].bytes;
    int64_t cb = conflicts[static_cast<size_t>(b)] + r[static_cast<size_t>(b)].bytes;
    if (ca != cb) return ca > cb;
    return r[static_cast<size_t>(a)].bytes > r[static_cast<size_t>(b)].bytes;
  });
  return o;
}

// Local search over the order: swap two positions, keep the swap when the
// arena does not grow; stop at LOAD (optimal) or when the budget is spent.
Placement HillClimb(const std::vector<BufferRequest>& r) {
  std::vector<int> order = OrderBySize(r);
  Placement best = PlaceInOrder(r, order);
  std::vector<int> alt = OrderByConflicts(r);
  Placement p2 = PlaceInOrder(r, alt);
  if (p2.arena_bytes < best.arena_bytes) {
    best = p2;
    order = alt;
  }
  const int64_t load = LiveBytesLowerBound(r);
  const size_t n = r.size();
  if (n < 2) return best;
  // About 5e7 placement steps in all, at most 4000 iterations.
  const int64_t per_iter = static_cast<int64_t>(n * n) + 1;
  int64_t iters = std::min<int64_t>(4000, 50'000'000 / per_iter);
  std::mt19937_64 rng(12345);  // deterministic plans
  std::uniform_int_distribution<size_t> pick(0, n - 1);
  for (int64_t it = 0; it < iters && best.arena_bytes > load; ++it) {
    size_t a = pick(rng), b = pick(rng);
    if (a == b) continue;
    std::swap(order[a], order[b]);
    Placement p = PlaceInOrder(r, order);
    if (p.arena_bytes <= best.arena_bytes)
      best = p;
    else
      std::swap(order[a], order[b]);
  }
  return best;
}

}  // namespace

std::vector<std::string> PlacementAlgorithms() {
  return {"greedy_by_size", "greedy_by_conflicts", "hill_climb", "best"};
}

namespace {
std::map<std::string, PlacementFnForTesting>& TestPlacements() {
  static std::map<std::string, PlacementFnForTesting> m;
  return m;
}
}  // namespace

void SetPlacementForTesting(const std::string& name, PlacementFnForTesting fn) {
  if (fn)
    TestPlacements()[name] = fn;
  else
    TestPlacements().erase(name);
}

StatusOr<Placement> PlaceBuffers(const std::vector<BufferRequest>& r, const std::string& algorithm) {
  for (const BufferRequest& b : r)
    if (b.bytes < 0 || b.first > b.last) return InvalidArgument("a buffer has a negative size or an empty live range");
  Placement p;
  if (algorithm == "greedy_by_size") {
    p = PlaceInOrder(r, OrderBySize(r));
  } else if (algorithm == "greedy_by_conflicts") {
    p = PlaceInOrder(r, OrderByConflicts(r));
  } else if (algorithm == "hill_climb") {
    if (r.size() > 2000)
      return InvalidArgument("hill_climb is for up to 2000 buffers, got " + std::to_string(r.size()));
    p = HillClimb(r);
  } else if (algorithm == "best") {
    bool have = false;
    for (const std::string& a : PlacementAlgorithms()) {
      if (a == "best" || (a == "hill_climb" && r.size() > 2000)) continue;
      AOT_ASSIGN_OR_RETURN(Placement c, PlaceBuffers(r, a));
      if (!have || c.arena_bytes < p.arena_bytes) {
        p = c;
        have = true;
      }
    }
    if (!have) p = PlaceInOrder(r, OrderBySize(r));
    p.algorithm = "best (" + p.algorithm + ")";
    return p;
  } else if (auto t = TestPlacements().find(algorithm); t != TestPlacements().end()) {
    p = t->second(r);
  } else {
    std::string names;
    for (const std::string& a : PlacementAlgorithms()) names += (names.empty() ? "" : ", ") + a;
    return InvalidArgument("unknown placement algorithm '" + algorithm + "' (algorithms: " + names + ")");
  }
  p.algorithm = algorithm;
  std::string bad = CheckPlacement(r, p);
  if (!bad.empty()) return Internal("placement " + algorithm + " is wrong: " + bad);
  return p;
}

int64_t LiveBytesLowerBound(const std::vector<BufferRequest>& r) {
  std::vector<std::pair<int64_t, int64_t>> events;  // (time, +bytes at first / -bytes after last)
  for (const BufferRequest& b : r) {
    events.push_back({b.first, b.bytes});
    events.push_back({b.last + 1, -b.bytes});
  }
  std::sort(events.begin(), events.end(), [](const auto& x, const auto& y) {
    return x.first != y.first ? x.first < y.first : x.second < y.second;  // ends before starts
  });
  int64_t live = 0, peak = 0;
  for (const auto& [t, d] : events) {
    live += d;
    peak = std::max(peak, live);
  }
  return peak;
}

int64_t NaiveBytes(const std::vector<BufferRequest>& r) {
  int64_t s = 0;
  for (const BufferRequest& b : r) s += b.bytes;
  return s;
}

std::string CheckPlacement(const std::vector<BufferRequest>& r, const Placement& p) {
  if (p.offsets.size() != r.size()) return "offset count differs from buffer count";
  // Sweep over time: buffers sorted by offset; an interval check per pair that
  // overlaps in time is O(n^2) in the worst case but fine at plan sizes.
  std::vector<int> idx(r.size());
  std::iota(idx.begin(), idx.end(), 0);
  std::sort(idx.begin(), idx.end(),
            [&](int a, int b) { return p.offsets[static_cast<size_t>(a)] < p.offsets[static_cast<size_t>(b)]; });
  for (size_t x = 0; x < idx.size(); ++x) {
    size_t i = static_cast<size_t>(idx[x]);
    if (p.offsets[i] < 0 || p.offsets[i] + r[i].bytes > p.arena_bytes)
      return "buffer " + std::to_string(i) + " lies outside the arena";
    for (size_t y = x + 1; y < idx.size(); ++y) {
      size_t j = static_cast<size_t>(idx[y]);
      if (p.offsets[j] >= p.offsets[i] + r[i].bytes) break;  // sorted by offset: no later one overlaps i
      if (r[i].bytes > 0 && r[j].bytes > 0 && LiveTogether(r[i], r[j]))
        return "buffers " + std::to_string(i) + " and " + std::to_string(j) + " are live together and share bytes";
    }
  }
  return "";
}

}  // namespace atenaot
