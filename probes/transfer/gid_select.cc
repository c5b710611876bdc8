#include "probes/transfer/gid_select.h"

#include <algorithm>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "probes/rdma_devices/rdma_sysfs_parser.h"

namespace nodeprobe::transfer {

std::vector<GidCandidate> GidTableOf(const platform::RawRdmaPort& port) {
  std::vector<GidCandidate> table;
  for (const platform::RawGid& g : port.gids) {
    table.push_back({g.index, g.gid.value.value_or(""), g.type.value.value_or(""),
                     g.netdev.value.value_or("")});
  }
  return table;
}

absl::StatusOr<GidChoice> SelectGid(const std::vector<GidCandidate>& table,
                                    const std::string& link_layer,
                                    const std::string& egress_netdev,
                                    const std::vector<std::string>& egress_ipv4,
                                    std::optional<uint32_t> explicit_index) {
  if (explicit_index) {
    for (const GidCandidate& g : table) {
      if (g.index == *explicit_index) {
        return GidChoice{g.index, g.type,
                         absl::StrCat("--gid-index ", g.index, " given (", g.gid, ")")};
      }
    }
    return absl::InvalidArgumentError(
        absl::StrCat("--gid-index ", *explicit_index, " is not in the GID table"));
  }
  if (link_layer == "InfiniBand") {
    return GidChoice{0, "IB/RoCE v1", "InfiniBand: LID addressing, GID index 0"};
  }
  std::vector<std::string> seen;
  for (const GidCandidate& g : table) {
    if (g.type != "RoCE v2" || g.netdev != egress_netdev) continue;
    absl::StatusOr<rdma::GidFamily> family = rdma::ClassifyGid(g.gid);
    if (!family.ok() || *family == rdma::GidFamily::kLinkLocal) continue;
    const std::string ip = rdma::GidIpv4Address(g.gid);
    seen.push_back(absl::StrCat(g.index, "=", ip.empty() ? g.gid : ip));
    if (ip.empty() ||
        std::find(egress_ipv4.begin(), egress_ipv4.end(), ip) == egress_ipv4.end()) {
      continue;
    }
    return GidChoice{g.index, g.type,
                     absl::StrCat("RoCE v2 GID ", g.index, " carries ", ip, " of ",
                                  egress_netdev, ", the interface that routes to the peer")};
  }
  return absl::FailedPreconditionError(absl::StrCat(
      "no RoCE v2 GID on ", egress_netdev, " carries its IPv4 address (",
      absl::StrJoin(egress_ipv4, ", "), "); RoCE v2 entries there: ",
      seen.empty() ? "none" : absl::StrJoin(seen, ", "),
      ". Assign the address to the RDMA port's netdev or pass --gid-index"));
}

absl::StatusOr<GidChoice> SelectOwnGid(const std::vector<GidCandidate>& table,
                                       const std::string& link_layer,
                                       std::optional<uint32_t> explicit_index,
                                       const std::string& route_netdev) {
  if (explicit_index || link_layer == "InfiniBand") {
    return SelectGid(table, link_layer, "", {}, explicit_index);
  }
  std::vector<std::string> seen;
  for (const GidCandidate& g : table) {
    if (g.type != "RoCE v2") continue;
    absl::StatusOr<rdma::GidFamily> family = rdma::ClassifyGid(g.gid);
    if (!family.ok() || *family == rdma::GidFamily::kLinkLocal) continue;
    const std::string ip = rdma::GidIpv4Address(g.gid);
    seen.push_back(absl::StrCat(g.index, "=", ip.empty() ? g.gid : ip));
    if (ip.empty()) continue;
    return GidChoice{g.index, g.type,
                     absl::StrCat("RoCE v2 GID ", g.index, " carries ", ip, " of ", g.netdev,
                                  ", the named port's own (the route to the peer leaves by ",
                                  route_netdev, ")")};
  }
  return absl::FailedPreconditionError(absl::StrCat(
      "the named port has no RoCE v2 GID with an IPv4 address (RoCE v2 entries: ",
      seen.empty() ? "none" : absl::StrJoin(seen, ", "),
      "); assign an address to its netdev or pass --gid-index"));
}

absl::Status CheckGidTypesAgree(const std::string& local_type,
                                const std::string& remote_type) {
  if (local_type == remote_type) return absl::OkStatus();
  return absl::FailedPreconditionError(absl::StrCat(
      "the two ends would use different GID types (local ", local_type, ", peer ",
      remote_type, "): pick RoCE v2 on both with --gid-index"));
}

}  // namespace nodeprobe::transfer
