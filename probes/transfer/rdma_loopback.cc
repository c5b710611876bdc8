#include "probes/transfer/rdma_loopback.h"

#include <algorithm>
#include <string.h>
#include <thread>

#include "absl/strings/str_cat.h"
#include "probes/rdma_devices/rdma_sysfs_parser.h"
#include "probes/transfer/rdma_loops.h"
#include "probes/transfer/transfer_stats.h"

namespace nodeprobe::transfer {
namespace {

// What one QP of the pair tells the other (the out-of-band exchange, in
// memory).
absl::StatusOr<platform::RemoteQp> Describe(const platform::VerbsQp& qp, const RdmaLocal& local,
                                            uint32_t psn) {
  platform::RemoteQp r;
  absl::StatusOr<std::vector<uint8_t>> gid = qp.Gid(static_cast<uint8_t>(local.gid.index));
  if (!gid.ok()) return gid.status();
  memcpy(r.gid, gid->data(), std::min<size_t>(16, gid->size()));
  r.lid = qp.lid();
  r.qpn = qp.qpn();
  r.psn = psn;
  r.rkey = qp.rkey();
  r.addr = qp.addr();
  r.active_mtu = qp.active_mtu();
  r.max_rd_atom = static_cast<uint32_t>(std::max(qp.max_qp_rd_atom(), 0));
  return r;
}

struct Pair {
  std::unique_ptr<platform::VerbsQp> a, b;
  platform::RemoteQp to_a, to_b;  // a's and b's descriptions
};

// Two QPs on local's port, connected to each other.
absl::StatusOr<Pair> OpenPair(const RdmaLocal& local, size_t bytes, platform::QpOptions a_opts,
                              platform::QpOptions b_opts) {
  Pair p;
  auto a = platform::VerbsQp::Open(local.device, local.port, bytes, a_opts);
  if (!a.ok()) return a.status();
  auto b = platform::VerbsQp::Open(local.device, local.port, bytes, b_opts);
  if (!b.ok()) return b.status();
  p.a = *std::move(a);
  p.b = *std::move(b);
  auto da = Describe(*p.a, local, 0x1000);
  if (!da.ok()) return da.status();
  auto db = Describe(*p.b, local, 0x2000);
  if (!db.ok()) return db.status();
  p.to_a = *da;
  p.to_b = *db;
  const uint8_t gid = static_cast<uint8_t>(local.gid.index);
  absl::Status s = p.a->Connect(p.to_b, local.use_grh, gid, p.to_a.psn);
  if (s.ok()) s = p.b->Connect(p.to_a, local.use_grh, gid, p.to_b.psn);
  if (!s.ok()) return s;
  return p;
}

v1::TransferReport Report(const RdmaLocal& local, v1::TransferOp op) {
  v1::TransferReport r;
  r.set_transport(v1::RDMA);
  r.set_op(op);
  r.set_peer("itself (loopback)");
  r.set_device(absl::StrCat(local.device, ":", local.port));
  r.set_port(local.port);
  r.set_gid_index(static_cast<int32_t>(local.gid.index));
  r.set_gid_reason(local.gid.reason);
  r.set_memory(local.gpu >= 0 ? absl::StrCat("gpu ", local.gpu) : "host");
  return r;
}

}  // namespace

LoopbackOutcome RunRdmaLoopback(const RdmaLocal& local, const LoopbackPlan& plan) {
  LoopbackOutcome out;
  out.write_bw = Report(local, v1::WRITE_BW);
  out.write_lat = Report(local, v1::WRITE_LAT);
  {
    platform::QpOptions sender;
    sender.relaxed_ordering = true;
    platform::QpOptions receiver;
    receiver.relaxed_ordering = true;
    (plan.gpu_receives ? receiver : sender).gpu = local.gpu;
    absl::StatusOr<Pair> pair = OpenPair(local, plan.bw_size, sender, receiver);
    if (!pair.ok()) {
      out.status = pair.status();
      return out;
    }
    const platform::VerbsQp& gpu_side = plan.gpu_receives ? *pair->b : *pair->a;
    out.write_bw.set_memory(local.gpu >= 0
                                ? absl::StrCat("gpu ", local.gpu, " (", gpu_side.memory(), ", ",
                                               plan.gpu_receives ? "the NIC writes into it"
                                                                 : "the NIC reads from it",
                                               ")")
                                : pair->a->memory());
    out.write_bw.set_relaxed_ordering(pair->a->relaxed_ordering());
    BwOutcome bw;
    BwLoop(*pair->a, pair->to_b, IBV_WR_RDMA_WRITE, plan.bw_size, 128, plan.bw_seconds,
           plan.idle, &bw);
    const BandwidthFigures f = bw.record.Figures(plan.bw_size);
    v1::TransferResult* row = out.write_bw.add_results();
    row->set_size(plan.bw_size);
    row->set_iterations(bw.record.count());
    row->set_bytes(bw.record.count() * plan.bw_size);
    row->set_seconds(f.seconds);
    row->set_bw_avg_gbps(f.avg_gbps);
    row->set_bw_peak_gbps(f.peak_gbps);
    row->set_bw_avg_mibps(f.avg_mibps);
    row->set_msg_rate_mpps(f.msg_rate_mpps);
    row->set_partial(!bw.status.ok());
    if (!bw.status.ok()) {
      out.status = bw.status;
      return out;
    }
  }
  if (!plan.latency) return out;
  platform::QpOptions lat;
  lat.inline_bytes = platform::kLatencyInlineBytes;
  absl::StatusOr<Pair> pair = OpenPair(local, 2 * plan.lat_size, lat, lat);
  if (!pair.ok()) {
    out.status = pair.status();
    return out;
  }
  out.write_lat.set_inline_bytes(pair->a->max_inline());
  const uint64_t posts = plan.lat_warmup + plan.lat_iterations + 1;
  absl::Status responder;
  std::thread peer([&] {
    responder = PingPong(*pair->b, pair->to_a, plan.lat_size, posts, false, plan.idle, nullptr, 0);
  });
  std::vector<int64_t> rtts;
  absl::Status s = PingPong(*pair->a, pair->to_b, plan.lat_size, posts, true, plan.idle, &rtts,
                            plan.lat_warmup);
  peer.join();
  v1::TransferResult* row = out.write_lat.add_results();
  row->set_size(plan.lat_size);
  row->set_iterations(rtts.size());
  *row->mutable_latency() = ComputeLatency(rtts);
  if (s.ok()) s = responder;
  row->set_partial(!s.ok());
  out.status = s;
  return out;
}

absl::StatusOr<GidChoice> SelectLoopbackGid(const std::vector<GidCandidate>& table,
                                            const std::string& link_layer) {
  if (link_layer == "InfiniBand") return SelectGid(table, link_layer, "", {}, std::nullopt);
  const GidCandidate* v2 = nullptr;
  const GidCandidate* any = nullptr;
  for (const GidCandidate& g : table) {
    if (g.gid.empty()) continue;
    if (any == nullptr) any = &g;
    if (g.type != "RoCE v2") continue;
    if (!rdma::GidIpv4Address(g.gid).empty()) {
      return GidChoice{g.index, g.type,
                       absl::StrCat("RoCE v2 GID ", g.index, " (", rdma::GidIpv4Address(g.gid),
                                    "); a loopback needs no route")};
    }
    if (v2 == nullptr) v2 = &g;
  }
  const GidCandidate* pick = v2 ? v2 : any;
  if (pick == nullptr) {
    return absl::FailedPreconditionError("the port's GID table is empty: the RDMA driver "
                                         "gave it no GID (is its netdev up?)");
  }
  return GidChoice{pick->index, pick->type,
                   absl::StrCat(pick->type, " GID ", pick->index, " (", pick->gid,
                                "): link-local is enough to turn around inside the HCA")};
}

}  // namespace nodeprobe::transfer
