#include "platform/route.h"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <netdb.h>
#include <sys/socket.h>
#include <unistd.h>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "platform/socket.h"

namespace nodeprobe::platform {

namespace {

// getifaddrs labels an alias address "eth0:1": it belongs to eth0.
std::string BaseName(const char* label) {
  std::string s(label);
  return s.substr(0, s.find(':'));
}

}  // namespace

std::vector<std::string> Ipv4AddressesOf(const std::string& netdev) {
  std::vector<std::string> out;
  ifaddrs* ifs = nullptr;
  if (getifaddrs(&ifs) != 0) return out;
  for (ifaddrs* i = ifs; i != nullptr; i = i->ifa_next) {
    if (i->ifa_addr == nullptr || i->ifa_addr->sa_family != AF_INET ||
        BaseName(i->ifa_name) != netdev) {
      continue;
    }
    char buf[INET_ADDRSTRLEN];
    inet_ntop(AF_INET, &reinterpret_cast<sockaddr_in*>(i->ifa_addr)->sin_addr, buf, sizeof(buf));
    out.push_back(buf);
  }
  freeifaddrs(ifs);
  return out;
}

absl::StatusOr<Egress> InterfaceOf(const std::string& local_ip) {
  ifaddrs* ifs = nullptr;
  if (getifaddrs(&ifs) != 0) return absl::ErrnoToStatus(errno, "getifaddrs");
  Egress out;
  out.source_ip = local_ip;
  for (ifaddrs* i = ifs; i != nullptr; i = i->ifa_next) {
    if (i->ifa_addr == nullptr || i->ifa_addr->sa_family != AF_INET) continue;
    char buf[INET_ADDRSTRLEN];
    inet_ntop(AF_INET, &reinterpret_cast<sockaddr_in*>(i->ifa_addr)->sin_addr, buf,
              sizeof(buf));
    if (local_ip == buf) out.netdev = BaseName(i->ifa_name);
  }
  for (ifaddrs* i = ifs; i != nullptr && !out.netdev.empty(); i = i->ifa_next) {
    if (i->ifa_addr == nullptr || i->ifa_addr->sa_family != AF_INET ||
        out.netdev != BaseName(i->ifa_name)) {
      continue;
    }
    char buf[INET_ADDRSTRLEN];
    inet_ntop(AF_INET, &reinterpret_cast<sockaddr_in*>(i->ifa_addr)->sin_addr, buf,
              sizeof(buf));
    out.netdev_ipv4.push_back(buf);
  }
  freeifaddrs(ifs);
  if (out.netdev.empty()) {
    return absl::NotFoundError(absl::StrCat("no interface holds ", local_ip));
  }
  return out;
}

absl::StatusOr<Egress> EgressTo(const std::string& peer_ip) {
  sockaddr_in peer{};
  peer.sin_family = AF_INET;
  peer.sin_port = htons(9);  // any port: connect() on UDP sends nothing
  if (inet_pton(AF_INET, peer_ip.c_str(), &peer.sin_addr) != 1) {
    return absl::InvalidArgumentError(absl::StrCat("'", peer_ip, "' is not an IPv4 address"));
  }
  Fd fd(socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0));
  if (!fd.valid()) return absl::ErrnoToStatus(errno, "socket");
  if (connect(fd.get(), reinterpret_cast<sockaddr*>(&peer), sizeof(peer)) != 0) {
    return absl::ErrnoToStatus(errno, absl::StrCat("no route to ", peer_ip));
  }
  sockaddr_in local{};
  socklen_t len = sizeof(local);
  getsockname(fd.get(), reinterpret_cast<sockaddr*>(&local), &len);
  char buf[INET_ADDRSTRLEN];
  inet_ntop(AF_INET, &local.sin_addr, buf, sizeof(buf));
  return InterfaceOf(buf);
}

}  // namespace nodeprobe::platform
