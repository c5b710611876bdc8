// File: gid_select.h
// Which GID an RDMA transfer uses, and why. perftest's default (index 0,
// or whatever -x says) is the classic trap on RoCE: index 0 is the
// link-local RoCE v1 entry, which does not route (perftest#44, nccl#769).
// Rules:
//   1. an explicit --gid-index wins (it must exist);
//   2. InfiniBand: LID addressing, GID index 0;
//   3. RoCE: the RoCE v2 entry whose netdev is the interface that routes to
//      the peer and whose IPv4 address is one of that interface's; never a
//      link-local entry; the lowest such index.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "platform/rdma_sysfs.h"

namespace nodeprobe::transfer {

struct GidCandidate {
  uint32_t index = 0;
  std::string gid;     // as sysfs prints it
  std::string type;    // "RoCE v2", "IB/RoCE v1"
  std::string netdev;  // gid_attrs/ndevs
};

struct GidChoice {
  uint32_t index = 0;
  std::string type;
  std::string reason;  // printed beside the result
};

// A port's GID table as SelectGid takes it.
std::vector<GidCandidate> GidTableOf(const platform::RawRdmaPort& port);

// `egress_netdev` and `egress_ipv4` describe the interface the route to the
// peer leaves by (from the routing table).
absl::StatusOr<GidChoice> SelectGid(const std::vector<GidCandidate>& table,
                                    const std::string& link_layer,
                                    const std::string& egress_netdev,
                                    const std::vector<std::string>& egress_ipv4,
                                    std::optional<uint32_t> explicit_index);

// A port named by the operator that the route to the peer does not leave
// by (rails sharing a subnet, source routing): its own table's RoCE v2
// entry with an IPv4 address (never link-local), the lowest index; an
// explicit index and InfiniBand as SelectGid. `route_netdev` only names the
// route in the reason.
absl::StatusOr<GidChoice> SelectOwnGid(const std::vector<GidCandidate>& table,
                                       const std::string& link_layer,
                                       std::optional<uint32_t> explicit_index,
                                       const std::string& route_netdev);

// Both ends must address each other with the same GID type.
absl::Status CheckGidTypesAgree(const std::string& local_type,
                                const std::string& remote_type);

}  // namespace nodeprobe::transfer
