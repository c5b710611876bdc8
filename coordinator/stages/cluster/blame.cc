#include "coordinator/stages/cluster/blame.h"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

namespace nodeprobe::coordinator {
namespace {

using Unit = std::pair<int, int>;  // node, rail

struct Share {
  std::set<int> partners;
  std::set<int> low_partners;
  std::vector<int> low;  // measurement indices
};

}  // namespace

std::map<std::string, PeerReference> ReferencesOf(const std::vector<Measurement>& m) {
  std::map<std::string, std::vector<PeerSample>> samples;
  std::map<std::string, bool> latency;
  std::map<std::pair<int, int>, int> unit;  // (node, rail) -> id
  auto id = [&](int node, int rail) {
    return unit.emplace(std::pair{node, rail}, static_cast<int>(unit.size())).first->second;
  };
  for (const Measurement& x : m) {
    samples[x.kind].push_back({id(x.from, x.rail), id(x.to, x.rail), x.gbps, x.cv});
    latency[x.kind] = x.latency;
  }
  std::map<std::string, PeerReference> out;
  for (const auto& [kind, s] : samples) out[kind] = ReferenceOf(s, latency[kind]);
  return out;
}

bool IsLow(const Measurement& x, const PeerReference& ref, const BlameRules& rules) {
  return x.latency ? HighAgainst(x.gbps, x.cv, ref, rules.max_latency_ratio, rules.noise_sigmas)
                   : LowAgainst(x.gbps, x.cv, ref, rules.min_fraction_of_peers, rules.noise_sigmas);
}

namespace {

// 1. Greedy (node, rail) suspects: the unit low with the largest share of
// its partners above rules.suspect_share, again and again, each taking the
// low measurements it explains.
std::map<Unit, Suspect> UnitSuspects(const std::vector<Measurement>& m,
                                     const std::vector<bool>& low, const BlameRules& rules,
                                     std::vector<bool>* explained_out) {
  std::vector<bool>& explained = *explained_out;
  std::map<Unit, Suspect> unit_suspects;
  while (true) {
    std::map<Unit, Share> shares;
    for (size_t i = 0; i < m.size(); ++i) {
      if (explained[i]) continue;
      const Measurement& x = m[i];
      for (auto [self, other] : {std::pair{x.from, x.to}, std::pair{x.to, x.from}}) {
        Share& s = shares[{self, x.rail}];
        s.partners.insert(other);
        if (low[i]) {
          s.low_partners.insert(other);
          s.low.push_back(static_cast<int>(i));
        }
      }
    }
    const Share* pick = nullptr;
    Unit pick_unit;
    double pick_share = rules.suspect_share;
    for (const auto& [unit, s] : shares) {
      if (s.partners.size() < 2 || unit_suspects.count(unit)) continue;
      const double share = static_cast<double>(s.low_partners.size()) / s.partners.size();
      // Ties go to the unit with more low partners, then the lower index.
      if (share > pick_share ||
          (pick && share == pick_share && s.low_partners.size() > pick->low_partners.size())) {
        pick = &s;
        pick_unit = unit;
        pick_share = share;
      }
    }
    if (!pick) break;
    Suspect sus;
    sus.kind = Suspect::kRail;
    sus.node = pick_unit.first;
    sus.rail = pick_unit.second;
    sus.low = static_cast<int>(pick->low_partners.size());
    sus.partners = static_cast<int>(pick->partners.size());
    sus.evidence = pick->low;
    for (int i : pick->low) explained[i] = true;
    unit_suspects[pick_unit] = std::move(sus);
  }

  return unit_suspects;
}

// 3. What is left low is the link between the two.
void AddLinkSuspects(const std::vector<Measurement>& m, const std::vector<bool>& low,
                     const std::vector<bool>& explained, std::vector<Suspect>* out) {
  std::map<std::tuple<int, int, int>, Suspect> links;
  for (size_t i = 0; i < m.size(); ++i) {
    if (!low[i] || explained[i]) continue;
    const int a = std::min(m[i].from, m[i].to);
    const int b = std::max(m[i].from, m[i].to);
    Suspect& s = links[{a, b, m[i].rail}];
    s.kind = Suspect::kLink;
    s.node = a;
    s.other = b;
    s.rail = m[i].rail;
    s.low = 1;
    s.partners = 1;
    s.evidence.push_back(static_cast<int>(i));
  }
  for (auto& [key, s] : links) out->push_back(std::move(s));
}

}  // namespace

std::vector<Suspect> FindSuspects(const std::vector<Measurement>& m, const BlameRules& rules) {
  const std::map<std::string, PeerReference> refs = ReferencesOf(m);
  std::vector<bool> low(m.size()), explained(m.size(), false);
  for (size_t i = 0; i < m.size(); ++i) low[i] = IsLow(m[i], refs.at(m[i].kind), rules);

  std::map<int, std::set<int>> rails_of;  // node -> rails it measured
  for (const Measurement& x : m) {
    rails_of[x.from].insert(x.rail);
    rails_of[x.to].insert(x.rail);
  }
  std::map<Unit, Suspect> unit_suspects = UnitSuspects(m, low, rules, &explained);
  // 2. A node suspect on every rail it measured is the suspect itself.
  std::vector<Suspect> out;
  std::map<int, std::vector<Suspect>> by_node;
  for (auto& [unit, s] : unit_suspects) by_node[unit.first].push_back(std::move(s));
  for (auto& [node, list] : by_node) {
    if (list.size() == rails_of[node].size()) {
      Suspect whole;
      whole.kind = Suspect::kNode;
      whole.node = node;
      for (const Suspect& s : list) {
        whole.low = std::max(whole.low, s.low);
        whole.partners = std::max(whole.partners, s.partners);
        whole.evidence.insert(whole.evidence.end(), s.evidence.begin(), s.evidence.end());
      }
      std::sort(whole.evidence.begin(), whole.evidence.end());
      out.push_back(std::move(whole));
    } else {
      for (Suspect& s : list) out.push_back(std::move(s));
    }
  }

  AddLinkSuspects(m, low, explained, &out);
  return out;
}

}  // namespace nodeprobe::coordinator
