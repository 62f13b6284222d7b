#include "plan/memory_plan.h"

#include <algorithm>
#include <cstdio>
#include <sstream>

namespace atenaot {

std::vector<BufferRequest> ArenaRequests(const BufferAnalysis& a) {
  std::vector<BufferRequest> r;
  for (int i : a.arena) {
    const Buffer& b = a.buffers[static_cast<size_t>(i)];
    r.push_back({b.bytes, b.first, b.last});
  }
  return r;
}

std::vector<int64_t> LiveBytesCurve(const BufferAnalysis& a) {
  std::vector<int64_t> live(static_cast<size_t>(std::max<int64_t>(a.num_ops + 1, 1)), 0);
  for (int i : a.arena) {
    const Buffer& b = a.buffers[static_cast<size_t>(i)];
    for (int64_t t = b.first; t <= b.last && t < static_cast<int64_t>(live.size()); ++t)
      live[static_cast<size_t>(t)] += b.bytes;
  }
  return live;
}

StatusOr<MemoryPlan> PlanMemory(const Graph& g, const std::string& algorithm, int64_t alignment,
                                const std::unordered_set<const Value*>* virtual_values, const ReusePairs* reuse,
                                const NodeBytes* scratch) {
  if (alignment <= 0 || alignment > kMaxAlignment || (alignment & (alignment - 1)) != 0)
    return InvalidArgument("alignment must be a power of two from 1 to " + std::to_string(kMaxAlignment) + ", got " +
                           std::to_string(alignment));
  MemoryPlan p;
  p.analysis = AnalyzeBuffers(g, alignment, virtual_values, reuse, scratch);
  std::vector<BufferRequest> req = ArenaRequests(p.analysis);
  // Every later sum (LOAD, offset + size, arena) is at most twice the naive
  // total, so bounding that total here keeps all of them from overflowing.
  int64_t total = 0;
  for (const BufferRequest& b : req)
    if (b.bytes < 0 || __builtin_add_overflow(total, b.bytes, &total) || total > kMaxPlannedBytes)
      return InvalidArgument(
          "the model's intermediate buffers need more than 2^60 bytes together; they cannot be planned");
  AOT_ASSIGN_OR_RETURN(p.placement, PlaceBuffers(req, algorithm));
  std::string bad = CheckPlacement(req, p.placement);
  if (!bad.empty()) return Internal("memory plan check failed: " + bad);
  p.offsets.assign(p.analysis.buffers.size(), -1);
  for (size_t k = 0; k < p.analysis.arena.size(); ++k)
    p.offsets[static_cast<size_t>(p.analysis.arena[k])] = p.placement.offsets[k];
  p.lower_bound_bytes = LiveBytesLowerBound(req);
  p.naive_bytes = NaiveBytes(req);
  if (p.placement.arena_bytes < p.lower_bound_bytes)
    return Internal("arena below the live-bytes lower bound: the analysis is wrong");
  return p;
}

namespace {

std::string Ratio(int64_t a, int64_t b) {
  if (b <= 0) return "n/a";
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.3f", static_cast<double>(a) / static_cast<double>(b));
  return buf;
}

std::string JsonString(const std::string& s) {
  std::string o = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') {
      o += '\\';
      o += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char b[8];
      std::snprintf(b, sizeof(b), "\\u%04x", c);
      o += b;
    } else
      o += c;
  }
  return o + "\"";
}

std::string XmlEscape(const std::string& s) {
  std::string o;
  for (char c : s) {
    if (c == '<')
      o += "&lt;";
    else if (c == '>')
      o += "&gt;";
    else if (c == '&')
      o += "&amp;";
    else if (c == '"')
      o += "&quot;";
    else
      o += c;
  }
  return o;
}

// LOAD of the arena's activations alone (kernel scratch left out): the
// functional graph before reinplace is measured without scratch, so this is
// what it compares with.
int64_t ActivationLowerBound(const MemoryPlan& p) {
  std::vector<BufferRequest> acts;
  for (int i : p.analysis.arena) {
    const Buffer& b = p.analysis.buffers[static_cast<size_t>(i)];
    if (!b.scratch_for) acts.push_back({b.bytes, b.first, b.last});
  }
  return LiveBytesLowerBound(acts);
}

}  // namespace

std::string PlanTable(const MemoryPlan& p, const PlanTotals& t) {
  std::ostringstream os;
  char line[256];
  std::snprintf(line, sizeof(line), "%-24s %-7s %12s %11s %12s\n", "buffer", "home", "bytes", "live", "offset");
  os << line;
  for (size_t i = 0; i < p.analysis.buffers.size(); ++i) {
    const Buffer& b = p.analysis.buffers[i];
    std::string range = std::to_string(b.first) + ".." + std::to_string(b.last);
    std::string off = p.offsets[i] >= 0 ? std::to_string(p.offsets[i]) : "-";
    std::string name = b.scratch_for ? b.name : "%" + b.name;
    if (name.size() > 24) name = name.substr(0, 21) + "...";
    std::snprintf(line, sizeof(line), "%-24s %-7s %12lld %11s %12s\n", name.c_str(), BufferHomeName(b.home),
                  static_cast<long long>(b.bytes), range.c_str(), off.c_str());
    os << line;
  }
  os << "\nalgorithm: " << p.placement.algorithm << " (alignment " << p.analysis.alignment << " B)\n";
  os << "arena:        " << p.arena_bytes() << " B\n";
  os << "lower bound:  " << p.lower_bound_bytes
     << " B (LOAD; arena/LOAD = " << Ratio(p.arena_bytes(), p.lower_bound_bytes)
     << (p.arena_bytes() == p.lower_bound_bytes ? ", optimal" : "") << ")\n";
  int64_t scratch = 0, scratch_n = 0;
  for (const Buffer& b : p.analysis.buffers)
    if (b.scratch_for) {
      scratch = std::max(scratch, b.bytes);
      ++scratch_n;
    }
  if (scratch_n > 0)
    os << "scratch:      " << scratch_n << " kernel scratch buffer(s), the largest " << scratch
       << " B (in the arena and in LOAD, each live only while its kernel runs)\n";
  os << "naive:        " << p.naive_bytes << " B (no reuse; naive/arena = " << Ratio(p.naive_bytes, p.arena_bytes())
     << ")\n";
  if (t.eager_peak_bytes >= 0)
    os << "eager peak:   " << t.eager_peak_bytes
       << " B (LibTorch; eager/arena = " << Ratio(t.eager_peak_bytes, p.arena_bytes()) << ")\n";
  if (t.lower_bound_before_reinplace_bytes >= 0) {
    const int64_t act_load = ActivationLowerBound(p);
    os << "LOAD before reinplace: " << t.lower_bound_before_reinplace_bytes << " B (the functional graph; reinplacing, "
       << "fusion and kernel buffer reuse save " << t.lower_bound_before_reinplace_bytes - act_load << " B"
       << (scratch_n > 0 ? " of activations, LOAD without scratch " + std::to_string(act_load) + " B" : "") << ")\n";
  }
  if (p.unscheduled_lower_bound_bytes >= 0) {
    char ms[32];
    std::snprintf(ms, sizeof(ms), "%.1f", p.schedule.ms);
    os << "LOAD before scheduling: " << p.unscheduled_lower_bound_bytes << " B (the traced op order; reordering saves "
       << p.unscheduled_lower_bound_bytes - p.lower_bound_bytes << " B; " << (p.schedule.exact ? "exact" : "beam")
       << " search over " << p.schedule.states << " op sets in " << ms << " ms)\n";
  }
  return os.str();
}

std::string PlanJson(const MemoryPlan& p, const PlanTotals& t) {
  std::ostringstream os;
  os << "{\n  \"algorithm\": " << JsonString(p.placement.algorithm) << ",\n";
  os << "  \"alignment\": " << p.analysis.alignment << ",\n";
  os << "  \"arena_bytes\": " << p.arena_bytes() << ",\n";
  os << "  \"lower_bound_bytes\": " << p.lower_bound_bytes << ",\n";
  os << "  \"naive_bytes\": " << p.naive_bytes << ",\n";
  os << "  \"eager_peak_bytes\": " << (t.eager_peak_bytes >= 0 ? std::to_string(t.eager_peak_bytes) : "null") << ",\n";
  os << "  \"lower_bound_before_reinplace_bytes\": "
     << (t.lower_bound_before_reinplace_bytes >= 0 ? std::to_string(t.lower_bound_before_reinplace_bytes) : "null")
     << ",\n";
  os << "  \"lower_bound_activations_bytes\": " << ActivationLowerBound(p) << ",\n";
  os << "  \"lower_bound_unscheduled_bytes\": "
     << (p.unscheduled_lower_bound_bytes >= 0 ? std::to_string(p.unscheduled_lower_bound_bytes) : "null") << ",\n";
  if (p.unscheduled_lower_bound_bytes >= 0)
    os << "  \"schedule\": {\"changed\": " << (p.schedule.changed ? "true" : "false")
       << ", \"exact\": " << (p.schedule.exact ? "true" : "false") << ", \"states\": " << p.schedule.states
       << ", \"ms\": " << p.schedule.ms << "},\n";
  os << "  \"num_ops\": " << p.analysis.num_ops << ",\n  \"buffers\": [\n";
  for (size_t i = 0; i < p.analysis.buffers.size(); ++i) {
    const Buffer& b = p.analysis.buffers[i];
    os << "    {\"name\": " << JsonString(b.name) << ", \"home\": \"" << BufferHomeName(b.home)
       << "\", \"bytes\": " << b.bytes << ", \"first\": " << b.first << ", \"last\": " << b.last
       << ", \"offset\": " << (p.offsets[i] >= 0 ? std::to_string(p.offsets[i]) : "null")
       << (b.scratch_for ? ", \"scratch\": true" : "") << "}" << (i + 1 < p.analysis.buffers.size() ? "," : "") << "\n";
  }
  os << "  ]\n}\n";
  return os.str();
}

std::string PlanSvg(const MemoryPlan& p) {
  const double W = 960, H = 540, L = 70, R = 20, T = 40, B = 50;
  const int64_t steps = std::max<int64_t>(p.analysis.num_ops + 1, 1);
  const int64_t top = std::max<int64_t>({p.arena_bytes(), p.lower_bound_bytes, p.unscheduled_lower_bound_bytes, 1});
  auto X = [&](double t) { return L + (W - L - R) * t / static_cast<double>(steps); };
  auto Y = [&](double bytes) { return H - B - (H - T - B) * bytes / static_cast<double>(top); };
  std::ostringstream os;
  os << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << W << "\" height=\"" << H
     << "\" font-family=\"sans-serif\" font-size=\"12\">\n";
  os << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  os << "<text x=\"" << L << "\" y=\"22\" font-size=\"15\">memory plan: arena " << p.arena_bytes() << " B, LOAD "
     << p.lower_bound_bytes << " B, naive " << p.naive_bytes << " B (" << XmlEscape(p.placement.algorithm)
     << ")</text>\n";
  // Axes.
  os << "<line x1=\"" << L << "\" y1=\"" << Y(0) << "\" x2=\"" << W - R << "\" y2=\"" << Y(0)
     << "\" stroke=\"black\"/>\n";
  os << "<line x1=\"" << L << "\" y1=\"" << Y(0) << "\" x2=\"" << L << "\" y2=\"" << T << "\" stroke=\"black\"/>\n";
  os << "<text x=\"" << (W / 2) << "\" y=\"" << H - 12 << "\" text-anchor=\"middle\">op index</text>\n";
  os << "<text x=\"14\" y=\"" << H / 2 << "\" transform=\"rotate(-90 14 " << H / 2
     << ")\" text-anchor=\"middle\">arena offset (bytes)</text>\n";
  for (int k = 0; k <= 4; ++k) {
    double bytes = static_cast<double>(top) * k / 4;
    os << "<text x=\"" << L - 4 << "\" y=\"" << Y(bytes) + 4 << "\" text-anchor=\"end\">" << static_cast<int64_t>(bytes)
       << "</text>\n";
    double t = static_cast<double>(steps) * k / 4;
    os << "<text x=\"" << X(t) << "\" y=\"" << Y(0) + 16 << "\" text-anchor=\"middle\">" << static_cast<int64_t>(t)
       << "</text>\n";
  }
  // One rectangle per arena buffer; hover shows what it is.
  for (size_t k = 0; k < p.analysis.arena.size(); ++k) {
    const Buffer& b = p.analysis.buffers[static_cast<size_t>(p.analysis.arena[k])];
    double off = static_cast<double>(p.placement.offsets[k]);
    double hue = static_cast<double>((k * 47) % 360);
    os << "<rect x=\"" << X(static_cast<double>(b.first)) << "\" y=\"" << Y(off + static_cast<double>(b.bytes))
       << "\" width=\"" << std::max(1.0, X(static_cast<double>(b.last + 1)) - X(static_cast<double>(b.first)))
       << "\" height=\"" << std::max(1.0, Y(off) - Y(off + static_cast<double>(b.bytes))) << "\" fill=\"hsl(" << hue
       << ",60%,70%)\" stroke=\"black\" stroke-width=\"0.5\"><title>%" << XmlEscape(b.name) << ": " << b.bytes
       << " B, ops " << b.first << ".." << b.last << ", offset " << p.placement.offsets[k] << "</title></rect>\n";
  }
  // The live-bytes curves: their maxima are LOAD, after and before scheduling.
  auto curve = [&](const std::vector<int64_t>& live, const char* color, const char* dash, const char* title) {
    os << "<polyline fill=\"none\" stroke=\"" << color << "\" stroke-width=\"2\"" << dash << " points=\"";
    for (size_t t = 0; t < live.size() && static_cast<int64_t>(t) < steps; ++t)
      os << X(static_cast<double>(t)) << "," << Y(static_cast<double>(live[t])) << " " << X(static_cast<double>(t + 1))
         << "," << Y(static_cast<double>(live[t])) << " ";
    os << "\"><title>" << title << "</title></polyline>\n";
  };
  if (!p.unscheduled_live.empty())
    curve(p.unscheduled_live, "steelblue", " stroke-dasharray=\"6 3\"", "bytes live at each op in the traced order");
  curve(LiveBytesCurve(p.analysis), "crimson", "", "bytes live at each op (max = LOAD)");
  os << "<line x1=\"" << L << "\" y1=\"" << Y(static_cast<double>(p.arena_bytes())) << "\" x2=\"" << W - R << "\" y2=\""
     << Y(static_cast<double>(p.arena_bytes()))
     << "\" stroke=\"black\" stroke-dasharray=\"4 3\"><title>arena size</title></line>\n";
  os << "<text x=\"" << W - R << "\" y=\"" << T - 6
     << "\" text-anchor=\"end\" fill=\"crimson\">red: live bytes (LOAD curve); "
     << (p.unscheduled_live.empty() ? "" : "blue dashed: the traced op order; ") << "black dashed: arena</text>\n";
  os << "</svg>\n";
  return os.str();
}

}  // namespace atenaot
