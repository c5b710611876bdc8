// File: cabling_probe.h
// Probe `cabling`: the cabling record. For every interface the node's
// lldpd watches, the switch and port LLDP says it is cabled to (and the
// RDMA port behind the interface); against the profile's rail plan
// (cabling.expect: netdev -> a glob on the switch's system name):
//   (its findings, with severity and remedy: probes/cabling/cabling_findings.h)
// Without a plan it records what it finds (SKIP when lldpd is absent or
// heard nothing). InfiniBand ports have no LLDP: for each ACTIVE IB port
// the probe asks the fabric one hop out (SMPs through libibnetdisc,
// platform/ib_neighbors.h); plans name those ports "mlx5_0:1", and need no
// lldpd. Live host only.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "platform/ib_neighbors.h"
#include "platform/lldp_neighbors.h"
#include "probes/rdma_devices/rdma_netdevs.h"
#include "probes/framework/probe.h"

namespace nodeprobe {

class CablingProbe : public Probe {
 public:
  std::string_view name() const override { return "cabling"; }
  std::vector<v1::Stage> stages() const override { return {v1::SINGLE_NODE}; }
  std::string_view purpose() const override {
    return "The cabling record: each port's switch and switch port (LLDP via lldpd), checked "
           "against the profile's rail plan";
  }
  absl::StatusOr<v1::ProbeResult> Run(const ProbeContext& ctx) override;
};

// The record and findings for what lldpd reported. `rdma_ports` maps a
// netdev to the RDMA port behind it ("mlx5_0:1"); `expect` is the plan.
v1::ProbeResult JudgeCabling(const std::vector<platform::CableNeighbor>& neighbors,
                             const std::vector<std::pair<std::string, std::string>>& expect,
                             const std::map<std::string, std::string>& rdma_ports,
                             const std::string& profile_source);

// The switch name in an InfiniBand NodeDescription: "MF0;leaf-rail-0-a:
// MQM9700/U1" -> "leaf-rail-0-a"; other descriptions whole.
std::string IbSwitchName(const std::string& node_desc);

// The neighbours of the ACTIVE InfiniBand ports among PORTS, asked of the
// fabric by `discover` (SMPs; tests pass their own, as no HCA is here),
// as source "ib-smp"; ports that do not answer are left out.
using IbDiscover =
    std::function<absl::StatusOr<std::vector<platform::IbNeighbor>>(const std::string&, int)>;
std::vector<platform::CableNeighbor> IbCableNeighbors(
    const std::vector<rdma::PortNetdevs>& ports,
    const IbDiscover& discover = platform::DiscoverIbNeighbors);

}  // namespace nodeprobe
