// File: expectations.h
// What a transfer should reach, and where that bar comes from, in this
// order of precedence:
//   1. the profile (transfer: tcp_stream_min_gbps, rdma_write_bw_min_gbps,
//      rdma_write_lat_max_us, ...);
//   2. the hardware: the lowest of the link's rate (RDMA port rate, or the
//      netdev's speed) and the NIC's PCIe link, turned into goodput with the
//      protocol's per-packet overhead at the MTU (formulas below), times
//      the profile's fraction (default 0.90);
//   3. the peers, judged across a run by the coordinator (peer_judgement).
// A link with no known speed (veth, most virtual NICs) gets no absolute
// bar, and the result says so.
//
// Goodput fractions (payload / bytes on the wire per packet):
//   TCP/IPv4 over Ethernet:  (MTU - 20 IP - 20 TCP - 12 timestamps)
//                            / (MTU + 14 Ethernet + 4 FCS + 8 preamble + 12 gap)
//                            = 1448 / 1538 = 0.9415 at MTU 1500
//   RoCE v2:                 payload / (payload + 14 Eth + 20 IP + 8 UDP + 12 BTH
//                            + 4 ICRC + 4 FCS + 8 preamble + 12 gap), with the
//                            payload the RDMA MTU (256..4096) = 4096/4178 = 0.9804
//                            (RETH's 16 bytes ride only on a message's first packet)
//   InfiniBand:              sysfs prints the signalling rate up to FDR: data is
//                            x 0.8 for SDR/DDR/QDR (8b/10b: QDR 40 -> 32) and
//                            x 64/66 for FDR (56 -> 54.5); FDR10, EDR and later
//                            print the data rate (IbDataFraction); per packet
//                            payload / (payload + 8 LRH + 12 BTH + 4 ICRC + 2 VCRC)
//                            = 4096/4122 = 0.9937 at MTU 4096
//   PCIe:                    GT/s x lanes x encoding (8b/10b to Gen2, 128b/130b
//                            Gen3-5, 1 for Gen6 FLIT) / 8 per direction, of which
//                            TLP headers leave ~ MPS/(MPS+24) (0.914 at 256 B)
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "nodeprobe/v1/result.pb.h"
#include "nodeprobe/v1/task.pb.h"
#include "probes/framework/profile.h"

namespace nodeprobe::transfer {

double TcpGoodputFraction(int mtu);
double RoceGoodputFraction(int rdma_mtu);
double IbGoodputFraction(int rdma_mtu);
double PcieGoodputGbps(double gts, int width, int max_payload = 256);
// The data share of an InfiniBand port's sysfs rate ("40 Gb/sec (4X QDR)").
double IbDataFraction(std::string_view rate_text);

// Below this message size no link bar from the hardware is applied: a
// small message cannot fill a link (per-message costs dominate); perftest
// reports line rate on large messages.
inline constexpr uint64_t kLineRateMinSize = 64 * 1024;

// What this end's hardware can carry toward the peer.
struct LinkFacts {
  std::string link;          // "eth0", "mlx5_0:1"
  std::string link_layer;    // "Ethernet", "InfiniBand", "" for TCP
  double line_gbps = 0;      // netdev speed or port data rate; 0: unknown
  std::string encoding;      // how an IB signalling rate became line_gbps
  int mtu = 0;               // netdev MTU (TCP) or RDMA active MTU
  double pcie_gbps = 0;      // the NIC's PCIe link, payload rate; 0: unknown
  std::string unknown_why;   // why line_gbps is unknown
  int directions = 1;        // 2 for a bidirectional run (figures are summed)
  std::string mtu_unread;    // why the active MTU was not read (a default is assumed)
};

// Reads the facts for a TCP transfer through `netdev`, or an RDMA one on
// device:port (from /sys under `sys_root`).
LinkFacts TcpLinkFacts(const std::string& sys_root, const std::string& netdev);
LinkFacts RdmaLinkFacts(const std::string& sys_root, const std::string& device, uint32_t port,
                        int active_mtu);
// The same on a live port, its active MTU asked of the device (verbs);
// without it the link layer's default MTU, said in `mtu_unread`.
LinkFacts LiveRdmaLinkFacts(const std::string& sys_root, const std::string& device,
                            uint32_t port);

// What the link carries as payload, Gb/s per direction: the lower of the
// line's data rate and the NIC's PCIe link, times the protocol's per-packet
// share at the MTU (TCP for `transport` TCP, else the link layer's RDMA
// headers). 0 when the line rate is unknown. `basis` gets the derivation.
double GoodputGbps(const LinkFacts& facts, v1::Transport transport, std::string* basis);

// Sets the report's expectation (value, source, basis) from the profile or
// the hardware, and adds TRANSFER_BELOW_EXPECTED (FAIL) or
// LATENCY_ABOVE_EXPECTED (FAIL) when the measurement misses it.
void JudgeAgainstExpectation(const Profile& profile, const LinkFacts& facts,
                             v1::ProbeResult* result);

}  // namespace nodeprobe::transfer
