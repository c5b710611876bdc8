#include "platform/rdma_netlink.h"

#include <netlink/attr.h>
#include <netlink/msg.h>
#include <netlink/netlink.h>
#include <rdma/rdma_netlink.h>
#include <sys/socket.h>

#include <cstdlib>
#include <memory>

#include "absl/strings/str_cat.h"
#include "platform/netlink_request.h"

namespace nodeprobe::platform {

std::string NetnsModeName(uint8_t mode) { return mode ? "shared" : "exclusive"; }

absl::StatusOr<std::string> ParseRdmaSysReply(const std::string& reply) {
  if (reply.size() < sizeof(nlmsghdr)) return absl::DataLossError("RDMA netlink: short reply");
  // nlmsg_parse only reads, but takes a non-const header.
  std::string copy = reply;
  auto* h = reinterpret_cast<nlmsghdr*>(copy.data());
  if (h->nlmsg_len > copy.size()) return absl::DataLossError("RDMA netlink: truncated reply");
  if (h->nlmsg_type == NLMSG_ERROR) {
    const auto* err = static_cast<const nlmsgerr*>(nlmsg_data(h));
    return absl::UnavailableError(absl::StrCat(
        "RDMA netlink: the kernel refused RDMA_NLDEV_CMD_SYS_GET: ", std::strerror(-err->error)));
  }
  nlattr* attrs[RDMA_NLDEV_ATTR_MAX] = {};
  if (nlmsg_parse(h, 0, attrs, RDMA_NLDEV_ATTR_MAX - 1, nullptr) < 0) {
    return absl::DataLossError("RDMA netlink: the reply's attributes do not parse");
  }
  const nlattr* mode = attrs[RDMA_NLDEV_SYS_ATTR_NETNS_MODE];
  if (mode == nullptr || nla_len(mode) < 1) {
    return absl::NotFoundError("RDMA netlink: the reply has no netns mode (kernel before 5.2)");
  }
  return NetnsModeName(nla_get_u8(const_cast<nlattr*>(mode)));
}

absl::StatusOr<std::string> ReadRdmaNetnsMode() {
  std::unique_ptr<nl_msg, void (*)(nl_msg*)> msg(
      nlmsg_alloc_simple(RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, RDMA_NLDEV_CMD_SYS_GET), NLM_F_REQUEST),
      nlmsg_free);
  if (!msg) return absl::ResourceExhaustedError("RDMA netlink request");
  absl::StatusOr<std::string> reply = NetlinkRequest(NETLINK_RDMA, msg.get(), "RDMA netlink", 3, 4);
  if (reply.status().code() == absl::StatusCode::kUnavailable) {
    return absl::UnavailableError(
        absl::StrCat(reply.status().message(), " (no ib_core in this kernel?)"));
  }
  if (!reply.ok()) return reply.status();
  return ParseRdmaSysReply(*reply);
}

}  // namespace nodeprobe::platform
