#include "probes/interfaces/interfaces.h"

#include <algorithm>
#include <sstream>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "probes/framework/result_util.h"
#include "probes/interfaces/interfaces_findings.h"

namespace nodeprobe::interfaces {
namespace {

constexpr unsigned kIffUp = 0x1;  // <linux/if.h>; class/net/*/flags is hex

int ReadInt(const platform::FileTree& sys, const std::string& rel) {
  int v = 0;
  absl::StatusOr<std::string> s = sys.ReadValue(rel);
  return s.ok() && absl::SimpleAtoi(*s, &v) ? v : 0;
}

Interface ReadOne(const platform::FileTree& sys, const std::string& name) {
  const std::string dir = "class/net/" + name;
  Interface i;
  i.name = name;
  unsigned flags = 0;
  absl::StatusOr<std::string> f = sys.ReadValue(dir + "/flags");
  i.admin_up = f.ok() && absl::SimpleHexAtoi(*f, &flags) && (flags & kIffUp) != 0;
  i.operstate = sys.ReadValue(dir + "/operstate").value_or("unknown");
  i.mtu = ReadInt(sys, dir + "/mtu");
  i.rdma = sys.ListDir(dir + "/device/infiniband").value_or(std::vector<std::string>{});
  std::sort(i.rdma.begin(), i.rdma.end());
  i.vf = sys.Exists(dir + "/device/physfn");
  if (i.vf) {
    std::vector<std::string> pfs =
        sys.ListDir(dir + "/device/physfn/net").value_or(std::vector<std::string>{});
    if (!pfs.empty()) {
      std::sort(pfs.begin(), pfs.end());
      i.pf = pfs.front();
      i.pf_mtu = ReadInt(sys, dir + "/device/physfn/net/" + i.pf + "/mtu");
    }
  }
  return i;
}

bool NoCarrier(const Interface& i) {
  return i.operstate == "down" || i.operstate == "lowerlayerdown" || i.operstate == "notpresent";
}

// What a job's network is made of (interfaces.h).
bool Attachment(const Interface& i) {
  static const char* const kKinds[] = {"veth", "macvlan", "ipvlan", "macvtap", "ipoib"};
  return !i.rdma.empty() || i.vf ||
         std::find(std::begin(kKinds), std::end(kKinds), i.kind) != std::end(kKinds);
}

// Configured for use: set up by its owner (a CNI, the job), or carrying RDMA.
bool InUse(const Interface& i) { return Attachment(i) && (i.admin_up || !i.rdma.empty()); }

std::string Describe(const Interface& i, bool primary, bool addresses_known) {
  std::vector<std::string> parts;
  if (primary) parts.push_back("primary (IPv4 default route)");
  parts.push_back(i.admin_up ? absl::StrCat("up, operstate ", i.operstate)
                             : "administratively down");
  parts.push_back(absl::StrCat("mtu ", i.mtu));
  parts.push_back(i.rdma.empty() ? "no RDMA device"
                                 : absl::StrCat("RDMA ", absl::StrJoin(i.rdma, ",")));
  if (i.vf) {
    parts.push_back(i.pf.empty() ? "SR-IOV VF (its PF not visible here)"
                                 : absl::StrCat("SR-IOV VF of ", i.pf, " (mtu ", i.pf_mtu, ")"));
  }
  if (addresses_known) {
    parts.push_back(i.ipv4.empty() ? "no IPv4 address" : absl::StrJoin(i.ipv4, ","));
  }
  if (!i.kind.empty()) parts.push_back(i.kind);
  if (!primary && !Attachment(i)) parts.push_back("not judged (no RDMA, not a VF or CNI link)");
  return absl::StrJoin(parts, ", ");
}

void JudgeOne(const Interface& i, const Rules& rules, v1::ProbeResult* r) {
  if (!Attachment(i)) return;
  if (i.admin_up && NoCarrier(i)) {
    AddFinding(r, findings::kSecondaryInterfaceDown.code, i.name,
               absl::StrCat(i.name, " is up but has no carrier (operstate ", i.operstate,
                            "): its link, cable or VF is down, and traffic the job sends "
                            "over it is lost"));
  } else if (!i.admin_up && !i.rdma.empty()) {
    AddFinding(r, findings::kSecondaryInterfaceDown.code, i.name,
               absl::StrCat(i.name, " is administratively down with RDMA device ",
                            absl::StrJoin(i.rdma, ","),
                            " behind it: its RoCE GIDs and IPoIB traffic are gone"));
  }
  if (!InUse(i)) return;
  if (rules.mtu > 0 && i.mtu < rules.mtu) {
    AddFinding(r, findings::kSecondaryInterfaceMtu.code, i.name,
               absl::StrCat(i.name, " has MTU ", i.mtu, ", below the profile's ", rules.mtu,
                            " (preflight.interface_mtu): set the network attachment's mtu"));
  }
  if (i.vf && i.pf_mtu > 0 && i.mtu > i.pf_mtu) {
    AddFinding(
        r, findings::kSecondaryInterfaceMtu.code, i.name,
        absl::StrCat(i.name, " (an SR-IOV VF) has MTU ", i.mtu, " but its PF ", i.pf, " has ",
                     i.pf_mtu, ": frames above the PF's MTU are dropped; raise the PF's first"));
  }
}

}  // namespace

std::vector<Interface> ReadInterfaces(const platform::FileTree& sys) {
  std::vector<std::string> names = sys.ListDir("class/net").value_or(std::vector<std::string>{});
  std::sort(names.begin(), names.end());
  std::vector<Interface> out;
  for (const std::string& n : names) {
    if (n == "lo" || !sys.Exists("class/net/" + n + "/mtu")) continue;  // bonding_masters
    out.push_back(ReadOne(sys, n));
  }
  return out;
}

std::string DefaultRouteInterface(const std::string& route_table) {
  std::istringstream in(route_table);
  std::string line;
  std::getline(in, line);  // header
  while (std::getline(in, line)) {
    std::istringstream f(line);
    std::string iface, dest, gateway, flags, refcnt, use, metric, mask;
    if (!(f >> iface >> dest >> gateway >> flags >> refcnt >> use >> metric >> mask)) continue;
    if (dest == "00000000" && mask == "00000000") return iface;
  }
  return "";
}

void Judge(const std::vector<Interface>& all, const std::string& primary, const Rules& rules,
           v1::ProbeResult* r) {
  std::vector<std::string> in_use;
  bool any_rdma = false;
  for (const Interface& i : all) {
    AddEvidence(r, "iface." + i.name, Describe(i, i.name == primary, rules.addresses_known));
    if (i.name == primary) continue;
    JudgeOne(i, rules, r);
    if (InUse(i)) in_use.push_back(i.name);
    any_rdma |= !i.rdma.empty();
  }
  AddMeasurement(r, "preflight.secondary_interfaces", static_cast<double>(in_use.size()), "");
  if (rules.rdma_expected && !in_use.empty() && !any_rdma) {
    AddFinding(r, findings::kSecondaryInterfaceNotRdma.code, "",
               absl::StrCat("the job expects RDMA (", rules.rdma_why,
                            ") but no RDMA device sits "
                            "behind its secondary interfaces (",
                            absl::StrJoin(in_use, ", "),
                            "): the attachment is a plain macvlan/ipvlan/veth, not the SR-IOV or "
                            "RDMA-shared resource"));
  }
}

}  // namespace nodeprobe::interfaces
