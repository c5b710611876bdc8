// File: netlink_links.cc
#include "platform/netlink_links.h"

#include <net/if.h>
#include <netlink/netlink.h>
#include <netlink/route/link.h>

#include <memory>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace nodeprobe::platform {

absl::StatusOr<std::vector<NetLink>> ReadLinks() {
  std::unique_ptr<nl_sock, void (*)(nl_sock*)> sock(nl_socket_alloc(), nl_socket_free);
  if (!sock) return absl::ResourceExhaustedError("nl_socket_alloc");
  if (int rc = nl_connect(sock.get(), NETLINK_ROUTE); rc < 0) {
    return absl::UnavailableError(absl::StrCat("netlink: ", nl_geterror(rc)));
  }
  nl_cache* raw = nullptr;
  if (int rc = rtnl_link_alloc_cache(sock.get(), AF_UNSPEC, &raw); rc < 0) {
    return absl::UnavailableError(absl::StrCat("netlink link dump: ", nl_geterror(rc)));
  }
  std::unique_ptr<nl_cache, void (*)(nl_cache*)> cache(raw, nl_cache_free);
  std::vector<NetLink> out;
  for (nl_object* obj = nl_cache_get_first(cache.get()); obj != nullptr;
       obj = nl_cache_get_next(obj)) {
    auto* link = reinterpret_cast<rtnl_link*>(obj);
    NetLink l;
    l.ifindex = rtnl_link_get_ifindex(link);
    l.name = rtnl_link_get_name(link) ? rtnl_link_get_name(link) : "";
    l.mtu = static_cast<int>(rtnl_link_get_mtu(link));
    l.kind = rtnl_link_get_type(link) ? rtnl_link_get_type(link) : "";
    l.link_ifindex = rtnl_link_get_link(link);
    int32_t nsid = -1;
    l.link_elsewhere = rtnl_link_get_link_netnsid(link, &nsid) == 0 && nsid >= 0;
    l.master_ifindex = rtnl_link_get_master(link);
    l.up = (rtnl_link_get_flags(link) & IFF_UP) != 0;
    out.push_back(std::move(l));
  }
  return out;
}

}  // namespace nodeprobe::platform
