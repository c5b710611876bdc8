// File: congestion_stage.h
// Deliberate congestion (`run --stage congestion`, opt-in): the nodes are
// cut into groups (congestion.group_size, 8), and inside each group
//   incast:     each node in turn receives from k others at once
//               (congestion.incast_senders; default the group's others),
//               with a latency probe from the first sender before the load
//               and during it;
//   all-to-all: every node sends to every other at once.
// Groups run at once; inside a group, one episode at a time. Each flow is
// the two-node stage's transfer on the first rail; its own bandwidth bar
// does not apply (under incast each flow gets a share), its counter
// findings do. Per receiver: the flows' sum against the receiver's bar,
// Jain's fairness index over the flows, the latency blow-up:
//   (its findings, with severity and remedy: coordinator/coordinator_findings.h)
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "coordinator/agent_registry.h"
#include "coordinator/pair_transfers.h"
#include "coordinator/stage.h"
#include "nodeprobe/v1/service.pb.h"
#include "probes/framework/profile.h"

namespace nodeprobe::coordinator {

// Jain's index (sum x)^2 / (n sum x^2): 1 when every flow got the same,
// 1/n when one got everything; 0 for no flows.
double JainIndex(const std::vector<double>& x);

// Groups of `size` over `n` nodes, in order; a remainder too small for a
// group of its own (< 3) joins the last group.
std::vector<std::vector<int>> CongestionGroups(int n, int size);

// Fills aggregate, fairness, findings and verdict of `r` from its flows
// and latencies.
// Each flow's rate over the window all of them ran in (lined up by their
// stamped first post, their 100 ms rates inside it averaged); empty, with
// `basis` saying why, when they cannot be lined up. `basis` says which.
std::vector<double> CommonWindowRates(const std::vector<const v1::TransferResult*>& rows,
                                      std::string* basis);

// `rail_rate_gbps`: the receiving rail's goodput (RailGoodputGbps), 0 when
// unknown; `rail_basis` how it was derived, for the bar's basis.
void JudgeCongestion(const Profile& profile, double rail_rate_gbps, v1::CongestionResult* r,
                     const std::string& rail_basis = "");

// Adds run->congestion (and findings about nodes that failed a task).
void RunCongestion(v1::StageRun* run, const std::vector<std::shared_ptr<AgentSession>>& nodes,
                   const std::vector<bool>& usable, const v1::RunStageRequest& request,
                   const Profile& profile, absl::Time deadline, const ProgressFn& progress);

// The congestion stage (`--stage congestion`): incast and all-to-all.
class CongestionStage : public Stage {
 public:
  std::string_view name() const override { return "congestion"; }
  bool Applies(const v1::RunStageRequest& r) const override { return r.stage() == v1::CONGESTION; }
  absl::Status CheckRequest(const v1::RunStageRequest& request, size_t nodes,
                            const Profile& profile) const override;
  void Measure(const StageContext& ctx) override;
};

}  // namespace nodeprobe::coordinator
