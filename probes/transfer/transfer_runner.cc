#include "probes/transfer/transfer_runner.h"

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "probes/framework/result_util.h"
#include "probes/transfer/transfer_findings.h"

namespace nodeprobe::transfer {
namespace {

void AddFailure(const TransferPlan& plan, const RowOutcome& row,
                v1::ProbeResult* result) {
  const std::string peer = absl::StrCat(plan.peer.host, ":", plan.peer.port);
  const std::string where = absl::StrCat(row.result.size(), "-byte ",
                                         OpName(plan.request.op()), " row");
  const absl::Status& s = row.status;
  if (!row.started && s.code() == absl::StatusCode::kFailedPrecondition) {
    AddFinding(result, findings::kTransferRefused.code, peer,
               absl::StrCat("server ", peer, " refused the ", where, ": ", s.message()));
  } else if (!row.started) {
    AddFinding(result, findings::kTransferConnectFailed.code, peer,
               absl::StrCat("client could not start the ", where, " with server ", peer, ": ",
                            s.message()));
  } else if (s.code() == absl::StatusCode::kDeadlineExceeded) {
    AddFinding(result, findings::kTransferTimeout.code, peer,
               absl::StrCat("nothing moved between client and server ", peer, " for ",
                            absl::FormatDuration(plan.timeouts.idle), " during the ", where, " (",
                            s.message(), "): the peer hung or the link went down"));
  } else {
    AddFinding(result, findings::kTransferPeerLost.code, peer,
               absl::StrCat("server ", peer, " went away during the ", where, ": ", s.message()));
  }
}

}  // namespace

v1::ProbeResult RunTransfer(const TransferPlan& plan) {
  v1::ProbeResult result;
  v1::TransferReport* report = result.mutable_transfer();
  report->set_transport(plan.request.transport());
  report->set_op(plan.request.op());
  report->set_peer(absl::StrCat(plan.peer.host, ":", plan.peer.port));
  report->set_streams(plan.request.streams());
  const bool rdma = plan.request.transport() == v1::RDMA;
  if (rdma) {
    report->set_device(absl::StrCat(plan.rdma.device, ":", plan.rdma.port));
    report->set_port(plan.rdma.port);
    report->set_gid_index(static_cast<int32_t>(plan.rdma.gid.index));
    report->set_memory(plan.rdma.gpu >= 0 ? absl::StrCat("gpu ", plan.rdma.gpu) : "host");
    report->set_gid_reason(plan.request.rdma_cm()
                               ? "rdma_cm: the kernel chose device, port and GID from the "
                                 "route to the peer"
                               : plan.rdma.gid.reason);
  }
  for (uint64_t size : plan.sizes) {
    v1::TransferRequest req = plan.request;
    req.set_size(size);
    const CounterWindow counters(plan.counters, "client");
    RowOutcome row = rdma ? RunRdmaRow(plan.peer, req, plan.timeouts, plan.rdma)
                          : RunTcpRow(plan.peer, req, plan.timeouts);
    std::string unread;
    for (v1::CounterDelta& d : counters.Finish(&unread)) *row.result.add_counters() = d;
    if (!unread.empty()) row.result.add_counters_unread(unread);
    if (row.started || row.result.bytes() > 0) *report->add_results() = row.result;
    if (rdma && !row.memory.empty()) {
      // The method that registered it: "gpu 0 (dma-buf)" or "(peermem)".
      report->set_memory(plan.rdma.gpu >= 0
                             ? absl::StrCat("gpu ", plan.rdma.gpu, " (",
                                            row.memory.substr(row.memory.rfind(' ') + 1), ")")
                             : row.memory);
      report->set_relaxed_ordering(row.relaxed_ordering);
      report->set_inline_bytes(row.inline_bytes);
    }
    if (!row.status.ok()) {
      AddFailure(plan, row, &result);
      break;
    }
    const v1::TransferResult& r = row.result;
    std::map<std::string, std::string> labels = {{"size", absl::StrCat(size)},
                                                 {"op", OpName(plan.request.op())}};
    if (IsLatencyOp(plan.request.op())) {
      AddMeasurement(&result, "latency_median", r.latency().median_us(), "us", labels);
      AddMeasurement(&result, "latency_p99", r.latency().p99_us(), "us", labels);
    } else {
      AddMeasurement(&result, "bw_average", r.bw_avg_gbps(), "Gb/s", labels);
      AddMeasurement(&result, "bw_peak", r.bw_peak_gbps(), "Gb/s", labels);
      if (!rdma) {
        AddMeasurement(&result, "tcp_retransmits", static_cast<double>(r.tcp_retransmits()),
                       "segments", labels);
        AddMeasurement(&result, "tcp_rtt", r.tcp_rtt_us(), "us", labels);
      }
    }
  }
  return result;
}

uint64_t DefaultSize(v1::Transport transport, v1::TransferOp op, uint32_t streams) {
  if (IsLatencyOp(op)) return 2;
  if (transport != v1::TCP) return 64 * 1024;
  return streams > 1 ? 512 * 1024 : 1024 * 1024;
}

std::vector<uint64_t> AllSizes() {
  std::vector<uint64_t> out;
  for (uint64_t s = 2; s <= (8u << 20); s *= 2) out.push_back(s);
  return out;
}

absl::StatusOr<std::vector<uint64_t>> ParseSizeList(const std::string& text) {
  std::vector<uint64_t> out;
  for (absl::string_view part : absl::StrSplit(text, ',')) {
    std::string p(absl::StripAsciiWhitespace(part));
    if (p.empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat("empty size in '", text, "' (e.g. 4K,64K,1M: no empty items)"));
    }
    uint64_t mult = 1;
    if (!p.empty()) {
      char unit = static_cast<char>(absl::ascii_toupper(p.back()));
      if (unit == 'K' || unit == 'M' || unit == 'G') {
        mult = unit == 'K' ? 1024 : unit == 'M' ? 1024 * 1024 : 1024ull * 1024 * 1024;
        p.pop_back();
      }
    }
    uint64_t v = 0;
    if (!absl::SimpleAtoi(p, &v) || v == 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("bad size '", std::string(part), "' (e.g. 65536, 64K, 1M)"));
    }
    if (v > kMaxMessageSize / mult) {
      return absl::InvalidArgumentError(absl::StrCat(
          "size '", std::string(part), "' is above the 1 GiB maximum message size"));
    }
    out.push_back(v * mult);
  }
  if (out.empty()) return absl::InvalidArgumentError("no sizes given");
  return out;
}

v1::TransferOp OpFromName(const std::string& name) {
  for (v1::TransferOp op : {v1::STREAM_BW, v1::RR_LAT, v1::WRITE_BW, v1::READ_BW,
                            v1::SEND_BW, v1::WRITE_LAT}) {
    if (OpName(op) == name) return op;
  }
  return v1::OP_UNSPECIFIED;
}

std::string OpName(v1::TransferOp op) {
  return absl::AsciiStrToLower(v1::TransferOp_Name(op));
}

bool IsLatencyOp(v1::TransferOp op) { return op == v1::RR_LAT || op == v1::WRITE_LAT; }

}  // namespace nodeprobe::transfer
