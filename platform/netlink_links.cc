#include "platform/netlink_links.h"

#include <net/if.h>
#include <netlink/netlink.h>
#include <netlink/route/link.h>
#include <netlink/route/route.h>
#include <linux/rtnetlink.h>

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

absl::Status SetLinkUp(const std::string& name, bool up) {
  std::unique_ptr<nl_sock, void (*)(nl_sock*)> sock(nl_socket_alloc(), nl_socket_free);
  if (!sock) return absl::ResourceExhaustedError("nl_socket_alloc");
  if (int rc = nl_connect(sock.get(), NETLINK_ROUTE); rc < 0) {
    return absl::UnavailableError(absl::StrCat("netlink: ", nl_geterror(rc)));
  }
  rtnl_link* raw = nullptr;
  if (int rc = rtnl_link_get_kernel(sock.get(), 0, name.c_str(), &raw); rc < 0) {
    return absl::NotFoundError(absl::StrCat("no interface '", name, "': ", nl_geterror(rc)));
  }
  std::unique_ptr<rtnl_link, void (*)(rtnl_link*)> link(raw, rtnl_link_put);
  std::unique_ptr<rtnl_link, void (*)(rtnl_link*)> change(rtnl_link_alloc(), rtnl_link_put);
  if (!change) return absl::ResourceExhaustedError("rtnl_link_alloc");
  if (up) {
    rtnl_link_set_flags(change.get(), IFF_UP);
  } else {
    rtnl_link_unset_flags(change.get(), IFF_UP);
  }
  if (int rc = rtnl_link_change(sock.get(), link.get(), change.get(), 0); rc < 0) {
    return absl::PermissionDeniedError(absl::StrCat("setting ", name, up ? " up" : " down",
                                                    ": ", nl_geterror(rc),
                                                    " (needs CAP_NET_ADMIN)"));
  }
  return absl::OkStatus();
}

absl::StatusOr<bool> LinkIsUp(const std::string& name) {
  absl::StatusOr<std::vector<NetLink>> links = ReadLinks();
  if (!links.ok()) return links.status();
  for (const NetLink& l : *links) {
    if (l.name == name) return l.up;
  }
  return absl::NotFoundError(absl::StrCat("no interface '", name, "'"));
}

absl::Status KeepingRoutes(const std::string& name, const std::function<absl::Status()>& flap,
                           int* restored) {
  if (restored) *restored = 0;
  std::unique_ptr<nl_sock, void (*)(nl_sock*)> sock(nl_socket_alloc(), nl_socket_free);
  if (!sock) return absl::ResourceExhaustedError("nl_socket_alloc");
  if (int rc = nl_connect(sock.get(), NETLINK_ROUTE); rc < 0) {
    return absl::UnavailableError(absl::StrCat("netlink: ", nl_geterror(rc)));
  }
  const int ifindex = static_cast<int>(if_nametoindex(name.c_str()));
  if (ifindex == 0) return absl::NotFoundError(absl::StrCat("no interface '", name, "'"));
  nl_cache* raw = nullptr;
  // Every table (the flag asks the kernel for all of them, not only main).
  if (int rc = rtnl_route_alloc_cache(sock.get(), AF_INET, ROUTE_CACHE_CONTENT, &raw); rc < 0) {
    return absl::UnavailableError(absl::StrCat("netlink route dump: ", nl_geterror(rc)));
  }
  std::unique_ptr<nl_cache, void (*)(nl_cache*)> cache(raw, nl_cache_free);
  std::vector<rtnl_route*> kept;
  for (nl_object* obj = nl_cache_get_first(cache.get()); obj != nullptr;
       obj = nl_cache_get_next(obj)) {
    auto* route = reinterpret_cast<rtnl_route*>(obj);
    if (rtnl_route_get_protocol(route) == RTPROT_KERNEL) continue;  // come back by themselves
    if (rtnl_route_get_type(route) != RTN_UNICAST) continue;        // local/broadcast: kernel's
    bool through = false;
    for (int i = 0; i < rtnl_route_get_nnexthops(route); ++i) {
      through |= rtnl_route_nh_get_ifindex(rtnl_route_nexthop_n(route, i)) == ifindex;
    }
    if (through) kept.push_back(route);
  }
  absl::Status status = flap();
  for (rtnl_route* route : kept) {
    const int rc = rtnl_route_add(sock.get(), route, NLM_F_CREATE | NLM_F_EXCL);
    if (rc == 0 && restored) ++*restored;
    if (rc < 0 && rc != -NLE_EXIST && status.ok()) {
      status = absl::InternalError(absl::StrCat("putting a route via ", name, " back: ",
                                                nl_geterror(rc)));
    }
  }
  return status;
}

}  // namespace nodeprobe::platform
