#include "coordinator/stages/cluster/pairing.h"

namespace nodeprobe::coordinator {

std::vector<Round> AllPairsRounds(int n) {
  std::vector<Round> rounds;
  if (n < 2) return rounds;
  const int m = n % 2 == 0 ? n : n + 1;  // m - 1 is the phantom when n is odd
  // Seats 0..m-1: seat 0 holds node 0 for good; in round r seat s (s >= 1)
  // holds node 1 + (s - 1 + r) mod (m - 1). Seat s meets seat m-1-s.
  auto at = [m](int seat, int r) { return seat == 0 ? 0 : 1 + (seat - 1 + r) % (m - 1); };
  for (int r = 0; r < m - 1; ++r) {
    Round round;
    for (int s = 0; s < m / 2; ++s) {
      const int a = at(s, r);
      const int b = at(m - 1 - s, r);
      if (a >= n || b >= n) continue;  // the phantom's partner sits out
      round.emplace_back(a, b);
    }
    rounds.push_back(std::move(round));
  }
  return rounds;
}

std::vector<Round> RingRounds(int n) {
  std::vector<Round> rounds;
  if (n < 2) return rounds;
  if (n == 2) return {{{0, 1}}};
  // Edges (i, i+1 mod n): even i in round 0, odd i in round 1; for odd n
  // the closing edge (n-1, 0) would meet node 0 twice, so it gets round 2.
  rounds.resize(n % 2 == 0 ? 2 : 3);
  for (int i = 0; i < n; ++i) {
    const int j = (i + 1) % n;
    const int round = (n % 2 == 1 && i == n - 1) ? 2 : i % 2;
    rounds[round].emplace_back(i, j);
  }
  return rounds;
}

std::vector<Round> Rounds(PairingPattern pattern, int n) {
  return pattern == PairingPattern::kRing ? RingRounds(n) : AllPairsRounds(n);
}

}  // namespace nodeprobe::coordinator
