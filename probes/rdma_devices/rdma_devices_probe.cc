#include "probes/rdma_devices/rdma_devices_probe.h"

#include <set>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "platform/file_tree.h"
#include "platform/pci_sysfs.h"
#include "platform/verbs_port.h"
#include "probes/framework/framework_findings.h"
#include "probes/framework/result_util.h"
#include "probes/pcie/pcie_link.h"
#include "probes/rdma_devices/compute_rails.h"
#include "probes/rdma_devices/rdma_capable_nics.h"
#include "probes/rdma_devices/rdma_devices_findings.h"
#include "probes/rdma_devices/rdma_profile.h"
#include "probes/rdma_devices/rdma_sysfs_parser.h"

namespace nodeprobe {
namespace {

constexpr const char* kInvalid = findings::kSysfsValueInvalid.code;

// Records an attribute as evidence and returns its value, or adds an ERROR
// finding naming the file and returns nullopt.
std::optional<std::string> Value(const platform::RawAttr& attr,
                                 const std::string& device,
                                 v1::ProbeResult* result) {
  if (!attr.value.ok()) {
    AddFinding(result, kInvalid, device, std::string(attr.value.status().message()));
    return std::nullopt;
  }
  AddEvidence(result, attr.path, *attr.value);
  return *attr.value;
}

void InvalidValue(v1::ProbeResult* result, const std::string& device,
                  const platform::RawAttr& attr, const absl::Status& why) {
  AddFinding(result, kInvalid, device, absl::StrCat(attr.path, ": ", why.message()));
}

// Parses `attr` with `parse`; on failure adds an ERROR finding.
template <typename T, typename Fn>
std::optional<T> Parsed(const platform::RawAttr& attr, const std::string& device,
                        v1::ProbeResult* result, Fn parse) {
  std::optional<std::string> text = Value(attr, device, result);
  if (!text) return std::nullopt;
  absl::StatusOr<T> v = parse(*text);
  if (!v.ok()) {
    InvalidValue(result, device, attr, v.status());
    return std::nullopt;
  }
  return *std::move(v);
}

void JudgeGids(const platform::RawRdmaPort& raw, const std::string& device,
               bool active, v1::RdmaPort* port, v1::ProbeResult* result) {
  bool ethernet = port->link_layer() == "Ethernet";
  if (!raw.gids_status.ok()) {
    if (ethernet) {
      AddFinding(result, kInvalid, device, std::string(raw.gids_status.message()));
    }
    return;
  }
  bool types_known = true;
  bool routable_v2 = false;
  for (const platform::RawGid& raw_gid : raw.gids) {
    if (!raw_gid.gid.value.ok()) continue;
    v1::GidEntry* gid = port->add_gids();
    gid->set_index(raw_gid.index);
    gid->set_gid(*raw_gid.gid.value);
    absl::StatusOr<rdma::GidFamily> family = rdma::ClassifyGid(gid->gid());
    if (family.ok()) gid->set_family(std::string(rdma::GidFamilyName(*family)));
    if (raw_gid.netdev.value.ok()) gid->set_netdev(*raw_gid.netdev.value);
    if (!raw_gid.type.value.ok()) {
      types_known = false;
      continue;
    }
    absl::StatusOr<rdma::GidType> type = rdma::ParseGidType(*raw_gid.type.value);
    if (!type.ok()) {
      InvalidValue(result, device, raw_gid.type, type.status());
      continue;
    }
    gid->set_type(std::string(rdma::GidTypeName(*type)));
    if (*type == rdma::GidType::kRoceV2 && family.ok() &&
        *family != rdma::GidFamily::kLinkLocal) {
      routable_v2 = true;
    }
  }
  // A RoCE job routed over IP needs a RoCE v2 GID that carries the port's IP
  // address; a link-local (fe80::) entry does not route.
  if (!ethernet || !active || routable_v2) return;
  if (!types_known) {
    AddFinding(result, findings::kRoceGidTypeUnknown.code, device,
               "the kernel does not expose gid_attrs/types, so RoCE v2 "
               "GIDs cannot be told apart");
    return;
  }
  AddFinding(result, findings::kRoceNoV2Gid.code, device,
             "Ethernet (RoCE) port has no RoCE v2 GID with a routable (non "
             "link-local) address");
}

void JudgeCounters(const platform::RawRdmaPort& raw, const std::string& device,
                   const Profile& profile, v1::RdmaPort* port,
                   v1::ProbeResult* result) {
  auto read = [&](const std::map<std::string, platform::RawAttr>& from,
                  google::protobuf::Map<std::string, uint64_t>* into) {
    for (const auto& [name, attr] : from) {
      std::optional<std::optional<uint64_t>> v =
          Parsed<std::optional<uint64_t>>(attr, device, result,
                                          rdma::ParseCounter);
      if (v && *v) (*into)[name] = **v;
    }
  };
  if (!raw.counters_status.ok()) {
    // Unreadable is not clean: the error counters were not seen.
    AddFinding(
        result, findings::kRdmaCountersUnreadable.code, device,
        absl::StrCat("the port's error counters cannot be read: ", raw.counters_status.message()));
  }
  read(raw.counters, port->mutable_counters());
  read(raw.hw_counters, port->mutable_hw_counters());
  // A counters/ directory without the error counters judged here is not a
  // clean port: the ones absent were not seen.
  if (raw.counters_status.ok()) {
    std::vector<std::string> absent;
    for (const std::string& name : RdmaErrorCounterNames()) {
      if (!raw.counters.count(name)) absent.push_back(name);
    }
    if (!absent.empty()) {
      AddFinding(result, findings::kRdmaCountersUnreadable.code, device,
                 absl::StrCat("the port's counters/ lacks ", absl::StrJoin(absent, ", "),
                              ": those errors were not seen"));
    }
  }
  std::string nonzero;
  for (const std::string& name : RdmaErrorCounterNames()) {
    auto it = port->counters().find(name);
    if (it == port->counters().end() || it->second == 0) continue;
    absl::StrAppend(&nonzero, nonzero.empty() ? "" : ", ", name, "=",
                    it->second);
  }
  if (nonzero.empty()) return;
  AddFinding(result, findings::kRdmaErrorCountersNonzero.code,
             profile.Section<RdmaExpectations>().error_counters, device,
             absl::StrCat("error counters are non-zero: ", nonzero));
}

// A port's sysfs attributes read and recorded in `port`; each unreadable
// one is an error finding and left unset.
struct PortReading {
  std::optional<rdma::PortState> state, phys;
  std::optional<std::string> link_layer;
  std::optional<double> rate;
  std::optional<uint32_t> sm_lid;
  bool ib() const { return link_layer && *link_layer == "InfiniBand"; }
  bool active() const { return state && phys && state->name == "ACTIVE" && phys->name == "LinkUp"; }
};

PortReading ReadPort(const platform::RawRdmaPort& raw, const std::string& device,
                     v1::RdmaPort* port, v1::ProbeResult* result) {
  auto attr = [&](const char* name) -> const platform::RawAttr& { return raw.attrs.at(name); };
  PortReading p;
  p.state = Parsed<rdma::PortState>(attr("state"), device, result, rdma::ParsePortState);
  p.phys = Parsed<rdma::PortState>(attr("phys_state"), device, result, rdma::ParsePhysState);
  p.link_layer = Parsed<std::string>(attr("link_layer"), device, result, rdma::ParseLinkLayer);
  p.rate = Parsed<double>(attr("rate"), device, result, rdma::ParseRateGbps);
  if (p.state) port->set_state(p.state->name);
  if (p.phys) port->set_phys_state(p.phys->name);
  if (p.link_layer) port->set_link_layer(*p.link_layer);
  if (p.rate) {
    port->set_rate(*attr("rate").value);
    port->set_rate_gbps(*p.rate);
  }
  // lid and sm_lid only add to what state already says (an ACTIVE IB port
  // was configured by an SM), so a tree without them is judged without them;
  // a value that is there but garbled is still an error.
  auto present = [&](const char* name) {
    return attr(name).value.status().code() != absl::StatusCode::kNotFound;
  };
  if (p.ib() && present("lid")) {
    if (auto lid = Value(attr("lid"), device, result)) port->set_lid(*lid);
  }
  if (p.ib() && present("sm_lid")) {
    p.sm_lid = Parsed<uint32_t>(attr("sm_lid"), device, result, rdma::ParseLid);
    if (p.sm_lid) port->set_sm_lid(*attr("sm_lid").value);
  }
  return p;
}

// A port that is not ACTIVE/LinkUp, or an IB port no subnet manager
// configured. An IB link that trained (LinkUp) but stays INIT, or is
// ACTIVE with no SM LID, is waiting for a subnet manager, not broken.
void JudgePortState(const PortReading& p, const std::string& device, bool compute_rail,
                    v1::ProbeResult* result) {
  if (p.state && p.phys && !p.active()) {
    if (p.ib() && p.phys->name == "LinkUp" && p.state->name == "INIT") {
      AddFinding(result, findings::kIbNoSubnetManager.code, device,
                 "InfiniBand link is up but the port stays INIT: no subnet "
                 "manager has configured it");
    } else {
      AddFinding(result, findings::kRdmaPortDown.code, compute_rail ? v1::FAIL : v1::WARN, device,
                 absl::StrCat("port state is ", p.state->name, ", physical state ", p.phys->name,
                              " (ACTIVE and LinkUp expected)",
                              compute_rail ? ""
                                           : "; not a compute rail (no GPU's nearest RDMA "
                                             "NIC): WARN"));
    }
  } else if (p.active() && p.ib() && p.sm_lid && *p.sm_lid == 0) {
    AddFinding(result, findings::kIbNoSubnetManager.code, device,
               "InfiniBand port is ACTIVE but its SM LID is 0: no subnet "
               "manager is reachable");
  }
}

// The profile's rdma: expectations (rate, link layer) against the port.
void JudgePortExpectations(const PortReading& p, const platform::RawRdmaPort& raw,
                           const std::string& device, const Profile& profile,
                           v1::ProbeResult* result) {
  const auto& want = profile.Section<RdmaExpectations>();
  if (p.active() && p.rate && want.rate_gbps && *p.rate < *want.rate_gbps) {
    AddFinding(result, findings::kRdmaRateBelowExpected.code, device,
               absl::StrCat("port rate is ", *raw.attrs.at("rate").value, ", the profile expects ",
                            *want.rate_gbps, " Gb/s"));
  }
  if (p.link_layer && want.link_layer && *p.link_layer != *want.link_layer) {
    AddFinding(
        result, findings::kRdmaLinkLayerUnexpected.code, device,
        absl::StrCat("link layer is ", *p.link_layer, ", the profile expects ", *want.link_layer));
  }
}

// `compute_rail`: the port is a GPU's nearest RDMA NIC's, or the node has
// no GPU to tell rails by (a port that is down there FAILs).
void JudgePort(const platform::RawRdmaPort& raw, const std::string& dev_name,
               const Profile& profile, bool query_verbs, bool compute_rail, v1::RdmaPort* port,
               v1::ProbeResult* result) {
  const std::string device = absl::StrCat(dev_name, ":", raw.port);
  port->set_port(raw.port);
  const PortReading p = ReadPort(raw, device, port, result);
  JudgePortState(p, device, compute_rail, result);
  JudgePortExpectations(p, raw, device, profile, result);
  JudgeGids(raw, device, p.active(), port, result);
  JudgeCounters(raw, device, profile, port, result);
  if (query_verbs) {
    absl::StatusOr<uint32_t> mtu = platform::QueryActiveMtu(dev_name, raw.port);
    if (mtu.ok()) {
      port->set_active_mtu(*mtu);
    } else {
      AddFinding(result, findings::kRdmaVerbsQueryFailed.code, device,
                 std::string(mtu.status().message()));
    }
  }
  std::map<std::string, std::string> labels = {{"device", dev_name},
                                               {"port", absl::StrCat(raw.port)}};
  if (p.rate) AddMeasurement(result, "rdma_port_rate", *p.rate, "Gb/s", labels);
  if (port->active_mtu() != 0) {
    AddMeasurement(result, "rdma_active_mtu", port->active_mtu(), "bytes", labels);
  }
}

}  // namespace

const std::vector<std::string>& RdmaErrorCounterNames() {
  static const std::vector<std::string> kNames = {
      "symbol_error",          "link_error_recovery",
      "link_downed",           "port_rcv_errors",
      "port_xmit_discards",    "local_link_integrity_errors",
      "excessive_buffer_overrun_errors"};
  return kNames;
}

void JudgeUnboundRdmaFunctions(const std::map<std::string, platform::RawPciDevice>& pci,
                                const std::vector<platform::RawRdmaDevice>& devices,
                                const Profile& profile, v1::ProbeResult* result) {
  std::set<std::string> bound;
  for (const auto& d : devices) bound.insert(d.pci_address);
  const bool rdma_expected = profile.Section<RdmaExpectations>().rate_gbps.has_value() ||
                             profile.Section<RdmaExpectations>().link_layer.has_value();
  for (const auto& entry : pci) {
    const std::string& addr = entry.first;
    const auto& dev = entry.second;  // a plain reference: lambdas may capture it
    // Identity as the pcie probe parses it; a device whose identity does
    // not read is that probe's finding, not this one's.
    auto parsed = [&](const char* key, auto parse) -> std::optional<uint32_t> {
      const platform::RawAttr& a = dev.attrs.at(key);
      if (!a.value.ok()) return std::nullopt;
      auto v = parse(*a.value);
      return v.ok() ? std::optional<uint32_t>(*v) : std::nullopt;
    };
    std::optional<uint32_t> vendor = parsed("vendor", pcie::ParsePciId);
    std::optional<uint32_t> device = parsed("device", pcie::ParsePciId);
    std::optional<uint32_t> cls = parsed("class", pcie::ParsePciClass);
    if (!vendor || !device || !cls || bound.count(addr)) continue;
    std::optional<rdma::RdmaCapableNic> nic = rdma::RdmaCapableNicFor(
        static_cast<uint16_t>(*vendor), static_cast<uint16_t>(*device), *cls);
    if (!nic) continue;
    AddFinding(result, findings::kRdmaDriverNotBound.code, rdma_expected ? v1::FAIL : v1::WARN,
               addr,
               absl::StrFormat("%s %s (%04x:%04x) has no RDMA device: its RDMA driver (%s) is "
                               "not loaded or not bound",
                               nic->model, addr, *vendor, *device, nic->driver));
  }
}

v1::ProbeResult JudgeRdmaDevices(
    const std::vector<platform::RawRdmaDevice>& devices, const Profile& profile,
    bool query_verbs, const std::map<std::string, platform::RawPciDevice>& pci) {
  v1::ProbeResult result;
  JudgeUnboundRdmaFunctions(pci, devices, profile, &result);
  if (devices.empty()) {
    if (result.findings_size() > 0) {
      result.set_reason("RDMA-capable PCI functions but no RDMA devices");
      return result;
    }
    result.set_verdict(v1::SKIP);
    result.set_reason("no RDMA devices under /sys/class/infiniband");
    return result;
  }
  v1::RdmaDevices* detail = result.mutable_rdma_devices();
  // A down port fails where it is a compute rail (compute_rails.h).
  const std::set<std::string> rail_nics = rdma::GpuLocalNicAddresses(pci, devices);
  for (const platform::RawRdmaDevice& raw : devices) {
    v1::RdmaDevice* dev = detail->add_devices();
    dev->set_name(raw.name);
    dev->set_pci_address(raw.pci_address);
    auto get = [&](const char* key) {
      const platform::RawAttr& a = raw.attrs.at(key);
      if (a.value.ok()) AddEvidence(&result, a.path, *a.value);
      return a.value.ok() ? *a.value : std::string();
    };
    dev->set_fw_ver(get("fw_ver"));
    dev->set_board_id(get("board_id"));
    dev->set_node_guid(get("node_guid"));
    dev->set_node_type(get("node_type"));
    if (!raw.ports_status.ok()) {
      AddFinding(&result, kInvalid, raw.name, std::string(raw.ports_status.message()));
      continue;
    }
    if (raw.ports.empty()) {
      AddFinding(&result, kInvalid, raw.name,
                 absl::StrCat("RDMA device ", raw.name,
                              " has no ports under its ports/ "
                              "directory: the driver did not finish setting it up"));
    }
    const bool compute_rail = rail_nics.empty() || rail_nics.count(raw.pci_address) > 0;
    for (const platform::RawRdmaPort& raw_port : raw.ports) {
      JudgePort(raw_port, raw.name, profile, query_verbs, compute_rail, dev->add_ports(),
                &result);
    }
  }
  return result;
}

absl::StatusOr<v1::ProbeResult> RdmaDevicesProbe::Run(const ProbeContext& ctx) {
  platform::FileTree sys(ctx.host.sys_root);
  absl::StatusOr<std::vector<platform::RawRdmaDevice>> devices =
      platform::ReadRdmaDevices(sys);
  if (!devices.ok()) return devices.status();
  // Machines without PCI (some VMs) have no bus/pci: nothing to cross-check.
  absl::StatusOr<std::map<std::string, platform::RawPciDevice>> pci =
      platform::ReadPciDevices(sys);
  return JudgeRdmaDevices(*devices, *ctx.profile, ctx.host.IsLiveSysfs(),
                          pci.ok() ? *pci : std::map<std::string, platform::RawPciDevice>());
}

}  // namespace nodeprobe
