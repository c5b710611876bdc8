// File: roce_profile.h
// The profile's `roce:` section: the fleet's RoCE congestion design, judged
// on every node by the roce-config probe (roce_settings.h).
//   roce:
//     tos: 106            # the ToS RDMA traffic carries (DSCP 26 << 2 | ECT)
//     rdma_priority: 3    # the priority it rides; else derived from tos
//                         # through the NIC's DSCP -> priority map
//     trust: dscp         # dscp | pcp: what the NIC classifies by
//     lossless: true      # PFC on the RDMA priority, and on no other
//     ecn: true           # ECN (roce_np and roce_rp) on the RDMA priority
#pragma once

#include <optional>
#include <string>

namespace nodeprobe {

struct Profile;

struct RoceDesign {
  static constexpr char kSection[] = "roce";  // its top-level key
  std::optional<int> tos;            // 0 .. 255
  std::optional<int> rdma_priority;  // 0 .. 7
  std::string trust;                 // "", "dscp" or "pcp"
  std::optional<bool> lossless;
  std::optional<bool> ecn;

  bool Any() const { return tos || rdma_priority || !trust.empty() || lossless || ecn; }
};

// The ToS RDMA traffic will carry: the profile's NCCL_IB_TC (what NCCL
// stamps), else roce.tos, else none; `source` says which. The roce-config
// probe derives the RDMA priority from it and RDMA transfers send with it.
std::optional<int> DesignedTos(const Profile& profile, std::string* source = nullptr);

}  // namespace nodeprobe
