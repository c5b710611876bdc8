// File: netlink_request.h
// One netlink request and its reply, through libnl: a socket of the given
// family, the message sent, and the reply whose sequence number is the
// request's returned whole (its header and attributes) for the caller to
// parse. dcbnl (rtnetlink) and RDMA netlink ask this way.
#pragma once

#include <netlink/msg.h>

#include <string>

#include "absl/status/statusor.h"

namespace nodeprobe::platform {

// UNAVAILABLE when the family cannot be reached (`what`: the error) or the
// send fails; DEADLINE_EXCEEDED when no reply to it comes within `timeout_s`
// over at most `tries` reads (the kernel answers at once; the bound is for
// a namespace being torn down).
absl::StatusOr<std::string> NetlinkRequest(int protocol, nl_msg* msg, const std::string& what,
                                           int timeout_s = 3, int tries = 8);

}  // namespace nodeprobe::platform
