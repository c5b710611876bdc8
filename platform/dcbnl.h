// File: dcbnl.h
// A network interface's Data Center Bridging state as its driver reports it
// through the kernel's dcbnl rtnetlink interface (RTM_GETDCB, linux/dcbnl.h):
// IEEE 802.1Qaz PFC (which priorities are lossless, the delay allowance and
// the per-priority pause counters), ETS (priority -> traffic class and the
// classes' bandwidth shares), the APP table (DSCP -> priority: what "trust
// dscp" means on the wire) and the DCBX mode. The same bytes `dcb` and
// `mlnx_qos` read, without running either. A reply is kept raw so a capture
// of a real host (hwtests/roce_config.sh) replays through the same parser.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace nodeprobe::platform {

struct DcbState {
  // PFC: absent when the driver has no IEEE PFC (CEE-only or none).
  bool has_pfc = false;
  uint8_t pfc_cap = 0;                        // how many priorities may be lossless at once
  uint8_t pfc_enabled = 0;                    // bit p: PFC on priority p
  uint16_t pfc_delay = 0;                     // allowance for the cable, in bit times
  std::array<uint64_t, 8> pfc_requests{};     // pause frames sent, per priority
  std::array<uint64_t, 8> pfc_indications{};  // pause frames received, per priority
  // ETS: absent when the driver has none.
  bool has_ets = false;
  std::array<uint8_t, 8> prio_tc{};   // priority -> traffic class
  std::array<uint8_t, 8> tc_tx_bw{};  // class -> bandwidth share, percent
  std::array<uint8_t, 8> tc_tsa{};    // class -> IEEE_8021QAZ_TSA_*
  // APP table, DSCP selector: dscp -> the priorities it maps to (the table
  // may map one DSCP to several; `dcb app` shows them all).
  std::map<int, std::vector<int>> dscp_prio;
  int other_apps = 0;           // APP entries of other selectors (ethertype, port)
  std::optional<uint8_t> dcbx;  // DCB_CAP_DCBX_* bits
};

// Raw replies: one whole netlink message each (header included), as the
// kernel sent it for DCB_CMD_IEEE_GET and DCB_CMD_GDCBX. An empty
// `dcbx_reply` leaves `dcbx` unset. A kernel error reply becomes its errno
// as a status whose message names the interface and what it means.
absl::StatusOr<DcbState> ParseDcbReplies(const std::string& ifname, const std::string& ieee_reply,
                                         const std::string& dcbx_reply);

// One RTM_GETDCB request (cmd: DCB_CMD_IEEE_GET or DCB_CMD_GDCBX) for
// `ifname` in this network namespace; the reply raw, or the error.
absl::StatusOr<std::string> QueryDcb(const std::string& ifname, uint8_t cmd);

// QueryDcb for both commands, parsed. A driver without dcbnl, a missing
// interface and a refused permission are errors that say so.
absl::StatusOr<DcbState> ReadDcb(const std::string& ifname);

// "OS controlled" / "firmware (lld managed)" / ... for evidence.
std::string DcbxModeName(uint8_t dcbx);

}  // namespace nodeprobe::platform
