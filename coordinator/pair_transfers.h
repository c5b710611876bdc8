// File: pair_transfers.h
// What every multi-node stage measures with, below the stages: a rail
// pair's transfers in each direction (TCP where a node has no RDMA rail),
// the tasks that run them on the agents, rails by name and address, and
// how a node lost mid-stage is recorded. Every wait has the stage's
// deadline; an agent lost mid-stage ends its part with AGENT_LOST
// (TASK_TIMEOUT when it stops answering) and the other nodes' results are
// kept.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "coordinator/agent_registry.h"
#include "coordinator/stage.h"
#include "nodeprobe/v1/service.pb.h"
#include "probes/framework/profile.h"

namespace nodeprobe::coordinator {

// ProgressFn, CheckpointFn, AgentFinder, kMaxConcurrentAsks: stage.h.

// What the two-node stage measures between two nodes, added to `run`: for
// each selected rail pair (rails pair by order; `only_rails` narrows them
// when not empty) and each direction, the path MTU, then a transfer (RDMA
// WRITE when both ends are RDMA ports with an address, TCP otherwise). A
// node that fails a task ends the pair with AGENT_LOST/TASK_TIMEOUT. With
// `latency`, each direction also gets a one-second latency test; without
// `path_mtu` (a retest), no path-MTU probing.
void MeasurePair(v1::StageRun* run, AgentSession& a, AgentSession& b,
                 const v1::RunStageRequest& request, absl::Time deadline,
                 const ProgressFn& progress, const std::vector<int>& only_rails = {},
                 bool latency = false, bool path_mtu = true);

// Records why a node's part of a stage ended early: AGENT_LOST when it is
// gone (UNAVAILABLE), TASK_TIMEOUT when it did not answer in time.
void NodeFailed(v1::StageRun* run, const std::string& node, const absl::Status& s,
                const std::string& during);

// Adds a part of a run measured on its own (a round's pair, a congestion
// group) to `run`: its pairs and congestion results, and each finding
// about a node once, however many parts it ended.
void AppendOnce(v1::StageRun* run, v1::StageRun part);

// The rail the congestion and failure stages load on each receiver: its
// first; each sender sends from its rail of the same name (SenderRail).
inline constexpr int kFirstRail = 0;

// Tasks for one direction of a rail: `to` serves (ServeTask; its first
// answer is the endpoint), `from` runs (TransferTask) against the served
// port. RDMA when both ends of the rail are RDMA ports with an address
// (WRITE_BW, or WRITE_LAT for a latency op), TCP otherwise (STREAM_BW or
// RR_LAT), for `seconds`.
bool RdmaRail(const AgentSession& from, const AgentSession& to, int rail);
// Rails of two nodes paired by identity (the same name), not by position.
bool RdmaRail(const AgentSession& from, int from_rail, const AgentSession& to, int to_rail);
v1::Task ServeTask(const AgentSession& to, int rail);
v1::Task TransferTask(const AgentSession& from, const AgentSession& to, int rail,
                      uint32_t server_port, v1::TransferOp op, double seconds);
v1::Task TransferTask(const AgentSession& from, int from_rail, const AgentSession& to, int to_rail,
                      uint32_t server_port, v1::TransferOp op, double seconds);

// What a transfer from `from`'s `from_rail` into `to`'s `to_rail` is
// recorded under: the rail's name when the traffic is the rail's (RDMA on
// its devices, or TCP to its own address), "management" when TCP would go
// to the agent's address instead, "tcp" for a node without rails.
std::string MeasuredPath(const AgentSession& from, int from_rail, const AgentSession& to,
                         int to_rail);

// A transfer task's buffer on the GPU nearest `node`'s rail `rail`
// (Rail.gpu_bus_id; the node resolves it to a CUDA ordinal); unchanged when
// the rail names none (a node without GPUs).
void OnRailGpu(const AgentSession& node, int rail, v1::Task* task);

// The rail of `from` whose traffic goes into rail `to_rail` of `to`: the
// one of the same name (rails pair by identity), else the same position.
int SenderRail(const AgentSession& from, const AgentSession& to, int to_rail);
// A transfer from `from`'s `from_rail` into `to`'s `to_rail`: WRITE_BW when
// RDMA can run between them, else STREAM_BW; RR_LAT (WRITE_LAT on RDMA)
// with `latency`; in the class and SL NCCL will use (SetTrafficClass).
v1::Task RailTransferTask(const v1::AcceptanceProfile& profile, const AgentSession& from,
                          int from_rail, const AgentSession& to, int to_rail, uint32_t server_port,
                          bool latency, double seconds);
// The same from `from`'s SenderRail: what the congestion and failure
// stages load.
v1::Task IntoRailTask(const v1::AcceptanceProfile& profile, const AgentSession& from,
                      const AgentSession& to, int to_rail, uint32_t server_port, bool latency,
                      double seconds);

// An RDMA transfer task runs in the traffic class and service level NCCL
// will use (the profile's designed RoCE class, NCCL_IB_SL): every stage's
// transfers, not only two-node's, measure the class the job gets.
void SetTrafficClass(const v1::AcceptanceProfile& profile, v1::Task* go);

// The index of the rail called `rail_name` among `session`'s rails (a
// PairResult names the receiving end's rail); 0 for "tcp".
int RailIndex(const AgentSession& session, const std::string& rail_name);

// The address a rail's traffic should go to on `session`'s node: the rail's
// first IPv4 address, else the address the agent connected from.
// INVALID_ARGUMENT when --rails names a rail neither node has (with the
// rails they do have).
absl::Status CheckRails(const v1::RunStageRequest& request,
                        const std::vector<std::shared_ptr<AgentSession>>& nodes);

std::string RailAddress(const AgentSession& session, int rail_index);

// One latency probe from `from` to `to` (a server of its own on `to`'s
// first rail), `seconds` long; nullopt when a node failed it (said in
// `part` as AGENT_LOST/TASK_TIMEOUT). The storage storm's too.
std::optional<v1::LatencyStats> LatencyProbe(v1::StageRun* part, AgentSession& from,
                                             AgentSession& to, double seconds, absl::Time deadline);

}  // namespace nodeprobe::coordinator
