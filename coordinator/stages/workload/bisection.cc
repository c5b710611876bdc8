#include "coordinator/stages/workload/bisection.h"

#include <algorithm>
#include <numeric>

namespace nodeprobe::coordinator {
namespace {

using Units = std::vector<int>;  // indices into the units

class Search {
 public:
  Search(const std::vector<std::vector<int>>& units, const SlowOn& slow, int max_runs)
      : units_(units), slow_(slow), max_runs_(max_runs) {}

  Bisection Run() {
    Units all(units_.size());
    std::iota(all.begin(), all.end(), 0);
    if (!all.empty()) Find(all);
    return std::move(out_);
  }

 private:
  std::vector<int> Nodes(const Units& u) const {
    std::vector<int> out;
    for (int i : u) out.insert(out.end(), units_[i].begin(), units_[i].end());
    std::sort(out.begin(), out.end());
    return out;
  }
  std::optional<bool> Measure(const Units& u) {
    if (static_cast<int>(out_.runs.size()) >= max_runs_) return std::nullopt;
    const std::vector<int> nodes = Nodes(u);
    std::optional<bool> s = slow_(nodes);
    if (s) out_.runs.push_back({nodes, *s});
    return s;
  }
  static std::pair<Units, Units> Halves(const Units& u) {
    const auto mid = u.begin() + static_cast<long>(u.size() / 2);
    return {Units(u.begin(), mid), Units(mid, u.end())};
  }
  static Units Union(const Units& a, const Units& b) {
    Units out = a;
    out.insert(out.end(), b.begin(), b.end());
    return out;
  }
  void Set(const Units& u) {
    out_.kind = Bisection::kSet;
    out_.set = Nodes(u);
  }

  // `u` is slow: which part of it.
  void Find(const Units& u) {
    if (u.size() <= 2) return Resolve(u);
    const auto [a, b] = Halves(u);
    const std::optional<bool> slow_a = Measure(a);
    if (!slow_a) return;
    if (*slow_a) return Find(a);
    const std::optional<bool> slow_b = Measure(b);
    if (!slow_b) return;
    if (*slow_b) return Find(b);
    Between(a, b);
  }

  // One or two units, slow together: each beside a unit outside them.
  void Resolve(const Units& u) {
    if (u.size() == 1) return Set(u);
    Units outside;
    for (int i = 0; i < static_cast<int>(units_.size()) && outside.empty(); ++i) {
      if (std::find(u.begin(), u.end(), i) == u.end()) outside.push_back(i);
    }
    if (outside.empty()) return Set(u);  // the only two: together
    for (int x : u) {
      const std::optional<bool> s = Measure(Union({x}, outside));
      if (!s) return;
      if (*s) return Set({x});
    }
    out_.kind = Bisection::kBetween;
    out_.a = Nodes({u[0]});
    out_.b = Nodes({u[1]});
  }

  // Fine alone, slow together: narrow each side against the other.
  void Between(Units a, Units b) {
    if (!Narrow(a, b) || !Narrow(b, a)) return;
    out_.kind = Bisection::kBetween;
    out_.a = Nodes(a);
    out_.b = Nodes(b);
  }
  // False when a run could not be made.
  bool Narrow(Units& side, const Units& other) {
    while (side.size() > 2) {
      const auto [s1, s2] = Halves(side);
      const std::optional<bool> r1 = Measure(Union(s1, other));
      if (!r1) return false;
      if (!*r1) {
        side = s2;
        continue;
      }
      const std::optional<bool> r2 = Measure(Union(s2, other));
      if (!r2) return false;
      if (!*r2) {
        side = s1;
        continue;
      }
      break;  // both parts slow with the other: the side is whole
    }
    return true;
  }

  const std::vector<std::vector<int>>& units_;
  const SlowOn& slow_;
  const int max_runs_;
  Bisection out_;
};

}  // namespace

Bisection Bisect(const std::vector<std::vector<int>>& units, const SlowOn& slow, int max_runs) {
  return Search(units, slow, max_runs).Run();
}

}  // namespace nodeprobe::coordinator
