// File: rdma_sysfs.h
// Reads RDMA devices from /sys/class/infiniband as raw strings. Parsing and
// judging live in probes/rdma_devices; this file only reads, and keeps each
// value's path so a finding can name the file it came from.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "platform/file_tree.h"

namespace nodeprobe::platform {

// One sysfs attribute: where it lives and what reading it gave.
struct RawAttr {
  std::string path;
  absl::StatusOr<std::string> value;
};

struct RawGid {
  uint32_t index = 0;
  RawAttr gid;
  RawAttr type;    // gid_attrs/types/N; NOT_FOUND on kernels without it
  RawAttr netdev;  // gid_attrs/ndevs/N
};

struct RawRdmaPort {
  uint32_t port = 0;
  // state, phys_state, link_layer, rate, lid, sm_lid.
  std::map<std::string, RawAttr> attrs;
  // Non-empty GID entries only (all-zero entries are unused slots).
  std::vector<RawGid> gids;
  absl::Status gids_status;
  std::map<std::string, RawAttr> counters;     // counters/*
  std::map<std::string, RawAttr> hw_counters;  // hw_counters/* (optional)
  // Why counters/ could not be listed (absent, permission): every port the
  // kernel registers has it, so this is never "no errors".
  absl::Status counters_status;
};

struct RawRdmaDevice {
  std::string name;
  // fw_ver, board_id, node_guid, node_type.
  std::map<std::string, RawAttr> attrs;
  // PCI address from the device link, empty for non-PCI devices.
  std::string pci_address;
  std::vector<RawRdmaPort> ports;
  // Set when the ports directory could not be listed.
  absl::Status ports_status;
};

// All devices under class/infiniband, sorted by name. An absent
// class/infiniband is no error: the result is empty.
absl::StatusOr<std::vector<RawRdmaDevice>> ReadRdmaDevices(const FileTree& sys);

}  // namespace nodeprobe::platform
