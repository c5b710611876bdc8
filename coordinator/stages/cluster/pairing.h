// File: pairing.h
// Which nodes meet in which round of a cluster stage.
//   all-pairs: a round-robin tournament by the circle method: node 0 stays,
//     the others rotate one place per round. n even: n-1 rounds of n/2
//     pairs; n odd: a phantom node makes it even, and its partner idles, so
//     n rounds of (n-1)/2 pairs. Every unordered pair meets exactly once and
//     no node is in two pairs of a round, so a round's pairs run at once and
//     the stage takes rounds x pair time, not n(n-1)/2 x pair time.
//   ring: each node with its ring neighbour (i, i+1 mod n): 2 rounds for
//     even n, 3 for odd n (n > 2); 1 round of one pair for n = 2.
// A pair is measured both ways by the caller; the order inside a pair only
// says who serves first.
#pragma once

#include <utility>
#include <vector>

namespace nodeprobe::coordinator {

using NodePair = std::pair<int, int>;  // indices into the run's node list
using Round = std::vector<NodePair>;

enum class PairingPattern { kAllPairs, kRing };

std::vector<Round> AllPairsRounds(int n);
std::vector<Round> RingRounds(int n);
std::vector<Round> Rounds(PairingPattern pattern, int n);

}  // namespace nodeprobe::coordinator
