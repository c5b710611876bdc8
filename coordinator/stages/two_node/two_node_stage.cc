#include "coordinator/stages/two_node/two_node_stage.h"

#include <set>

#include "absl/strings/str_cat.h"
#include "coordinator/coordinator_findings.h"
#include "coordinator/pair_transfers.h"
#include "coordinator/peer_judgement.h"
#include "coordinator/soak.h"
#include "coordinator/soak_profile.h"
#include "probes/framework/result_util.h"

namespace nodeprobe::coordinator {
namespace {

// Nothing is FAIL from one sample: the rails whose first measurement shows
// a gap that could FAIL are measured again (both directions, no path MTU),
// the new pairs marked retest; JudgeTransfersAgainstPeers weighs the two.
void RetestTwoNodeGaps(v1::StageRun* run, AgentSession& a, AgentSession& b,
                       const v1::RunStageRequest& request, const Profile& profile,
                       absl::Time deadline, const ProgressFn& progress) {
  std::set<int> rails;
  for (const PairPlace& place : PlacesToRetest(profile, *run)) {
    rails.insert(RailIndex(place.to == a.node() ? a : b, place.rail));
  }
  if (rails.empty()) return;
  progress(absl::StrCat("retest of ", rails.size(), " rail(s) with a gap"));
  v1::StageRun again;
  *again.mutable_profile() = run->profile();  // the retest is judged as the first was
  MeasurePair(&again, a, b, request, deadline, progress, {rails.begin(), rails.end()}, false,
              /*path_mtu=*/false);
  for (v1::PairResult& p : *again.mutable_pairs()) p.set_retest(true);
  AppendOnce(run, std::move(again));
}

}  // namespace

void TwoNodeStage::Measure(const StageContext& c) {
  if (c.nodes.size() != 2 || !c.usable[0] || !c.usable[1]) return;
  AgentSession& a = *c.nodes[0];
  AgentSession& b = *c.nodes[1];
  MeasurePair(c.run, a, b, c.request, c.deadline, c.progress);
  RetestTwoNodeGaps(c.run, a, b, c.request, c.profile, c.deadline, c.progress);
  if (c.request.soak_s() > 0) {
    RunSoakRounds(c.run, a, b, c.request,
                  TimeOf(c.run->started()) + absl::Seconds(c.request.soak_s()), c.deadline,
                  c.progress);
  }
}

void TwoNodeStage::Judge(const v1::RunStageRequest& request, const Profile& profile,
                         v1::StageRun* run) const {
  if (request.soak_s() > 0) JudgeSoak(profile.Section<SoakRules>(), request.soak_s(), run);
  if (run->pairs_size() == 0 && run->findings_size() == 0) {
    AddFinding(run->mutable_findings(), findings::kNothingMeasured.code, v1::WARN, "",
               "no path MTU or transfer was measured between the nodes (check --rails and that "
               "both agents offer a rail)");
  }
}

}  // namespace nodeprobe::coordinator
