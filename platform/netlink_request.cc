#include "platform/netlink_request.h"

#include <netlink/netlink.h>
#include <sys/socket.h>

#include <cstdlib>
#include <memory>

#include "absl/strings/str_cat.h"

namespace nodeprobe::platform {

absl::StatusOr<std::string> NetlinkRequest(int protocol, nl_msg* msg, const std::string& what,
                                           int timeout_s, int tries) {
  std::unique_ptr<nl_sock, void (*)(nl_sock*)> sock(nl_socket_alloc(), nl_socket_free);
  if (!sock) return absl::ResourceExhaustedError("nl_socket_alloc");
  if (int rc = nl_connect(sock.get(), protocol); rc < 0) {
    return absl::UnavailableError(absl::StrCat(what, ": ", nl_geterror(rc)));
  }
  timeval tv{timeout_s, 0};
  setsockopt(nl_socket_get_fd(sock.get()), SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
  if (int rc = nl_send_auto(sock.get(), msg); rc < 0) {
    return absl::UnavailableError(absl::StrCat(what, " send: ", nl_geterror(rc)));
  }
  const uint32_t seq = nlmsg_hdr(msg)->nlmsg_seq;
  for (int i = 0; i < tries; ++i) {
    sockaddr_nl peer{};
    unsigned char* raw = nullptr;
    const int n = nl_recv(sock.get(), &peer, &raw, nullptr);
    if (n <= 0) {
      free(raw);
      return absl::DeadlineExceededError(absl::StrCat(what, ": no reply"));
    }
    std::unique_ptr<unsigned char, void (*)(void*)> owned(raw, free);
    int rem = n;
    for (auto* h = reinterpret_cast<nlmsghdr*>(raw); nlmsg_ok(h, rem); h = nlmsg_next(h, &rem)) {
      if (h->nlmsg_seq == seq) return std::string(reinterpret_cast<char*>(h), h->nlmsg_len);
    }
  }
  return absl::DeadlineExceededError(absl::StrCat(what, ": no reply to our request"));
}

}  // namespace nodeprobe::platform
