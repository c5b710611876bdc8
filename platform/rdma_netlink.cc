// File: rdma_netlink.cc
#include "platform/rdma_netlink.h"

#include <netlink/attr.h>
#include <netlink/msg.h>
#include <netlink/netlink.h>
#include <rdma/rdma_netlink.h>
#include <sys/socket.h>

#include <cstdlib>
#include <memory>

#include "absl/strings/str_cat.h"

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
  std::unique_ptr<nl_sock, void (*)(nl_sock*)> sock(nl_socket_alloc(), nl_socket_free);
  if (!sock) return absl::ResourceExhaustedError("nl_socket_alloc");
  if (int rc = nl_connect(sock.get(), NETLINK_RDMA); rc < 0) {
    return absl::UnavailableError(
        absl::StrCat("RDMA netlink: ", nl_geterror(rc), " (no ib_core in this kernel)"));
  }
  timeval tv{3, 0};
  setsockopt(nl_socket_get_fd(sock.get()), SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
  std::unique_ptr<nl_msg, void (*)(nl_msg*)> msg(
      nlmsg_alloc_simple(RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, RDMA_NLDEV_CMD_SYS_GET), NLM_F_REQUEST),
      nlmsg_free);
  if (!msg) return absl::ResourceExhaustedError("RDMA netlink request");
  if (int rc = nl_send_auto(sock.get(), msg.get()); rc < 0) {
    return absl::UnavailableError(absl::StrCat("RDMA netlink send: ", nl_geterror(rc)));
  }
  const uint32_t seq = nlmsg_hdr(msg.get())->nlmsg_seq;
  for (int tries = 0; tries < 4; ++tries) {
    sockaddr_nl peer{};
    unsigned char* raw = nullptr;
    const int n = nl_recv(sock.get(), &peer, &raw, nullptr);
    if (n <= 0) {
      free(raw);
      return absl::DeadlineExceededError("RDMA netlink: no reply");
    }
    std::unique_ptr<unsigned char, void (*)(void*)> owned(raw, free);
    int rem = n;
    for (auto* h = reinterpret_cast<nlmsghdr*>(raw); nlmsg_ok(h, rem); h = nlmsg_next(h, &rem)) {
      if (h->nlmsg_seq == seq) {
        return ParseRdmaSysReply(std::string(reinterpret_cast<char*>(h), h->nlmsg_len));
      }
    }
  }
  return absl::DeadlineExceededError("RDMA netlink: no reply to our request");
}

}  // namespace nodeprobe::platform
