// File: netdev_stats.h
// A network interface's counters: the kernel's generic ones
// (/sys/class/net/IF/statistics: rx_errors, rx_crc_errors, tx_dropped, ...)
// and the driver's own (the ethtool ETHTOOL_GSTATS ioctl, the interface
// `ethtool -S` uses, without running it), where per-priority pause frames
// live (rx_prio3_pause, tx_pause_ctrl_phy, ...). Counters a driver does not
// have are absent, never zero.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "absl/status/statusor.h"
#include "platform/file_tree.h"

namespace nodeprobe::platform {

// statistics/* under class/net/IF of `sys`.
std::map<std::string, uint64_t> NetdevStatistics(const FileTree& sys, const std::string& ifname);

// The driver's ethtool statistics in this network namespace; an empty map
// for interfaces without any (lo), an error when the interface is unknown.
absl::StatusOr<std::map<std::string, uint64_t>> EthtoolStatistics(const std::string& ifname);

}  // namespace nodeprobe::platform
