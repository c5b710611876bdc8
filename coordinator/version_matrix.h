// File: version_matrix.h
// The fleet's version matrix: every node x component (kernel, driver, HCA
// firmware per device, rdma-core, CUDA, NCCL, ...), with drift marked: a
// node whose version differs from the fleet's most common one, or from the
// profile's pin. Used by `nodeprobe fleet` and the acceptance record.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "nodeprobe/v1/result.pb.h"

namespace nodeprobe::coordinator {

struct NodeComponents {
  std::string node;
  std::vector<v1::Component> components;
};

struct ComponentRow {
  std::string component;  // "nvidia_driver", or "hca_firmware mlx5_0" per device
  std::string name;       // the component's own name (a profile pin's key)
  // node -> version; "absent" where the node reports the component missing,
  // "" where the node does not report it at all.
  std::map<std::string, std::string> versions;
  // The most common version among the nodes that have it (ties: the
  // lexicographically greatest, so the choice does not depend on order).
  std::string majority;
  std::string pinned;                 // the profile's pin, "" none
  std::vector<std::string> drifted;   // nodes off the majority or the pin, sorted
  std::vector<std::string> off_pin;   // those of them off the pin, sorted
};

// Rows sorted by component; `pins` is the profile's versions: section.
std::vector<ComponentRow> VersionMatrix(const std::vector<NodeComponents>& nodes,
                                        const std::map<std::string, std::string>& pins = {});

// The configuration matrix is the same comparison: a setting ("roce.pfc"
// on "mlx5_0:1") is a component whose version is its value.
std::vector<v1::Component> SettingsAsComponents(
    const google::protobuf::RepeatedPtrField<v1::Setting>& settings);

// Every setting in `report`'s results (roce-config and host-config each
// carry some), in result order.
google::protobuf::RepeatedPtrField<v1::Setting> SettingsOf(const v1::StageReport& report);

}  // namespace nodeprobe::coordinator
