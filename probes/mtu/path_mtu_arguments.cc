#include "probes/mtu/path_mtu_arguments.h"

#include <arpa/inet.h>

#include "platform/socket.h"
#include "probes/mtu/path_mtu.h"

namespace nodeprobe::mtu {

std::string CheckMtuPeer(std::string_view text) {
  absl::StatusOr<platform::HostPort> peer =
      platform::ParseHostPort(std::string(text), kDefaultMtuPort);
  in_addr addr;
  if (peer.ok() && inet_pton(AF_INET, peer->host.c_str(), &addr) == 1) return "";
  return "not an IPv4 address[:PORT] (give the peer's address on the job's network, e.g. "
         "10.0.0.2 or 10.0.0.2:18516)";
}

}  // namespace nodeprobe::mtu
