// File: roce_capture.h
// RoCE congestion state for tests, from the captures in tests/fixtures/
// roce-qos: what `mlnx_qos` printed (trust, PFC, DSCP map) turned into the
// dcbnl replies a kernel sends (built per linux/dcbnl.h with libnl), the
// ECN/CNP/traffic-class sysfs files a `set-rdma-qos.sh q` listing names,
// and a RoCE port (hwloc's captured mlx4_0 port turned Ethernet on eth2)
// to hang them on.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace nodeprobe::testing {

struct QosState {
  bool trust_dscp = false;
  uint8_t pfc = 0;                            // bit p: PFC on priority p
  std::map<int, std::vector<int>> dscp_prio;  // the DSCP map ("dscp2prio")
};

// `mlnx_qos` output: "Priority trust state", the PFC "enabled" row and the
// "prio:P dscp:..." lines (the first listing in the text).
QosState ParseMlnxQos(const std::string& text);

// The kernel's replies to DCB_CMD_IEEE_GET and DCB_CMD_GDCBX for `state`
// (PFC capacity 8, the DSCP map as IEEE APP entries when trust is dscp;
// DCBX host-managed IEEE), naming `ifname` as the kernel's replies do.
std::string DcbIeeeReply(const QosState& state, const std::string& ifname = "eth0");
std::string DcbDcbxReply(const std::string& ifname = "eth0");

// Writes every "PATH = VALUE" a `set-rdma-qos.sh q` listing names under
// `sys_root` (PATH without its leading /sys), and its "cma_roce_tos: N" as
// rdma_cm's configfs default for `device` port 1; `netdev`, when given,
// stands for the listing's interface. Returns how many files.
int WriteQosQueryTree(const std::string& text, const std::string& sys_root,
                      const std::string& device, const std::string& netdev = "");

// hwloc's captured mlx4_0 port 1 as a RoCE v2 port whose GIDs name `netdev`
// (with an MTU file), in the captured sys tree `sys_root`.
void MakeRocePort(const std::string& sys_root, const std::string& netdev, int mtu);

}  // namespace nodeprobe::testing
