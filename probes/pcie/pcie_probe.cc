#include "probes/pcie/pcie_probe.h"

#include <algorithm>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "platform/file_tree.h"
#include "platform/pci_class.h"
#include "probes/framework/framework_findings.h"
#include "probes/framework/result_util.h"
#include "probes/pcie/pcie_findings.h"
#include "probes/pcie/pcie_link.h"

namespace nodeprobe {
namespace {


std::string Speed(double gts) { return absl::StrFormat("%g GT/s", gts); }

// One device's link, parsed. Unknown values stay nullopt.
struct Link {
  std::optional<double> cur_speed, max_speed;
  std::optional<int> cur_width, max_width;
  // Why the maximum is unknown although the current link is (set only then).
  std::string capability_unknown;
  // current_link_speed reads "Unknown": the kernel found no trained link.
  bool speed_unknown = false;
  bool current() const { return cur_speed && cur_width; }
  bool known() const { return cur_speed && max_speed && cur_width && max_width; }
};

bool IsNotFound(const platform::RawAttr& a) {
  return a.value.status().code() == absl::StatusCode::kNotFound;
}

// Parses one link attribute; a missing file is "unknown" (conventional PCI),
// garbage is an ERROR finding naming the file.
template <typename T, typename Fn>
std::optional<T> LinkValue(const platform::RawPciDevice& dev, const char* name,
                           Fn parse, v1::ProbeResult* result) {
  const platform::RawAttr& a = dev.attrs.at(name);
  if (IsNotFound(a)) return std::nullopt;
  if (!a.value.ok()) {
    AddFinding(result, findings::kSysfsValueInvalid.code, dev.address,
               std::string(a.value.status().message()));
    return std::nullopt;
  }
  AddEvidence(result, a.path, *a.value);
  auto parsed = parse(*a.value);
  if (!parsed.ok()) {
    AddFinding(result, findings::kSysfsValueInvalid.code, dev.address,
               absl::StrCat(a.path, ": ", parsed.status().message()));
    return std::nullopt;
  }
  return *parsed;
}

Link ReadLink(const platform::FileTree* sys, const platform::RawPciDevice& dev,
              v1::ProbeResult* result) {
  Link l;
  l.cur_speed = LinkValue<double>(dev, "current_link_speed", pcie::ParsePciLinkSpeed, result);
  l.max_speed = LinkValue<double>(dev, "max_link_speed", pcie::ParsePciLinkSpeed, result);
  l.cur_width = LinkValue<int>(dev, "current_link_width", pcie::ParsePciLinkWidth, result);
  l.max_width = LinkValue<int>(dev, "max_link_width", pcie::ParsePciLinkWidth, result);
  const platform::RawAttr& speed = dev.attrs.at("current_link_speed");
  if (speed.value.ok()) {
    auto parsed = pcie::ParsePciLinkSpeed(*speed.value);
    l.speed_unknown = parsed.ok() && !parsed->has_value();
  }
  // A link above what the device says it can do is not what the kernel
  // writes for a healthy device: invalid, not judged.
  if (l.cur_speed && l.max_speed && *l.cur_speed > *l.max_speed) {
    AddFinding(result, findings::kSysfsValueInvalid.code, dev.address,
               absl::StrCat(dev.address, ": current_link_speed ", Speed(*l.cur_speed),
                            " is above max_link_speed ", Speed(*l.max_speed)));
    l.cur_speed.reset();
  }
  if (l.cur_width && l.max_width && *l.cur_width > *l.max_width) {
    AddFinding(result, findings::kSysfsValueInvalid.code, dev.address,
               absl::StrCat(dev.address, ": current_link_width x", *l.cur_width,
                            " is above max_link_width x", *l.max_width));
    l.cur_width.reset();
  }
  const bool max_absent = IsNotFound(dev.attrs.at("max_link_speed")) ||
                          IsNotFound(dev.attrs.at("max_link_width"));
  if (l.current() && !l.known() && max_absent) {
    // Older kernels have no max_link_* files; the PCI Express capability's
    // Link Capabilities register in config space says the same.
    absl::StatusOr<std::string> config =
        sys ? platform::ReadPciConfig(*sys, dev)
            : absl::StatusOr<std::string>(absl::NotFoundError("no tree"));
    absl::StatusOr<pcie::LinkCapability> cap =
        config.ok() ? pcie::ParseLinkCapability(*config)
                    : absl::StatusOr<pcie::LinkCapability>(config.status());
    if (cap.ok()) {
      l.max_speed = cap->speed_gts;
      l.max_width = cap->width;
      AddEvidence(result, absl::StrCat(sys->Path(dev.sys_path), "/config"),
                  absl::StrCat("Link Capabilities: ", Speed(cap->speed_gts), " x", cap->width));
    } else {
      l.capability_unknown = absl::StrCat(
          "max_link_speed/max_link_width absent and config space gives no capability: ",
          cap.status().message());
    }
  }
  return l;
}

// The device's class and vendor, or an ERROR finding naming the file: a
// device that cannot be identified is not silently left unjudged.
bool IdentityReadable(const platform::RawPciDevice& dev, v1::ProbeResult* result) {
  bool ok = true;
  for (const char* attr : {"class", "vendor"}) {
    const platform::RawAttr& a = dev.attrs.at(attr);
    absl::Status s = a.value.status();
    if (s.ok()) {
      s = std::string(attr) == "class" ? pcie::ParsePciClass(*a.value).status()
                                       : pcie::ParsePciId(*a.value).status();
    }
    if (!s.ok()) {
      AddFinding(result, findings::kSysfsValueInvalid.code, dev.address,
                 absl::StrCat("PCI device ", dev.address, " cannot be identified: ", a.path, ": ",
                              s.message()));
      ok = false;
    }
  }
  return ok;
}

std::optional<uint32_t> ClassOf(const platform::RawPciDevice& dev) {
  const platform::RawAttr& a = dev.attrs.at("class");
  if (!a.value.ok()) return std::nullopt;
  auto v = pcie::ParsePciClass(*a.value);
  return v.ok() ? std::optional<uint32_t>(*v) : std::nullopt;
}

uint16_t VendorOf(const platform::RawPciDevice& dev) {
  const platform::RawAttr& a = dev.attrs.at("vendor");
  if (!a.value.ok()) return 0;
  auto v = pcie::ParsePciId(*a.value);
  return v.ok() ? *v : 0;
}

}  // namespace

std::string PcieRole(uint16_t vendor, uint32_t pci_class) {
  switch (platform::ClassifyPci(vendor, pci_class)) {
    case platform::PciKind::kNvidiaGpu:
      return "gpu";
    case platform::PciKind::kNic:
      return "nic";
    case platform::PciKind::kNvme:
      return "nvme";
    case platform::PciKind::kOther:
      break;
  }
  return "";
}

std::string PcieRoleOf(const platform::RawPciDevice& dev) {
  std::optional<uint32_t> cls = ClassOf(dev);
  return cls ? PcieRole(VendorOf(dev), *cls) : "";
}

namespace {

// A link whose speed or width is not known: a device with no trained link
// (FAIL, or WARN when it cannot say what it could run), a current link
// with its capability unknown (measured, not judged), or conventional PCI.
// True when the device counts as judged.
bool JudgeUnknownLink(const std::string& addr, const std::string& role, const Link& link,
                      const std::map<std::string, std::string>& labels, v1::ProbeResult* result) {
  if (link.speed_unknown && role != "bridge") {
    // A PCIe device with no trained link: down, or fallen off the bus.
    const bool capable = link.max_speed.has_value();
    AddFinding(result, findings::kPcieLinkSpeedUnknown.code, capable ? v1::FAIL : v1::WARN, addr,
               absl::StrCat(role, " ", addr, " reports current_link_speed Unknown",
                            capable ? absl::StrCat(" although it can run ", Speed(*link.max_speed),
                                                   ": its link is not trained")
                                    : ""));
    return true;
  }
  if (link.current()) {
    // Reported, never dropped: the current link with its capability
    // unknown, and why.
    AddMeasurement(result, "pcie_link_speed", *link.cur_speed, "GT/s", labels);
    AddMeasurement(result, "pcie_link_width", *link.cur_width, "lanes", labels);
    AddEvidence(result, addr,
                absl::StrCat(role, " at ", Speed(*link.cur_speed), " x", *link.cur_width,
                             "; not judged: ", link.capability_unknown));
    return true;
  }
  AddEvidence(result, addr, "link speed/width unknown (conventional PCI or virtual)");
  return false;
}

// The widest and fastest any device directly below `addr` can run; known
// only for a bridge whose children all say. A bridge's link can be
// narrower than its maximum because every device below it is narrower:
// then it is the slot, not a fault.
struct ChildLimits {
  int width = 0;
  double speed = 0;
  bool known = false;
};
ChildLimits ChildrenOf(const std::string& addr, bool bridge,
                       const std::map<std::string, platform::RawPciDevice>& devices,
                       const std::map<std::string, Link>& links) {
  ChildLimits out;
  out.known = bridge;
  for (const auto& [caddr, cdev] : devices) {
    if (cdev.upstream.empty() || cdev.upstream.back() != addr) continue;
    auto cl = links.find(caddr);
    if (cl == links.end() || !cl->second.max_width || !cl->second.max_speed) {
      out.known = false;
      continue;
    }
    out.width = std::max(out.width, *cl->second.max_width);
    out.speed = std::max(out.speed, *cl->second.max_speed);
  }
  if (out.width == 0) out.known = false;
  return out;
}

// A trained link below what its path carries: FAIL, or WARN where the
// slot's wiring (every child narrower) or an idle GPU explains it.
void JudgeDegradedLink(const std::string& addr, const std::string& role, const Link& link,
                       double exp_speed, int exp_width, const ChildLimits& children,
                       v1::ProbeResult* result) {
  const bool children_known = children.known;
  const int child_max_width = children.width;
  const double child_max_speed = children.speed;
  if (*link.cur_width < exp_width) {
    bool explained = children_known && child_max_width <= *link.cur_width;
    AddFinding(result, findings::kPcieLinkWidthDegraded.code, explained ? v1::WARN : v1::FAIL, addr,
               absl::StrCat(role, " ", addr, " runs x", *link.cur_width, " of x", exp_width,
                            " its path supports",
                            explained ? absl::StrCat("; every device below it is at "
                                                     "most x",
                                                     child_max_width,
                                                     ", so this is likely the slot's "
                                                     "wiring")
                                      : ""));
  }
  if (*link.cur_speed < exp_speed) {
    bool gpu = role == "gpu";
    bool explained = children_known && child_max_speed <= *link.cur_speed;
    AddFinding(result, findings::kPcieLinkSpeedDegraded.code,
               gpu || explained ? v1::WARN : v1::FAIL, addr,
               absl::StrCat(role, " ", addr, " runs at ", Speed(*link.cur_speed), " of ",
                            Speed(exp_speed), " its path supports",
                            gpu ? "; GPUs lower their link speed when idle, so "
                                  "rerun while the GPU is busy to confirm"
                                : "",
                            explained ? "; every device below it is slower" : ""));
  }
}

}  // namespace

v1::ProbeResult JudgePcieLinks(
    const std::map<std::string, platform::RawPciDevice>& devices,
    const platform::FileTree* sys) {
  v1::ProbeResult result;
  // Devices judged: every GPU/NIC/NVMe, then each bridge above them.
  std::map<std::string, std::string> roles;
  int unidentified = 0;
  for (const auto& [addr, dev] : devices) {
    if (!IdentityReadable(dev, &result)) {
      ++unidentified;
      continue;
    }
    std::string role = PcieRoleOf(dev);
    if (role.empty()) continue;
    roles[addr] = role;
    for (const std::string& up : dev.upstream) roles.emplace(up, "bridge");
  }
  std::map<std::string, Link> links;
  for (const auto& [addr, role] : roles) {
    auto it = devices.find(addr);
    if (it != devices.end()) links[addr] = ReadLink(sys, it->second, &result);
  }

  int known = 0;
  for (const auto& [addr, role] : roles) {
    const platform::RawPciDevice& dev = devices.at(addr);
    const Link& link = links[addr];
    std::map<std::string, std::string> labels = {{"device", addr}, {"role", role}};
    if (!link.known()) {
      known += JudgeUnknownLink(addr, role, link, labels, &result);
      continue;
    }
    ++known;
    // What the path can carry: the device's own maximum, capped by every
    // bridge above it whose maximum is known.
    double exp_speed = *link.max_speed;
    int exp_width = *link.max_width;
    for (const std::string& up : dev.upstream) {
      const Link& u = links[up];
      if (u.max_speed) exp_speed = std::min(exp_speed, *u.max_speed);
      if (u.max_width) exp_width = std::min(exp_width, *u.max_width);
    }
    AddMeasurement(&result, "pcie_link_speed", *link.cur_speed, "GT/s", labels);
    AddMeasurement(&result, "pcie_link_width", *link.cur_width, "lanes", labels);
    AddMeasurement(&result, "pcie_expected_speed", exp_speed, "GT/s", labels);
    AddMeasurement(&result, "pcie_expected_width", exp_width, "lanes", labels);
    AddMeasurement(&result, "pcie_bandwidth",
                   pcie::PcieBandwidthGBps(*link.cur_speed, *link.cur_width),
                   "GB/s", labels);

    JudgeDegradedLink(addr, role, link, exp_speed, exp_width,
                      ChildrenOf(addr, role == "bridge", devices, links), &result);
  }
  if (known == 0 && unidentified == 0) {
    result.set_verdict(v1::SKIP);
    result.set_reason(roles.empty()
                          ? "no GPU, NIC or NVMe PCI devices found"
                          : "no PCIe link information for the GPUs, NICs and "
                            "NVMe found (conventional PCI or a virtual machine)");
  }
  return result;
}

absl::StatusOr<v1::ProbeResult> PcieProbe::Run(const ProbeContext& ctx) {
  platform::FileTree sys(ctx.host.sys_root);
  absl::StatusOr<std::map<std::string, platform::RawPciDevice>> devices =
      platform::ReadPciDevices(sys);
  if (!devices.ok()) return devices.status();
  return JudgePcieLinks(*devices, &sys);
}

}  // namespace nodeprobe
