// The host side of a RoCE congestion design, per RoCE port: the DCB state of
// the netdev that carries it (PFC, ETS, the DSCP map, DCBX: platform/dcbnl.h),
// ECN per priority (/sys/class/net/IF/ecn/roce_np|roce_rp/enable/P), the CNP
// DSCP, rdma_cm's default RoCE ToS and mode (configfs), the device's
// traffic-class override (class/infiniband/DEV/tc/PORT/traffic_class), the
// MTU and the driver's pause-storm counters; judged against the profile's
// roce: section (roce_profile.h): trust, lossless priority, PFC scope, ECN,
// ToS, pause storms (WARN since load here, FAIL during a transfer in
// counter_deltas.h) and what could not be read. The codes and their
// severities are declared in roce_config_findings.h.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "nodeprobe/v1/result.pb.h"
#include "platform/dcbnl.h"
#include "platform/file_tree.h"
#include "probes/roce_config/roce_profile.h"

namespace nodeprobe::roce {

struct RocePort {
  std::string device;  // mlx5_0
  uint32_t port = 0;
  std::string netdev;  // the netdev whose DCB carries the port (a lower device of a VLAN)
  int mtu = 0;         // 0: unreadable
  absl::StatusOr<platform::DcbState> dcb = absl::UnknownError("not read");
  std::map<int, bool> ecn_np, ecn_rp;  // priority -> enabled, as the driver lists them
  std::string ecn_why;                 // why there is no ECN tree, when there is none
  std::optional<int> cnp_dscp;
  std::optional<int> default_tos;         // rdma_cm's default RoCE ToS
  std::string default_mode;               // "RoCE v2", ...
  std::string rdma_cm_why;                // why rdma_cm's defaults are unknown
  std::optional<int> traffic_class;       // the device's override, if set
  std::string traffic_class_why;          // its file there but not a class
  std::string carrier_why;                // its carriers unknown (a lower_ cycle)
  std::map<std::string, uint64_t> storm;  // *pause_storm* counters since the driver loaded

  std::string Name() const;  // "mlx5_0:1"
};

// The netdevs below `netdev` that carry its traffic: itself, or the leaves
// of its lower_* links (a VLAN's parent, a bond's members).
// DATA_LOSS when the lower_ links loop (or run past 64 devices): never an
// empty list that would hide the port.
absl::StatusOr<std::vector<std::string>> CarrierNetdevs(const platform::FileTree& sys,
                                                        const std::string& netdev);

// ECN enables, the CNP DSCP, the MTU and the traffic-class override, from
// `sys` (class/net and class/infiniband).
void ReadSysfsSettings(const platform::FileTree& sys, RocePort* port);

// rdma_cm's defaults for the port from configfs under `sys`
// (kernel/config/rdma_cm/DEV/ports/N). `create`: make the device's group
// as cma_roce_tos does when it is absent, and remove it after reading.
void ReadRdmaCmDefaults(const platform::FileTree& sys, bool create, RocePort* port);

// "Global tclass=106" -> 106.
std::optional<int> ParseTrafficClass(const std::string& text);

// The values as evidence and settings, then the rules of `design` that
// apply. `tos` is the designed ToS (DesignedTos) and `tos_source` where it
// came from. Returns how many rules judged something.
int JudgeRocePort(const RocePort& port, const RoceDesign& design, std::optional<int> tos,
                  const std::string& tos_source, v1::ProbeResult* result);

// The port's values as the fleet's configuration matrix keys them.
void AddRoceSettings(const RocePort& port, v1::ConfigReport* config);

}  // namespace nodeprobe::roce
