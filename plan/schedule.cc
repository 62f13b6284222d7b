#include "plan/schedule.h"

#include <algorithm>
#include <chrono>
#include <functional>
#include <map>
#include <tuple>
#include <unordered_map>

namespace atenaot {

namespace {

int64_t AlignUp(int64_t v, int64_t a) { return (v + a - 1) / a * a; }

// A set of nodes that can have run, with the lowest peak found for it.
struct State {
  std::vector<uint64_t> bits;
  std::vector<int> ready;  // unscheduled nodes whose predecessors all ran
  int64_t live = 0, peak = 0;
  int64_t detours = 0;  // steps that did not take the lowest-numbered ready node
  int trace = -1;       // into Search::steps
  int count = 0;        // nodes in the set
};

struct BitsHash {
  size_t operator()(const std::vector<uint64_t>& b) const {
    uint64_t h = 1469598103934665603ull;
    for (uint64_t w : b) h = (h ^ w) * 1099511628211ull;
    return static_cast<size_t>(h ^ (h >> 29));
  }
};

class Search {
 public:
  explicit Search(const ScheduleProblem& p) : p_(p), words_((p.num_nodes + 63) / 64) {
    succs_.resize(static_cast<size_t>(p.num_nodes));
    for (int v = 0; v < p.num_nodes; ++v)
      for (int u : p.preds[static_cast<size_t>(v)]) succs_[static_cast<size_t>(u)].push_back(v);
  }

  // The peak of running `order` (topological), by the same steps the search takes.
  int64_t Replay(const std::vector<int>& order) {
    State s = Initial();
    for (int u : order) Apply(s, u, Cost(s, u));
    return s.peak;
  }

  ScheduleResult Run(const ScheduleOptions& o) {
    const auto t0 = std::chrono::steady_clock::now();
    ScheduleResult r;
    r.original_peak = r.peak = Replay(Identity());
    r.order = Identity();
    if (p_.num_nodes == 0) return r;
    int64_t cap = o.max_states_per_size;
    if (cap <= 0) {
      // About 2e8 word operations in all (a few hundred ms).
      const double per_state = static_cast<double>(p_.num_nodes) * (words_ + 8) * 3;
      cap = std::max<int64_t>(16, std::min<int64_t>(100000, static_cast<int64_t>(2e8 / per_state)));
    }
    // Buckets by set size; each holds the distinct sets of that size.
    std::map<int, std::unordered_map<std::vector<uint64_t>, State, BitsHash>> buckets;
    State init = Initial();
    Closure(init);
    buckets[init.count].emplace(init.bits, std::move(init));
    bool greedy = false;
    while (!buckets.empty()) {
      auto it = buckets.begin();
      const int size = it->first;
      std::vector<State> level;
      level.reserve(it->second.size());
      for (auto& kv : it->second) level.push_back(std::move(kv.second));
      buckets.erase(it);
      if (size == p_.num_nodes) {
        const State& best = *std::min_element(level.begin(), level.end(), Better);
        if (best.peak < r.original_peak) {
          r.peak = best.peak;
          r.order = Unwind(best.trace);
        }
        break;
      }
      const int64_t keep = greedy ? 1 : cap;
      if (static_cast<int64_t>(level.size()) > keep) {
        std::nth_element(level.begin(), level.begin() + keep, level.end(), Better);
        level.resize(static_cast<size_t>(keep));
        r.exact = false;
      }
      // Each set keeps its best state.
      const auto keep_best = [&](State n) {
        auto& bucket = buckets[n.count];
        auto found = bucket.find(n.bits);
        if (found == bucket.end())
          bucket.emplace(n.bits, std::move(n));
        else if (Better(n, found->second))
          found->second = std::move(n);
      };
      const auto over_budget = [&] {
        return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count() >
               o.time_budget_ms;
      };
      for (size_t i = 0; i < level.size(); ++i) {
        const State& s = level[i];
        ++r.states;
        if (greedy) {  // one successor, not all: the ready node that raises the peak least, then frees most
          int best = -1;
          int64_t best_peak = 0, best_live = 0;
          for (int u : s.ready) {
            const Effect e = Cost(s, u);
            const int64_t pk = std::max(s.peak, s.live + e.alloc - e.credit), lv = s.live + e.alloc - e.freed;
            if (best < 0 || pk < best_peak || (pk == best_peak && lv < best_live)) {
              best = u;
              best_peak = pk;
              best_live = lv;
            }
          }
          if (best >= 0) keep_best(Step(s, best));
          continue;
        }
        for (int u : s.ready) keep_best(Step(s, u));
        // A wide level can take long by itself: past the budget, the states
        // not yet expanded are dropped and the rest runs greedily.
        if (!greedy && i % 32 == 31 && i + 1 < level.size() && over_budget()) {
          greedy = true;
          r.exact = false;
          break;
        }
      }
      if (!greedy && over_budget()) greedy = true;
    }
    return r;
  }

 private:
  State Initial() const {
    State s;
    s.bits.assign(static_cast<size_t>(words_), 0);
    for (int v = 0; v < p_.num_nodes; ++v)
      if (p_.preds[static_cast<size_t>(v)].empty()) s.ready.push_back(v);
    return s;
  }

  static bool Better(const State& a, const State& b) {
    if (a.peak != b.peak) return a.peak < b.peak;
    if (a.live != b.live) return a.live < b.live;
    return a.detours < b.detours;
  }

  std::vector<int> Identity() const {
    std::vector<int> v(static_cast<size_t>(p_.num_nodes));
    for (int i = 0; i < p_.num_nodes; ++i) v[static_cast<size_t>(i)] = i;
    return v;
  }

  bool Has(const State& s, int v) const { return (s.bits[static_cast<size_t>(v / 64)] >> (v % 64)) & 1u; }

  // True when every node touching storage st has run once `u` runs.
  bool DiesWith(const State& s, int st, int u) const {
    for (int t : p_.touchers[static_cast<size_t>(st)])
      if (t != u && !Has(s, t)) return false;
    return true;
  }

  // Running u: the bytes it allocates, what it saves by writing over a
  // dying input (lowers only its step: the input's bytes become the
  // output's), and what is freed after it.
  struct Effect {
    int64_t alloc = 0, credit = 0, freed = 0;
  };
  Effect Cost(const State& s, int u) const {
    Effect e;
    for (int st : p_.creates[static_cast<size_t>(u)]) e.alloc += p_.bytes[static_cast<size_t>(st)];
    std::vector<int> used;
    for (const auto& [so, si] : p_.reuse[static_cast<size_t>(u)]) {
      if (std::find(used.begin(), used.end(), si) != used.end()) continue;
      if (p_.pinned[static_cast<size_t>(si)] || !DiesWith(s, si, u)) continue;
      e.credit += p_.bytes[static_cast<size_t>(so)];
      used.push_back(si);
    }
    for (int st : p_.touches[static_cast<size_t>(u)])
      if (!p_.pinned[static_cast<size_t>(st)] && DiesWith(s, st, u)) e.freed += p_.bytes[static_cast<size_t>(st)];
    return e;
  }

  // Runs u in s (u must be ready); no closure.
  void Apply(State& s, int u, const Effect& e) {
    s.peak = std::max(s.peak, s.live + e.alloc - e.credit);
    s.live += e.alloc - e.freed;
    s.bits[static_cast<size_t>(u / 64)] |= uint64_t{1} << (u % 64);
    ++s.count;
    s.ready.erase(std::find(s.ready.begin(), s.ready.end(), u));
    for (int v : succs_[static_cast<size_t>(u)]) {
      bool all = true;
      for (int q : p_.preds[static_cast<size_t>(v)])
        if (!Has(s, q)) {
          all = false;
          break;
        }
      if (all && std::find(s.ready.begin(), s.ready.end(), v) == s.ready.end()) s.ready.push_back(v);
    }
    std::sort(s.ready.begin(), s.ready.end());
    steps_.push_back({s.trace, u});
    s.trace = static_cast<int>(steps_.size()) - 1;
  }

  // Takes every ready node that allocates nothing, lowest number first: that
  // never raises the peak and only frees memory sooner.
  void Closure(State& s) {
    for (bool again = true; again;) {
      again = false;
      for (int u : s.ready) {
        const Effect e = Cost(s, u);
        if (e.alloc - e.credit > 0) continue;
        Apply(s, u, e);
        again = true;
        break;
      }
    }
  }

  State Step(const State& from, int u) {
    State s = from;
    if (u != s.ready.front()) ++s.detours;
    Apply(s, u, Cost(s, u));
    Closure(s);
    return s;
  }

  std::vector<int> Unwind(int trace) const {
    std::vector<int> order;
    for (int t = trace; t >= 0; t = steps_[static_cast<size_t>(t)].first)
      order.push_back(steps_[static_cast<size_t>(t)].second);
    std::reverse(order.begin(), order.end());
    return order;
  }

  const ScheduleProblem& p_;
  const int words_;
  std::vector<std::vector<int>> succs_;
  std::vector<std::pair<int, int>> steps_;  // (previous step, node run)
};

}  // namespace

int64_t SchedulePeak(const ScheduleProblem& p, const std::vector<int>& order) { return Search(p).Replay(order); }

ScheduleResult SolveSchedule(const ScheduleProblem& p, const ScheduleOptions& o) { return Search(p).Run(o); }

namespace {

// True when every node touching storage st but u runs before u in any order
// (is an ancestor of u): st then dies at u whatever the schedule.
bool DiesAtInEveryOrder(const ScheduleProblem& p, int st, int u) {
  std::vector<bool> seen(static_cast<size_t>(p.num_nodes), false);
  std::vector<int> stack = {u};
  while (!stack.empty()) {
    const int v = stack.back();
    stack.pop_back();
    for (int q : p.preds[static_cast<size_t>(v)])
      if (!seen[static_cast<size_t>(q)]) {
        seen[static_cast<size_t>(q)] = true;
        stack.push_back(q);
      }
  }
  for (int t : p.touchers[static_cast<size_t>(st)])
    if (t != u && !seen[static_cast<size_t>(t)]) return false;
  return true;
}

// The buffer analysis merges a kernel's output with the input it writes
// over, and a merged buffer that a whole graph output covers lives in the
// caller's memory (plan/buffers.h): so the chain of such inputs behind an
// output (a classifier head's, a transformer layer's last norm and residual)
// takes no arena bytes. Where the input dies at that kernel in every order,
// the model says so too (bytes 0); else the peak of the FFN before a final
// norm looked higher than the arena's and hid what reordering gains.
void AbsorbIntoOutputs(const std::vector<std::tuple<int, int, int>>& onto_output, std::vector<bool> in_caller,
                       ScheduleProblem* p) {
  for (bool again = true; again;) {
    again = false;
    for (const auto& [u, so, si] : onto_output) {
      if (!in_caller[static_cast<size_t>(so)] || in_caller[static_cast<size_t>(si)] ||
          p->pinned[static_cast<size_t>(si)] || !DiesAtInEveryOrder(*p, si, u))
        continue;
      in_caller[static_cast<size_t>(si)] = true;
      p->bytes[static_cast<size_t>(si)] = 0;
      again = true;
    }
  }
}

}  // namespace

StatusOr<ScheduleProblem> BuildScheduleProblem(const Graph& g, int64_t alignment,
                                               const std::unordered_set<const Value*>* virtual_values,
                                               const ReusePairs* reuse, const NodeBytes* scratch) {
  ScheduleProblem p;
  std::vector<const Node*> nodes;
  std::unordered_map<const Node*, int> index;
  for (const Node* n : g.nodes()) {
    index[n] = static_cast<int>(nodes.size());
    nodes.push_back(n);
  }
  const size_t n = nodes.size();
  p.num_nodes = static_cast<int>(n);
  p.preds.resize(n);
  p.creates.resize(n);
  p.touches.resize(n);
  p.reuse.resize(n);
  std::unordered_map<int64_t, int> sid;
  std::vector<int64_t> extent;
  std::vector<bool> created;
  auto storage = [&](int64_t s) {
    auto it = sid.find(s);
    if (it == sid.end()) {
      it = sid.emplace(s, static_cast<int>(p.touchers.size())).first;
      p.touchers.emplace_back();
      extent.push_back(0);
      created.push_back(false);
    }
    return it->second;
  };
  std::unordered_set<int64_t> external;
  for (const Value* v : g.inputs()) external.insert(v->meta().storage);
  for (const Value* v : g.weight_values()) external.insert(v->meta().storage);
  auto is_virtual = [&](const Value* v) { return virtual_values && virtual_values->count(v); };
  // A fused value is computed where it is read: reading it reads its inputs.
  std::function<void(const Value*, std::vector<int>&)> reads = [&](const Value* v, std::vector<int>& out) {
    if (is_virtual(v)) {
      if (v->producer())
        for (const Value* in : v->producer()->InputValues()) reads(in, out);
      return;
    }
    out.push_back(storage(v->meta().storage));
  };
  std::vector<int> last_write;          // per storage, -1: none
  std::vector<std::vector<int>> since;  // per storage: readers since its last write
  for (size_t u = 0; u < n; ++u) {
    const Node* node = nodes[u];
    std::vector<int> touched, written;
    for (const Value* in : node->InputValues()) {
      reads(in, touched);
      if (const Node* pn = in->producer()) {
        auto it = index.find(pn);
        AOT_INTERNAL_CHECK(it != index.end(),
                           DescribeNode(node) + " reads %" + in->name() + ", whose producer is not in the graph");
        p.preds[u].push_back(it->second);
      }
    }
    for (const Value* o : node->outputs()) {
      if (is_virtual(o)) continue;
      const int st = storage(o->meta().storage);
      extent[static_cast<size_t>(st)] = std::max(extent[static_cast<size_t>(st)], ExtentBytes(o->meta()));
      if (!created[static_cast<size_t>(st)] && !external.count(o->meta().storage)) {
        created[static_cast<size_t>(st)] = true;
        p.creates[u].push_back(st);
        written.push_back(st);
      }
      touched.push_back(st);
    }
    if (scratch) {  // a storage of its own that only this node touches
      auto sc = scratch->find(node);
      if (sc != scratch->end() && sc->second > 0) {
        const int st = static_cast<int>(p.touchers.size());
        p.touchers.emplace_back();
        extent.push_back(sc->second);
        created.push_back(true);
        p.creates[u].push_back(st);
        written.push_back(st);
        touched.push_back(st);
      }
    }
    const OpInfo& op = node->op();
    if (op.kind == OpKind::kOther || op.kind == OpKind::kOtherMutable) {
      written = touched;
    } else {
      for (int w : op.written_args)
        if (const Value* v = node->input(w)) reads(v, written);
    }
    std::sort(touched.begin(), touched.end());
    touched.erase(std::unique(touched.begin(), touched.end()), touched.end());
    p.touches[u] = touched;
    last_write.resize(p.touchers.size(), -1);
    since.resize(p.touchers.size());
    // Per storage, a write stays after every earlier access and before every later one.
    for (int st : touched) {
      p.touchers[static_cast<size_t>(st)].push_back(static_cast<int>(u));
      const int lw = last_write[static_cast<size_t>(st)];
      if (lw >= 0) p.preds[u].push_back(lw);
      if (std::find(written.begin(), written.end(), st) != written.end()) {
        for (int r : since[static_cast<size_t>(st)]) p.preds[u].push_back(r);
        since[static_cast<size_t>(st)].clear();
        last_write[static_cast<size_t>(st)] = static_cast<int>(u);
      } else {
        since[static_cast<size_t>(st)].push_back(static_cast<int>(u));
      }
    }
    auto& pr = p.preds[u];
    pr.erase(std::remove(pr.begin(), pr.end(), static_cast<int>(u)), pr.end());
    std::sort(pr.begin(), pr.end());
    pr.erase(std::unique(pr.begin(), pr.end()), pr.end());
  }
  p.bytes.assign(p.touchers.size(), 0);
  p.pinned.assign(p.touchers.size(), false);
  for (size_t st = 0; st < p.touchers.size(); ++st)
    if (created[st]) p.bytes[st] = AlignUp(std::max<int64_t>(extent[st], 1), alignment);
  // Graph outputs: a whole, contiguous one lives in the caller's memory; a
  // partial view stays in the arena to the end.
  for (const Value* v : g.outputs()) {
    auto it = sid.find(v->meta().storage);
    if (it == sid.end() || !created[static_cast<size_t>(it->second)]) continue;
    const size_t st = static_cast<size_t>(it->second);
    const TensorMeta& m = v->meta();
    if (m.offset == 0 && m.IsContiguous() && m.numel() * DTypeSize(m.dtype) == extent[st])
      p.bytes[st] = 0;
    else
      p.pinned[st] = true;
  }
  std::vector<bool> in_caller(p.touchers.size(), false);  // a whole output: the caller's memory
  for (const Value* v : g.outputs()) {
    auto it = sid.find(v->meta().storage);
    if (it != sid.end() && created[static_cast<size_t>(it->second)] && !p.pinned[static_cast<size_t>(it->second)])
      in_caller[static_cast<size_t>(it->second)] = true;
  }
  // (node, output storage, input storage) of the reuse pairs whose buffers
  // the analysis would merge: where the output is the caller's, so is the input.
  std::vector<std::tuple<int, int, int>> onto_output;
  if (reuse) {
    for (const auto& [o, in] : *reuse) {
      if (is_virtual(o) || is_virtual(in) || !o->producer()) continue;
      auto io = sid.find(o->meta().storage), ii = sid.find(in->meta().storage);
      if (io == sid.end() || ii == sid.end() || io->second == ii->second) continue;
      const int so = io->second, si = ii->second;
      const TensorMeta &mo = o->meta(), &mi = in->meta();
      const bool same_layout = mo.sizes == mi.sizes && mo.strides == mi.strides && mo.offset == 0 && mi.offset == 0 &&
                               DTypeSize(mo.dtype) == DTypeSize(mi.dtype) && mi.IsContiguous();
      auto pi = index.find(o->producer());
      AOT_INTERNAL_CHECK(pi != index.end(), "reuse pair (%" + o->name() + " over %" + in->name() +
                                                "): " + DescribeNode(o->producer()) + " is not in the graph");
      const size_t u = static_cast<size_t>(pi->second);
      const auto& cr = p.creates[u];
      if (same_layout && created[static_cast<size_t>(si)] &&
          extent[static_cast<size_t>(so)] == extent[static_cast<size_t>(si)] &&
          std::find(cr.begin(), cr.end(), so) != cr.end())
        onto_output.emplace_back(static_cast<int>(u), so, si);
      if (!same_layout || p.bytes[static_cast<size_t>(so)] == 0 ||
          p.bytes[static_cast<size_t>(so)] != p.bytes[static_cast<size_t>(si)] ||
          std::find(cr.begin(), cr.end(), so) == cr.end())
        continue;
      p.reuse[u].push_back({so, si});
    }
  }
  AbsorbIntoOutputs(onto_output, in_caller, &p);
  return p;
}

void ApplyNodeOrder(Graph& g, const std::vector<Node*>& order) {
  // Each node goes right after the ones already placed.
  Node* cursor = g.first();
  for (Node* n : order) {
    if (n == cursor)
      cursor = cursor->next();
    else
      g.MoveBefore(n, cursor);
  }
  g.Renumber();
}

StatusOr<ScheduleStats> ScheduleForMemory(Graph& g, int64_t alignment,
                                          const std::unordered_set<const Value*>* virtual_values,
                                          const ReusePairs* reuse, const ScheduleOptions& o, const NodeBytes* scratch) {
  const auto t0 = std::chrono::steady_clock::now();
  ScheduleStats st;
  AOT_ASSIGN_OR_RETURN(const ScheduleProblem p, BuildScheduleProblem(g, alignment, virtual_values, reuse, scratch));
  const ScheduleResult r = SolveSchedule(p, o);
  st.exact = r.exact;
  st.states = r.states;
  st.modelled_before = r.original_peak;
  st.modelled_after = r.peak;
  if (r.peak < r.original_peak) {
    const std::vector<Node*> nodes = g.NodesSnapshot();
    std::vector<Node*> order;
    for (int k : r.order) order.push_back(nodes[static_cast<size_t>(k)]);
    ApplyNodeOrder(g, order);
    st.changed = true;
  }
  st.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  return st;
}

}  // namespace atenaot
