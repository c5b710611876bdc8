#include "probes/transfer/transfer_task.h"

#include <algorithm>
#include <cmath>
#include <functional>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "platform/file_tree.h"
#include "platform/gpu_memory.h"
#include "platform/route.h"
#include "probes/framework/result_util.h"
#include "probes/transfer/clock_cost.h"
#include "probes/transfer/counter_deltas.h"
#include "probes/transfer/expectations.h"
#include "probes/transfer/transfer_findings.h"
#include "probes/transfer/transfer_runner.h"

namespace nodeprobe::transfer {

absl::Status ValidateTransfer(const v1::RunTransfer& t, absl::Duration max_run) {
  const v1::TransferRequest& r = t.request();
  const bool rdma = r.transport() == v1::RDMA;
  const bool tcp_op = r.op() == v1::STREAM_BW || r.op() == v1::RR_LAT;
  if (r.transport() == v1::TRANSPORT_UNSPECIFIED || r.op() == v1::OP_UNSPECIFIED ||
      tcp_op == rdma) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--op ", OpName(r.op()), " is not a ", rdma ? "rdma" : "tcp",
        " operation (tcp: stream_bw, rr_lat; rdma: write_bw, read_bw, send_bw, write_lat)"));
  }
  if (t.peer_host().empty() || t.peer_port() == 0 || t.peer_port() > 65535) {
    return absl::InvalidArgumentError("--peer needs a host and a port 1..65535");
  }
  if (!std::isfinite(r.duration_s()) || r.duration_s() < 0.05 || r.duration_s() > 3600) {
    return absl::InvalidArgumentError(
        absl::StrCat("--duration ", r.duration_s(), " is not a number of seconds in 0.05 .. 3600"));
  }
  if (r.streams() < 1 || r.streams() > 128) {
    return absl::InvalidArgumentError("--streams must be 1 .. 128");
  }
  if (rdma && (r.tx_depth() < 1 || r.tx_depth() > 8192)) {
    return absl::InvalidArgumentError("--tx-depth must be 1 .. 8192");
  }
  for (uint64_t size : t.sizes()) {
    if (size == 0 || size > kMaxMessageSize) {
      return absl::InvalidArgumentError(
          absl::StrCat("message size ", size, " is outside 1 B .. 1 GiB"));
    }
  }
  if (r.warmup() >= (1ull << 32)) {
    return absl::InvalidArgumentError("--warmup is absurdly large (at most 2^32)");
  }
  // A message takes at least about a microsecond on any fabric, so more
  // messages than microseconds in the run's budget can never finish.
  const double budget_us = absl::ToDoubleMicroseconds(max_run);
  const int rows = std::max(1, t.sizes_size());  // none: one default size
  const double messages = static_cast<double>(r.iterations() + r.warmup()) * rows;
  if (messages > budget_us) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--iterations ", r.iterations(), " x ", rows,
        " sizes could not finish within ", absl::FormatDuration(max_run),
        " (at least 1 us a message); ask for fewer"));
  }
  if (t.port() > 255) return absl::InvalidArgumentError("--ib-port must be 1 .. 255");
  if (t.port() != 0 && t.device().empty()) {
    return absl::InvalidArgumentError("--ib-port needs the --device it belongs to");
  }
  if (t.has_gpu() && t.gpu() > 1023) return absl::InvalidArgumentError("--gpu must be 0 .. 1023");
  if (r.traffic_class() > 255) {
    return absl::InvalidArgumentError("--tc must be 0 .. 255 (DSCP << 2, e.g. 106 for DSCP 26)");
  }
  if (r.service_level() > 15) return absl::InvalidArgumentError("--sl must be 0 .. 15");
  if (r.traffic_class() != 0 && !rdma) {
    return absl::InvalidArgumentError("--tc applies to RDMA (set TCP's DSCP with the host's policy)");
  }
  if (t.has_gpu() && !rdma) {
    return absl::InvalidArgumentError(
        "--gpu needs --transport rdma (GPU memory moves over GPUDirect RDMA)");
  }
  return absl::OkStatus();
}

absl::StatusOr<int> BufferGpu(std::optional<uint32_t> ordinal, const std::string& bus_id) {
  if (ordinal) return static_cast<int>(*ordinal);
  if (bus_id.empty()) return -1;
  absl::StatusOr<int> found = platform::GpuMemory::OrdinalOfPciBus(bus_id);
  if (!found.ok()) {
    return absl::FailedPreconditionError(absl::StrCat(
        "the rail's GPU ", bus_id, " cannot take the buffer: ", found.status().message()));
  }
  return *found;
}

v1::ProbeResult RunTransferTask(const v1::RunTransfer& t, absl::Duration idle_timeout,
                                const Profile& profile) {
  TransferPlan plan;
  plan.peer.host = t.peer_host();
  plan.peer.port = static_cast<uint16_t>(t.peer_port());
  plan.request = t.request();
  plan.sizes.assign(t.sizes().begin(), t.sizes().end());
  if (plan.sizes.empty()) {
    plan.sizes = {DefaultSize(t.request().transport(), t.request().op(), t.request().streams())};
  }
  plan.timeouts.idle = idle_timeout;
  v1::ProbeResult result;
  absl::StatusOr<platform::Egress> egress = platform::EgressTo(t.peer_host());
  if (plan.request.transport() == v1::RDMA) {
    absl::StatusOr<RdmaLocal> local =
        egress.ok() ? ChooseRdmaLocal(*egress, t.device(),
                                      t.has_gid_index()
                                          ? std::optional<uint32_t>(t.gid_index())
                                          : std::nullopt,
                                      t.port())
                    : absl::StatusOr<RdmaLocal>(egress.status());
    if (!local.ok()) {
      result = ErrorResult("transfer", findings::kTransferNoRdmaDevice.code,
                           std::string(local.status().message()));
      v1::TransferReport* report = result.mutable_transfer();
      report->set_transport(v1::RDMA);
      report->set_op(plan.request.op());
      report->set_peer(absl::StrCat(t.peer_host(), ":", t.peer_port()));
      return result;
    }
    plan.rdma = *local;
    absl::StatusOr<int> gpu = BufferGpu(
        t.has_gpu() ? std::optional<uint32_t>(t.gpu()) : std::nullopt, t.gpu_bus_id());
    if (!gpu.ok()) {
      result = ErrorResult("transfer", findings::kTransferGpuNotUsable.code,
                           std::string(gpu.status().message()));
      result.mutable_transfer()->set_transport(v1::RDMA);
      result.mutable_transfer()->set_op(plan.request.op());
      return result;
    }
    plan.rdma.gpu = *gpu;
  }
  // The counters around each row, what the fabric did meanwhile: the RDMA
  // port's, or for TCP the egress interface's (statistics and ethtool);
  // the server reads its own and sends them back.
  const std::string sys_root = t.sys_root().empty() ? "/sys" : t.sys_root();
  if (plan.request.transport() == v1::RDMA) {
    plan.counters = RdmaCounterSource(sys_root, plan.rdma.device, plan.rdma.port);
  } else if (egress.ok()) {
    plan.counters = NetdevCounterSource(sys_root, egress->netdev);
  } else {
    plan.counters.why_none = std::string(egress.status().message());
  }
  result = RunTransfer(plan);
  result.set_probe("transfer");
  result.mutable_transfer()->set_traffic_class(plan.request.traffic_class());
  JudgeTransferCounters(result.transfer(), plan.request.bidirectional(), profile, &result);
  // A latency figure includes one clock read per round trip: say what it costs.
  if (IsLatencyOp(plan.request.op())) {
    const ClockCost cost = MeasureClockCost();
    SubtractClockCost(cost, result.mutable_transfer());
    JudgeClockCost(cost, &result);
  }
  LinkFacts facts;
  if (plan.request.transport() == v1::RDMA) {
    // The port's own active MTU: the RoCE/IB header share depends on it
    // (0 made the bar assume 1024, about 5% low at 4096).
    facts = LiveRdmaLinkFacts("/sys", plan.rdma.device, plan.rdma.port);
  } else if (egress.ok()) {
    facts = TcpLinkFacts("/sys", egress->netdev);
  } else {
    facts.unknown_why = absl::StrCat("no route to ", t.peer_host());
  }
  facts.directions = plan.request.bidirectional() ? 2 : 1;
  JudgeAgainstExpectation(profile, facts, &result);
  return result;
}

}  // namespace nodeprobe::transfer
