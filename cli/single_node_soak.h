// File: single_node_soak.h
// `run --stage single-node --soak DURATION` on this node: the stage once,
// then again and again, until DURATION from the start, only its intrusive
// probes that measured a bandwidth (GPU copies, NCCL collectives, RDMA
// loopback, storage), each round in a worker of its own within --timeout.
// Every bandwidth figure (probe, measurement and its labels) becomes a
// series judged over time (probes/framework/soak_series.h): a GPU that
// throttles after twenty minutes, a loopback that steps down. The series
// go into a `soak` result added to the first round's report: its evidence
// holds each figure with its time, its measurements the spread and drift.
// The node's error counters (fault-counters: AER, RDMA ports, NVLink) are
// read at the soak's start and end, and their growth over its window is a
// `soak-counters` result where there is anything to count.
#pragma once

#include "absl/status/statusor.h"
#include "cli/run_command.h"
#include "nodeprobe/v1/result.pb.h"

namespace nodeprobe::cli {

absl::StatusOr<v1::StageReport> RunSingleNodeSoak(const RunOptions& options);

}  // namespace nodeprobe::cli
