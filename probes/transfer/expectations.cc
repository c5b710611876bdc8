#include "probes/transfer/expectations.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "platform/file_tree.h"
#include "platform/verbs_port.h"
#include "probes/framework/result_util.h"
#include "probes/pcie/pcie_link.h"
#include "probes/rdma_devices/rdma_sysfs_parser.h"
#include "probes/transfer/transfer_findings.h"
#include "probes/transfer/transfer_profile.h"
#include "probes/transfer/transfer_runner.h"

namespace nodeprobe::transfer {
namespace {

constexpr int kEthernetWire = 14 + 4 + 8 + 12;  // header, FCS, preamble, gap

// The NIC's PCIe link under `device_dir` (a sysfs device directory), as a
// payload rate in Gb/s; 0 when unknown.
double PcieOf(const platform::FileTree& sys, const std::string& device_dir) {
  std::optional<pcie::PcieLink> link = pcie::ReadCurrentLink(sys, device_dir);
  return link ? PcieGoodputGbps(link->gts, link->width) : 0;
}

std::optional<double> ProfileBar(const TransferBars& t, v1::Transport transport,
                                 v1::TransferOp op) {
  if (transport == v1::TCP && op == v1::STREAM_BW) return t.tcp_stream_min_gbps;
  if (transport == v1::TCP && op == v1::RR_LAT) return t.tcp_rr_lat_max_us;
  if (op == v1::WRITE_BW) return t.rdma_write_bw_min_gbps;
  if (op == v1::READ_BW) return t.rdma_read_bw_min_gbps;
  if (op == v1::SEND_BW) return t.rdma_send_bw_min_gbps;
  if (op == v1::WRITE_LAT) return t.rdma_write_lat_max_us;
  return std::nullopt;
}

std::string ProfileKey(v1::Transport transport, v1::TransferOp op) {
  if (transport == v1::TCP) return op == v1::RR_LAT ? "tcp_rr_lat_max_us" : "tcp_stream_min_gbps";
  if (op == v1::WRITE_LAT) return "rdma_write_lat_max_us";
  return absl::StrCat("rdma_", OpName(op), "_min_gbps");
}

}  // namespace

double TcpGoodputFraction(int mtu) {
  if (mtu <= 52) return 0;
  return static_cast<double>(mtu - 52) / (mtu + kEthernetWire);
}

double RoceGoodputFraction(int rdma_mtu) {
  if (rdma_mtu <= 0) return 0;
  return static_cast<double>(rdma_mtu) / (rdma_mtu + 14 + 20 + 8 + 12 + 4 + kEthernetWire - 14);
}

double IbGoodputFraction(int rdma_mtu) {
  if (rdma_mtu <= 0) return 0;
  return static_cast<double>(rdma_mtu) / (rdma_mtu + 8 + 12 + 4 + 2);
}

double IbDataFraction(std::string_view rate_text) {
  const size_t open = rate_text.find('(');
  const std::string_view speed = open == std::string_view::npos ? "" : rate_text.substr(open);
  if (speed.find("FDR10") != std::string_view::npos) return 1.0;
  if (speed.find("FDR") != std::string_view::npos) return 64.0 / 66.0;
  for (const char* old : {"SDR", "DDR", "QDR"}) {
    if (speed.find(old) != std::string_view::npos) return 0.8;
  }
  return 1.0;
}

double PcieGoodputGbps(double gts, int width, int max_payload) {
  return pcie::PciePayloadGBps(gts, width, max_payload) * 8;  // GB/s -> Gb/s
}

LinkFacts TcpLinkFacts(const std::string& sys_root, const std::string& netdev) {
  platform::FileTree sys(sys_root);
  LinkFacts f;
  f.link = netdev;
  const std::string dir = "class/net/" + netdev;
  int mtu = 0;
  if (auto v = sys.ReadValue(dir + "/mtu"); v.ok() && absl::SimpleAtoi(*v, &mtu)) f.mtu = mtu;
  // speed is Mb/s. A virtual interface (no device/ link: veth, bridge,
  // macvlan, tun) reports a nominal speed (veth says 10000) or none; it is
  // no bar for what the host can move.
  int64_t mbps = 0;
  absl::StatusOr<std::string> speed = sys.ReadValue(dir + "/speed");
  if (!sys.Exists(dir + "/device")) {
    f.unknown_why = absl::StrCat(netdev, " is a virtual interface (no device behind it; its "
                                 "speed ", speed.ok() ? *speed : "unknown",
                                 " is nominal): no absolute bar");
  } else if (speed.ok() && absl::SimpleAtoi(*speed, &mbps) && mbps > 0) {
    f.line_gbps = mbps / 1000.0;
  } else {
    f.unknown_why = absl::StrCat(netdev, " reports no link speed (",
                                 speed.ok() ? *speed : "unreadable",
                                 "): a virtual link has no absolute bar");
  }
  f.pcie_gbps = PcieOf(sys, dir + "/device");
  return f;
}

LinkFacts RdmaLinkFacts(const std::string& sys_root, const std::string& device, uint32_t port,
                        int active_mtu) {
  platform::FileTree sys(sys_root);
  LinkFacts f;
  f.link = absl::StrCat(device, ":", port);
  f.mtu = active_mtu;
  const std::string dir = absl::StrCat("class/infiniband/", device, "/ports/", port);
  if (auto ll = sys.ReadValue(dir + "/link_layer"); ll.ok()) f.link_layer = *ll;
  absl::StatusOr<std::string> rate = sys.ReadValue(dir + "/rate");
  absl::StatusOr<double> gbps =
      rate.ok() ? rdma::ParseRateGbps(*rate) : absl::StatusOr<double>(rate.status());
  if (gbps.ok()) {
    // InfiniBand's sysfs rate is the signalling rate for SDR..FDR: data is
    // 8/10 of it (8b/10b) up to QDR and 64/66 for FDR (56 -> 54.5);
    // FDR10, EDR and later print the data rate already.
    const double data = f.link_layer == "InfiniBand" ? IbDataFraction(*rate) : 1.0;
    f.line_gbps = *gbps * data;
    if (data != 1.0) {
      f.encoding = absl::StrFormat("%s signalling x %.4f encoding", *rate, data);
    }
  } else {
    f.unknown_why = absl::StrCat(f.link, " rate unknown: ", gbps.status().message());
  }
  f.pcie_gbps = PcieOf(sys, absl::StrCat("class/infiniband/", device, "/device"));
  return f;
}

LinkFacts LiveRdmaLinkFacts(const std::string& sys_root, const std::string& device,
                            uint32_t port) {
  const absl::StatusOr<uint32_t> mtu = platform::QueryActiveMtu(device, port);
  LinkFacts f = RdmaLinkFacts(sys_root, device, port, mtu.ok() ? static_cast<int>(*mtu) : 0);
  if (!mtu.ok()) f.mtu_unread = std::string(mtu.status().message());
  return f;
}

double GoodputGbps(const LinkFacts& facts, v1::Transport transport, std::string* basis) {
  if (facts.line_gbps <= 0) return 0;
  double fraction = 0;
  std::string overhead;
  if (transport == v1::TCP) {
    fraction = TcpGoodputFraction(facts.mtu > 0 ? facts.mtu : 1500);
    overhead = absl::StrFormat("TCP/IPv4 at MTU %d: %.4f", facts.mtu > 0 ? facts.mtu : 1500,
                               fraction);
  } else if (facts.link_layer == "InfiniBand") {
    fraction = IbGoodputFraction(facts.mtu > 0 ? facts.mtu : 4096);
    overhead = absl::StrFormat("InfiniBand headers at MTU %d: %.4f",
                               facts.mtu > 0 ? facts.mtu : 4096, fraction);
  } else {
    fraction = RoceGoodputFraction(facts.mtu > 0 ? facts.mtu : 1024);
    overhead = absl::StrFormat("RoCE v2 headers at MTU %d: %.4f",
                               facts.mtu > 0 ? facts.mtu : 1024, fraction);
  }
  double wire = facts.line_gbps;
  std::string limit = absl::StrFormat("%s %g Gb/s", facts.link, facts.line_gbps);
  if (!facts.encoding.empty()) absl::StrAppend(&limit, " (", facts.encoding, ")");
  if (facts.pcie_gbps > 0 && facts.pcie_gbps < wire) {
    wire = facts.pcie_gbps;
    limit = absl::StrFormat("%s's PCIe link %.1f Gb/s (below its %g Gb/s port)", facts.link,
                            facts.pcie_gbps, facts.line_gbps);
  }
  if (basis != nullptr) {
    *basis = absl::StrCat(limit, " x ", overhead,
                          facts.mtu_unread.empty()
                              ? ""
                              : absl::StrCat(" (active MTU unread: ", facts.mtu_unread, ")"));
  }
  return wire * fraction;
}

void JudgeAgainstExpectation(const Profile& profile, const LinkFacts& facts,
                             v1::ProbeResult* result) {
  v1::TransferReport* t = result->mutable_transfer();
  const bool latency = IsLatencyOp(t->op());
  const std::optional<double> bar =
      ProfileBar(profile.Section<TransferBars>(), t->transport(), t->op());
  if (bar) {
    t->set_expected(*bar);
    t->set_expected_source("profile");
    t->set_expected_basis(absl::StrCat("transfer.", ProfileKey(t->transport(), t->op()), ": ",
                                       *bar, latency ? " us" : " Gb/s"));
  } else if (latency) {
    t->set_expected_source("none");
    t->set_expected_basis("latency has a bar only from the profile (transfer.*_lat_max_us)");
  } else if (facts.line_gbps <= 0) {
    t->set_expected_source("none");
    t->set_expected_basis(facts.unknown_why.empty() ? "the link's speed is unknown"
                                                    : facts.unknown_why);
  } else {
    std::string limit;
    const double goodput = GoodputGbps(facts, t->transport(), &limit);
    // Bidirectional figures are the sum of both ways (a full-duplex link).
    const double expected =
        goodput * profile.Section<TransferBars>().min_fraction_of_line_rate * facts.directions;
    t->set_expected(expected);
    t->set_expected_source("hardware");
    t->set_expected_basis(absl::StrFormat("%s x %.2f (transfer.min_fraction_of_line_rate)%s", limit,
                                          profile.Section<TransferBars>().min_fraction_of_line_rate,
                                          facts.directions == 2 ? " x 2 directions" : ""));
  }
  if (t->expected() <= 0) return;
  for (const v1::TransferResult& row : t->results()) {
    if (row.partial()) continue;  // already an ERROR finding
    if (latency) {
      const double us = row.latency().median_us();
      if (us > t->expected()) {
        AddFinding(result, findings::kLatencyAboveExpected.code,
                   t->device().empty() ? t->peer() : t->device(),
                   absl::StrFormat("%d-byte %s median %.2f us is above the %s bar of %.2f us (%s)",
                                   row.size(), OpName(t->op()), us, t->expected_source(),
                                   t->expected(), t->expected_basis()));
      }
    } else if (t->expected_source() == "hardware" && row.size() < kLineRateMinSize) {
      // A small message cannot fill the link (per-message costs dominate):
      // the hardware bar is not applied below kLineRateMinSize, and the
      // evidence says so. (perftest judges line rate on large messages.)
      AddEvidence(result, absl::StrCat("not judged against line rate: ", row.size(), " B"),
                  absl::StrCat("below ", kLineRateMinSize, " B a message cannot fill the link; "
                               "judged by its message rate only where the profile sets one"));
    } else if (row.bw_avg_gbps() < t->expected()) {
      AddFinding(result, findings::kTransferBelowExpected.code,
                 t->device().empty() ? t->peer() : t->device(),
                 absl::StrFormat("%d-byte %s to %s averaged %.2f Gb/s, below the %s bar of "
                                 "%.2f Gb/s (%s)",
                                 row.size(), OpName(t->op()), t->peer(), row.bw_avg_gbps(),
                                 t->expected_source(), t->expected(), t->expected_basis()));
    }
  }
}

}  // namespace nodeprobe::transfer
