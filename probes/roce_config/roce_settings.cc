#include "probes/roce_config/roce_settings.h"

#include <sys/stat.h>
#include <unistd.h>

#include <set>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/strip.h"
#include "probes/framework/framework_findings.h"
#include "probes/framework/result_util.h"
#include "probes/roce_config/roce_config_findings.h"

namespace nodeprobe::roce {
namespace {

std::optional<int> ReadInt(const platform::FileTree& sys, const std::string& rel) {
  absl::StatusOr<std::string> v = sys.ReadValue(rel);
  int n = 0;
  if (!v.ok() || !absl::SimpleAtoi(*v, &n)) return std::nullopt;
  return n;
}

std::string Priorities(uint8_t mask) {
  std::vector<int> on;
  for (int p = 0; p < 8; ++p) {
    if (mask & (1u << p)) on.push_back(p);
  }
  return on.empty() ? "none" : absl::StrJoin(on, ",");
}

std::string Enabled(const std::map<int, bool>& by_prio) {
  uint8_t mask = 0;
  for (const auto& [p, on] : by_prio) {
    if (on) mask |= 1u << p;
  }
  return Priorities(mask);
}

std::string Trust(const platform::DcbState& dcb) { return dcb.dscp_prio.empty() ? "pcp" : "dscp"; }

// The priority RDMA traffic rides, and what says so; none when it cannot
// be known (then `basis` says what would tell).
struct Priority {
  std::optional<int> prio;
  std::string basis;
};

Priority RdmaPriority(const RocePort& port, const RoceDesign& design, std::optional<int> tos,
                      const std::string& tos_source) {
  if (design.rdma_priority) return {design.rdma_priority, "roce.rdma_priority"};
  if (!tos) return {std::nullopt, "set roce.rdma_priority or roce.tos (or NCCL_IB_TC in nccl.env)"};
  if (!port.dcb.ok()) return {std::nullopt, std::string(port.dcb.status().message())};
  const int dscp = *tos >> 2;
  auto it = port.dcb->dscp_prio.find(dscp);
  if (it == port.dcb->dscp_prio.end()) {
    return {std::nullopt, port.dcb->dscp_prio.empty()
                              ? std::string("the NIC trusts PCP, not DSCP: set roce.rdma_priority")
                              : absl::StrCat("DSCP ", dscp, " (ToS ", *tos, ") has no entry in ",
                                             port.netdev, "'s DSCP map: set roce.rdma_priority")};
  }
  return {it->second.front(),
          absl::StrCat("ToS ", *tos, " (", tos_source, ") = DSCP ", dscp, " -> priority ",
                       it->second.front(), " by ", port.netdev, "'s DSCP map")};
}

void AddValues(const RocePort& port, v1::ProbeResult* result) {
  const std::string at = absl::StrCat(port.Name(), " (", port.netdev, ") ");
  if (port.mtu > 0) AddEvidence(result, at + "MTU", absl::StrCat(port.mtu));
  if (port.dcb.ok()) {
    const platform::DcbState& d = *port.dcb;
    AddEvidence(result, at + "trust", Trust(d));
    if (d.has_pfc) {
      AddEvidence(result, at + "PFC enabled priorities",
                  absl::StrCat(Priorities(d.pfc_enabled), " (capacity ", d.pfc_cap, ", delay ",
                               d.pfc_delay, ")"));
    }
    if (d.has_ets)
      AddEvidence(result, at + "priority -> traffic class", absl::StrJoin(d.prio_tc, ","));
    if (d.dcbx) AddEvidence(result, at + "DCBX", platform::DcbxModeName(*d.dcbx));
  } else {
    AddEvidence(result, at + "DCB", std::string(port.dcb.status().message()));
  }
  if (port.ecn_why.empty()) {
    AddEvidence(result, at + "ECN roce_np on priorities", Enabled(port.ecn_np));
    AddEvidence(result, at + "ECN roce_rp on priorities", Enabled(port.ecn_rp));
  }
  if (port.cnp_dscp) AddEvidence(result, at + "CNP DSCP", absl::StrCat(*port.cnp_dscp));
  if (port.default_tos)
    AddEvidence(result, at + "rdma_cm default RoCE ToS", absl::StrCat(*port.default_tos));
  if (!port.default_mode.empty())
    AddEvidence(result, at + "rdma_cm default RoCE mode", port.default_mode);
  if (port.traffic_class)
    AddEvidence(result, at + "traffic class override", absl::StrCat(*port.traffic_class));
  for (const auto& [name, n] : port.storm) AddEvidence(result, at + name, absl::StrCat(n));
}

void NotReadable(const RocePort& port, const std::string& what, const std::string& why,
                 v1::ProbeResult* result) {
  AddFinding(result, findings::kRoceConfigNotReadable.code, port.Name(),
             absl::StrCat(port.Name(), " (", port.netdev, "): ", what, " not known: ", why));
}

// roce.lossless: PFC on the RDMA priority and nowhere else.
void JudgePfc(const RocePort& port, bool lossless, const Priority& prio, v1::ProbeResult* result) {
  if (!port.dcb.ok() || !port.dcb->has_pfc) {
    NotReadable(
        port, "PFC",
        port.dcb.ok() ? "the driver reports no IEEE PFC" : std::string(port.dcb.status().message()),
        result);
    return;
  }
  uint8_t allowed = 0;
  if (lossless) {
    if (!prio.prio) return NotReadable(port, "the RDMA priority", prio.basis, result);
    allowed = 1u << *prio.prio;
    if (!(port.dcb->pfc_enabled & allowed)) {
      AddFinding(result, findings::kRoceRdmaPriorityNotLossless.code, port.Name(),
                 absl::StrCat(port.netdev, ": PFC is off on the RDMA priority ", *prio.prio, " (",
                              prio.basis, "); PFC is on for ", Priorities(port.dcb->pfc_enabled),
                              " (roce.lossless: true)"));
    }
  }
  if (const uint8_t extra = port.dcb->pfc_enabled & ~allowed; extra != 0) {
    AddFinding(result, findings::kRocePfcScopeTooWide.code, port.Name(),
               absl::StrCat(port.netdev, ": PFC is on for priority ", Priorities(extra),
                            lossless ? absl::StrCat(" besides the RDMA priority ", *prio.prio)
                                     : std::string(" though roce.lossless is false"),
                            ": a pause there stalls traffic the design did not make lossless"));
  }
}

void JudgeEcn(const RocePort& port, const Priority& prio, v1::ProbeResult* result) {
  if (!prio.prio) return NotReadable(port, "the RDMA priority", prio.basis, result);
  if (!port.ecn_why.empty()) return NotReadable(port, "ECN", port.ecn_why, result);
  std::vector<std::string> off;
  for (const auto& [role, map] : {std::pair{"roce_np (notification point)", &port.ecn_np},
                                  std::pair{"roce_rp (reaction point)", &port.ecn_rp}}) {
    auto it = map->find(*prio.prio);
    if (it == map->end())
      return NotReadable(port, absl::StrCat("ECN of ", role), "no entry for the RDMA priority",
                         result);
    if (!it->second) off.push_back(role);
  }
  if (!off.empty()) {
    AddFinding(
        result, findings::kRoceEcnDisabled.code, port.Name(),
        absl::StrCat(port.netdev, ": ECN is off for ", absl::StrJoin(off, " and "),
                     " on the RDMA priority ", *prio.prio, " (", prio.basis, "; roce.ecn: true)"));
  }
}

void JudgeTos(const RocePort& port, int tos, const std::string& source, v1::ProbeResult* result) {
  if (!port.default_tos) {
    NotReadable(port, "rdma_cm's default RoCE ToS", port.rdma_cm_why, result);
  } else if (*port.default_tos != tos) {
    AddFinding(result, findings::kRoceTosMismatch.code, port.Name(),
               absl::StrCat(port.Name(), ": rdma_cm's default RoCE ToS is ", *port.default_tos,
                            ", the design's is ", tos, " (", source,
                            "): rdma_cm traffic rides another class than NCCL's"));
  }
  if (!port.traffic_class_why.empty()) {
    NotReadable(port, "the device's traffic class override", port.traffic_class_why, result);
  } else if (port.traffic_class && *port.traffic_class != tos) {
    AddFinding(result, findings::kRoceTosMismatch.code, port.Name(),
               absl::StrCat(port.Name(), ": the device's traffic class override is ",
                            *port.traffic_class, ", the design's ToS is ", tos, " (", source,
                            "): every QP on the port is stamped with the override"));
  }
}

}  // namespace

std::string RocePort::Name() const { return absl::StrCat(device, ":", port); }

absl::StatusOr<std::vector<std::string>> CarrierNetdevs(const platform::FileTree& sys,
                                                        const std::string& netdev) {
  std::vector<std::string> out;
  std::vector<std::string> todo = {netdev};
  std::set<std::string> seen;
  for (int guard = 0; !todo.empty(); ++guard) {
    if (guard >= 64) {
      return absl::DataLossError(absl::StrCat(netdev, "'s lower_ links go on past 64 devices"));
    }
    const std::string dev = todo.back();
    todo.pop_back();
    // A device met twice: its lower_ links loop (a damaged or forged
    // capture); the carriers are not known.
    if (!seen.insert(dev).second) {
      return absl::DataLossError(
          absl::StrCat(netdev, "'s lower_ links form a cycle (or meet twice) at ", dev));
    }
    std::vector<std::string> lower;
    if (absl::StatusOr<std::vector<std::string>> entries = sys.ListDir("class/net/" + dev);
        entries.ok()) {
      for (const std::string& e : *entries) {
        if (absl::StartsWith(e, "lower_")) lower.push_back(e.substr(6));
      }
    }
    if (lower.empty()) {
      out.push_back(dev);
    } else {
      todo.insert(todo.end(), lower.rbegin(), lower.rend());
    }
  }
  return out;
}

void ReadSysfsSettings(const platform::FileTree& sys, RocePort* port) {
  const std::string net = "class/net/" + port->netdev;
  port->mtu = ReadInt(sys, net + "/mtu").value_or(0);
  for (const auto& [role, into] :
       {std::pair{"roce_np", &port->ecn_np}, std::pair{"roce_rp", &port->ecn_rp}}) {
    const std::string dir = absl::StrCat(net, "/ecn/", role, "/enable");
    absl::StatusOr<std::vector<std::string>> prios = sys.ListDir(dir);
    if (!prios.ok()) {
      port->ecn_why = absl::StrCat(sys.Path(dir), " is absent: the driver exposes no ECN switches");
      continue;
    }
    for (const std::string& p : *prios) {
      int prio = 0;
      std::optional<int> on = ReadInt(sys, dir + "/" + p);
      if (!absl::SimpleAtoi(p, &prio) || prio < 0 || prio >= 8) continue;
      if (!on || (*on != 0 && *on != 1)) {  // a switch is 0 or 1; anything else is not "on"
        port->ecn_why = absl::StrCat(sys.Path(dir + "/" + p), " reads ",
                                     on ? absl::StrCat(*on) : std::string("no number"),
                                     ", not 0 or 1");
        continue;
      }
      (*into)[prio] = *on == 1;
    }
  }
  port->cnp_dscp = ReadInt(sys, net + "/ecn/roce_np/cnp_dscp");
  if (absl::StatusOr<std::string> tc = sys.ReadValue(
          absl::StrCat("class/infiniband/", port->device, "/tc/", port->port, "/traffic_class"));
      tc.ok()) {
    port->traffic_class = ParseTrafficClass(*tc);
    // "Global tclass=-1" is no override; anything else that is not a class
    // is not read, never ignored.
    if (!port->traffic_class && absl::StripAsciiWhitespace(*tc) != "Global tclass=-1") {
      port->traffic_class_why =
          absl::StrCat(sys.Path(absl::StrCat("class/infiniband/", port->device, "/tc/",
                                             port->port, "/traffic_class")),
                       " reads '", absl::StripAsciiWhitespace(*tc), "', not a traffic class");
    }
  }
}

void ReadRdmaCmDefaults(const platform::FileTree& sys, bool create, RocePort* port) {
  const std::string root = "kernel/config/rdma_cm";
  if (!sys.Exists(root)) {
    port->rdma_cm_why =
        absl::StrCat(sys.Path(root), " is absent (configfs not mounted or rdma_cm not loaded)");
    return;
  }
  const std::string dev = absl::StrCat(root, "/", port->device);
  bool made = false;
  if (!sys.Exists(dev)) {
    if (!create) {
      port->rdma_cm_why = absl::StrCat(sys.Path(dev), " was not captured");
      return;
    }
    // The group exists only while someone holds it: make it as
    // cma_roce_tos does, and remove it when done.
    if (mkdir(sys.Path(dev).c_str(), 0755) != 0) {
      port->rdma_cm_why = absl::StrCat("mkdir ", sys.Path(dev), ": ", strerror(errno));
      return;
    }
    made = true;
  }
  const std::string dir = absl::StrCat(dev, "/ports/", port->port);
  port->default_tos = ReadInt(sys, dir + "/default_roce_tos");
  if (absl::StatusOr<std::string> mode = sys.ReadValue(dir + "/default_roce_mode"); mode.ok()) {
    port->default_mode = *mode;
  }
  if (!port->default_tos)
    port->rdma_cm_why = absl::StrCat(sys.Path(dir), "/default_roce_tos is unreadable");
  if (made) rmdir(sys.Path(dev).c_str());
}

std::optional<int> ParseTrafficClass(const std::string& text) {
  absl::string_view v = text;
  absl::ConsumePrefix(&v, "Global tclass=");
  int n = 0;
  if (!absl::SimpleAtoi(v, &n) || n < 0 || n > 255) return std::nullopt;
  return n;
}

int JudgeRocePort(const RocePort& port, const RoceDesign& design, std::optional<int> tos,
                  const std::string& tos_source, v1::ProbeResult* result) {
  if (!port.carrier_why.empty()) {
    NotReadable(port, "the interface carrying it", port.carrier_why, result);
    return 1;
  }
  AddValues(port, result);
  for (const auto& [name, n] : port.storm) {
    if (n == 0) continue;
    AddFinding(result, findings::kRocePauseStorm.code, v1::WARN, port.Name(),
               absl::StrCat(port.netdev, ": ", name, " is ", n,
                            " since the driver loaded: the NIC sent pause frames without "
                            "end and its watchdog stepped in"));
  }
  if (!design.Any()) return 0;
  int judged = 0;
  const Priority prio = RdmaPriority(port, design, tos, tos_source);
  if (prio.prio)
    AddEvidence(result, port.Name() + " RDMA priority",
                absl::StrCat(*prio.prio, " (", prio.basis, ")"));
  if (!design.trust.empty()) {
    ++judged;
    if (!port.dcb.ok()) {
      NotReadable(port, "the trust mode", std::string(port.dcb.status().message()), result);
    } else if (Trust(*port.dcb) != design.trust) {
      AddFinding(
          result, findings::kRoceTrustMismatch.code, port.Name(),
          absl::StrCat(port.netdev, " trusts ", Trust(*port.dcb), " (its DSCP map has ",
                       port.dcb->dscp_prio.size(), " entries), roce.trust is ", design.trust));
    }
  }
  if (design.lossless) {
    ++judged;
    JudgePfc(port, *design.lossless, prio, result);
  }
  if (design.ecn.value_or(false)) {
    ++judged;
    JudgeEcn(port, prio, result);
  }
  if (design.tos) {
    ++judged;
    JudgeTos(port, *design.tos, "roce.tos", result);
  }
  return judged;
}

void AddRoceSettings(const RocePort& port, v1::ConfigReport* config) {
  auto add = [&](const std::string& name, const std::string& value) {
    v1::Setting* s = config->add_settings();
    s->set_name(name);
    s->set_device(port.Name());
    s->set_value(value);
  };
  add("roce.mtu", port.mtu > 0 ? absl::StrCat(port.mtu) : "unreadable");
  add("roce.trust", port.dcb.ok() ? Trust(*port.dcb) : "unreadable");
  add("roce.pfc",
      port.dcb.ok() && port.dcb->has_pfc ? Priorities(port.dcb->pfc_enabled) : "unreadable");
  add("roce.ecn_np", port.ecn_why.empty() ? Enabled(port.ecn_np) : "unreadable");
  add("roce.ecn_rp", port.ecn_why.empty() ? Enabled(port.ecn_rp) : "unreadable");
  add("roce.default_tos", port.default_tos ? absl::StrCat(*port.default_tos) : "unreadable");
  if (port.traffic_class) add("roce.traffic_class", absl::StrCat(*port.traffic_class));
}

}  // namespace nodeprobe::roce
