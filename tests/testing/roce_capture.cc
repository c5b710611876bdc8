#include "tests/testing/roce_capture.h"

#include <linux/dcbnl.h>
#include <linux/rtnetlink.h>
#include <netlink/attr.h>
#include <netlink/msg.h>

#include <cstring>
#include <memory>
#include <sstream>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "tests/testing/fixtures.h"

namespace nodeprobe::testing {
namespace {

using Msg = std::unique_ptr<nl_msg, void (*)(nl_msg*)>;

Msg NewReply(uint8_t cmd, const std::string& ifname) {
  Msg msg(nlmsg_alloc_simple(RTM_GETDCB, 0), nlmsg_free);
  dcbmsg d{};
  d.dcb_family = AF_UNSPEC;
  d.cmd = cmd;
  nlmsg_append(msg.get(), &d, sizeof(d), NLMSG_ALIGNTO);
  nla_put_string(msg.get(), DCB_ATTR_IFNAME, ifname.c_str());
  return msg;
}

std::string Bytes(nl_msg* msg) {
  const nlmsghdr* h = nlmsg_hdr(msg);
  return std::string(reinterpret_cast<const char*>(h), h->nlmsg_len);
}

}  // namespace

QosState ParseMlnxQos(const std::string& text) {
  QosState s;
  bool pfc_seen = false;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    absl::string_view l = absl::StripAsciiWhitespace(line);
    if (absl::ConsumePrefix(&l, "Priority trust state:")) {
      s.trust_dscp = absl::StripAsciiWhitespace(l) == "dscp";
    } else if (absl::ConsumePrefix(&l, "enabled") && !pfc_seen) {
      pfc_seen = true;
      int p = 0;
      for (absl::string_view v : absl::StrSplit(l, ' ', absl::SkipWhitespace())) {
        if (v == "1") s.pfc |= 1u << p;
        ++p;
      }
    } else if (absl::ConsumePrefix(&l, "prio:") && s.trust_dscp) {
      std::pair<absl::string_view, absl::string_view> kv = absl::StrSplit(l, " dscp:");
      int prio = 0;
      if (!absl::SimpleAtoi(kv.first, &prio)) continue;
      for (absl::string_view d : absl::StrSplit(kv.second, ',', absl::SkipEmpty())) {
        int dscp = 0;
        if (absl::SimpleAtoi(d, &dscp)) {
          auto& prios = s.dscp_prio[dscp];
          if (prios.empty() || prios.back() != prio) prios.push_back(prio);
        }
      }
    }
  }
  return s;
}

std::string DcbIeeeReply(const QosState& state, const std::string& ifname) {
  Msg msg = NewReply(DCB_CMD_IEEE_GET, ifname);
  nlattr* ieee = nla_nest_start(msg.get(), DCB_ATTR_IEEE);
  ieee_ets ets{};
  ets.ets_cap = 8;
  for (int p = 0; p < 8; ++p) ets.prio_tc[p] = p;
  nla_put(msg.get(), DCB_ATTR_IEEE_ETS, sizeof(ets), &ets);
  ieee_pfc pfc{};
  pfc.pfc_cap = 8;
  pfc.pfc_en = state.pfc;
  nla_put(msg.get(), DCB_ATTR_IEEE_PFC, sizeof(pfc), &pfc);
  nlattr* apps = nla_nest_start(msg.get(), DCB_ATTR_IEEE_APP_TABLE);
  if (state.trust_dscp) {
    for (const auto& [dscp, prios] : state.dscp_prio) {
      for (int p : prios) {
        dcb_app a{};
        a.selector = IEEE_8021QAZ_APP_SEL_DSCP;
        a.priority = static_cast<uint8_t>(p);
        a.protocol = static_cast<uint16_t>(dscp);
        nla_put(msg.get(), DCB_ATTR_IEEE_APP, sizeof(a), &a);
      }
    }
  }
  nla_nest_end(msg.get(), apps);
  nla_nest_end(msg.get(), ieee);
  return Bytes(msg.get());
}

std::string DcbDcbxReply(const std::string& ifname) {
  Msg msg = NewReply(DCB_CMD_GDCBX, ifname);
  nla_put_u8(msg.get(), DCB_ATTR_DCBX, DCB_CAP_DCBX_HOST | DCB_CAP_DCBX_VER_IEEE);
  return Bytes(msg.get());
}

int WriteQosQueryTree(const std::string& text, const std::string& sys_root,
                      const std::string& device, const std::string& netdev) {
  int n = 0;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    absl::string_view l = absl::StripAsciiWhitespace(line);
    if (absl::ConsumePrefix(&l, "cma_roce_tos:")) {
      WriteFile(
          absl::StrCat(sys_root, "/kernel/config/rdma_cm/", device, "/ports/1/default_roce_tos"),
          absl::StrCat(absl::StripAsciiWhitespace(l), "\n"));
      WriteFile(
          absl::StrCat(sys_root, "/kernel/config/rdma_cm/", device, "/ports/1/default_roce_mode"),
          "RoCE v2\n");
      n += 2;
      continue;
    }
    const size_t at = l.find(": /sys/");
    const size_t eq = l.rfind(" = ");
    if (at == absl::string_view::npos || eq == absl::string_view::npos || eq < at) continue;
    std::string path(l.substr(at + 6, eq - at - 6));  // "/class/..."
    if (!netdev.empty() && absl::StartsWith(path, "/class/net/")) {
      const size_t end = path.find('/', 11);
      path = absl::StrCat("/class/net/", netdev, path.substr(end));
    }
    WriteFile(absl::StrCat(sys_root, path), absl::StrCat(l.substr(eq + 3), "\n"));
    ++n;
  }
  return n;
}

void MakeRocePort(const std::string& sys_root, const std::string& netdev, int mtu) {
  RemoveTree(sys_root + "/class/infiniband/scif0");  // its link dangles in the capture
  const std::string port = sys_root + "/class/infiniband/mlx4_0/ports/1/";
  WriteFile(port + "link_layer", "Ethernet\n");
  RemoveTree(port + "gids");
  WriteFile(port + "gids/1", "0000:0000:0000:0000:0000:ffff:0a00:0005\n");
  WriteFile(port + "gid_attrs/types/1", "RoCE v2\n");
  WriteFile(port + "gid_attrs/ndevs/1", netdev + "\n");
  WriteFile(sys_root + "/class/net/" + netdev + "/mtu", absl::StrCat(mtu, "\n"));
}

}  // namespace nodeprobe::testing
