// File: mtu_chain.h
// The interface chain of a netdev and its MTUs: the interface, its lower
// devices (VLAN -> parent, macvlan/ipvlan -> parent, veth -> peer when it is
// in this namespace), its master (bond/bridge) and the master's members,
// and for an SR-IOV VF its PF. A packet is only as large as the smallest
// element it crosses, so:
//   MTU_CHAIN_MISMATCH  an upper device larger than its lower one, veth ends
//                       that differ, bond/bridge members that differ or are
//                       smaller than the master, a VF larger than its PF
//   MTU_BELOW_EXPECTED  the interface below the profile's expected MTU
//   ROCE_MTU_EXCEEDS_NETDEV  RoCE active MTU + RoCE v2 headers (IPv4 20,
//                       UDP 8, BTH 12, RETH 16, ICRC 4 = 60 bytes) larger
//                       than the netdev MTU
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "nodeprobe/v1/result.pb.h"
#include "platform/file_tree.h"
#include "platform/netlink_links.h"

namespace nodeprobe::mtu {

inline constexpr int kRoceV2HeaderBytes = 60;

// The chain of `iface`; `sys` resolves a VF's PF (class/net/X/device/physfn).
v1::InterfaceChain BuildChain(const std::vector<platform::NetLink>& links,
                              const std::string& iface, const platform::FileTree& sys);

// Adds findings for one chain. `roce_active_mtu`: the RoCE port's active
// MTU on this netdev, if any.
void JudgeChain(const v1::InterfaceChain& chain, std::optional<int> expected_mtu,
                std::optional<int> roce_active_mtu, v1::ProbeResult* result);

}  // namespace nodeprobe::mtu
