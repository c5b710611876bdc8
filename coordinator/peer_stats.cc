#include "coordinator/peer_stats.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <set>

#include "platform/statistics.h"

namespace nodeprobe::coordinator {

namespace {

using stats::Median;

// What a unit can do in one role: its best partner's figure, or the second
// best with four or more partners (one lucky sample does not set it).
double Capability(std::vector<double> per_partner, bool latency) {
  if (per_partner.empty()) return 0;
  if (latency) {
    std::sort(per_partner.begin(), per_partner.end());
  } else {
    std::sort(per_partner.begin(), per_partner.end(), std::greater<double>());
  }
  return per_partner[per_partner.size() >= 4 ? 1 : 0];
}

}  // namespace

PeerReference ReferenceOf(const std::vector<PeerSample>& samples, bool latency) {
  PeerReference ref;
  ref.samples = samples.size();
  if (samples.empty()) return ref;
  // Per unit and role, the measurements with each partner.
  std::map<int, std::map<int, std::vector<double>>> sent, received;
  for (const PeerSample& s : samples) {
    sent[s.from][s.to].push_back(s.value);
    received[s.to][s.from].push_back(s.value);
  }
  std::map<int, double> send_capability, receive_capability;
  std::vector<double> capabilities;
  for (auto [role, out] : {std::pair{&sent, &send_capability}, {&received, &receive_capability}}) {
    for (const auto& [unit, partners] : *role) {
      std::vector<double> per_partner;
      for (const auto& [partner, v] : partners) per_partner.push_back(Median(v));
      (*out)[unit] = Capability(per_partner, latency);
      capabilities.push_back((*out)[unit]);
    }
  }
  std::set<int> units;
  for (const PeerSample& s : samples) {
    units.insert(s.from);
    units.insert(s.to);
  }
  ref.nodes = units.size();
  ref.value = Median(capabilities);
  // The noise: how the measurements between sound ends scatter (MAD x
  // 1.4826, relative to their median). An end is sound in its role when
  // even its best partner got at least half the reference (at most twice,
  // for latency): a fault is not noise, and left in, a bad node (half the
  // measurements of a 4-node run) would pass for scatter.
  auto sound = [&](double capability) {
    return latency ? capability <= 2 * ref.value : capability >= ref.value / 2;
  };
  std::vector<double> between_sound;
  for (const PeerSample& s : samples) {
    if (sound(send_capability[s.from]) && sound(receive_capability[s.to])) {
      between_sound.push_back(s.value);
    }
  }
  const double center = Median(between_sound);
  ref.spread = center > 0 ? stats::RelativeMad(between_sound, center) : 0;
  std::vector<double> cvs;
  for (const PeerSample& s : samples) cvs.push_back(s.cv);
  ref.cv = Median(cvs);
  return ref;
}

double NoiseOf(const PeerReference& ref, double cv) { return std::max({ref.spread, ref.cv, cv}); }

bool LowAgainst(double value, double cv, const PeerReference& ref, double min_fraction,
                double sigmas) {
  if (ref.value <= 0) return false;
  return value < min_fraction * ref.value &&
         ref.value - value > sigmas * NoiseOf(ref, cv) * ref.value;
}

bool HighAgainst(double value, double cv, const PeerReference& ref, double max_ratio,
                 double sigmas) {
  if (ref.value <= 0) return false;
  return value > max_ratio * ref.value &&
         value - ref.value > sigmas * NoiseOf(ref, cv) * ref.value;
}

bool LowAgainstOther(double value, double cv, double other, double other_cv, double spread,
                     double min_fraction, double sigmas) {
  if (other <= 0) return false;
  const double noise = std::max({spread, std::hypot(cv, other_cv)});
  return value < min_fraction * other && other - value > sigmas * noise * other;
}

}  // namespace nodeprobe::coordinator
