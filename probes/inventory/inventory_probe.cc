#include "probes/inventory/inventory_probe.h"

#include <filesystem>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "platform/file_tree.h"
#include "platform/library_versions.h"
#include "platform/rdma_sysfs.h"
#include "probes/common/host_facts.h"
#include "probes/framework/result_util.h"
#include "probes/inventory/inventory_findings.h"

namespace nodeprobe {
namespace {

v1::Component* Add(v1::ProbeResult* result, const std::string& name,
                   bool present, const std::string& version,
                   const std::string& detail) {
  v1::Component* c = result->mutable_inventory()->add_components();
  c->set_name(name);
  c->set_present(present);
  c->set_version(version);
  c->set_detail(detail);
  return c;
}

void AddLibrary(v1::ProbeResult* result, const std::string& name,
                const platform::LibraryVersion& lib) {
  Add(result, name, lib.present, lib.version, lib.detail);
  if (lib.present) AddEvidence(result, name, lib.detail);
}

// Reads a file for a component; absent or unreadable leaves nullopt and says
// why in `why`.
std::optional<std::string> ReadOptional(const platform::FileTree& tree,
                                        const std::string& rel,
                                        v1::ProbeResult* result,
                                        std::string* why) {
  absl::StatusOr<std::string> v = tree.ReadValue(rel);
  if (!v.ok()) {
    *why = std::string(v.status().message());
    return std::nullopt;
  }
  AddEvidence(result, tree.Path(rel), *v);
  return *v;
}

constexpr char kNotCaptured[] = "not captured";

// os-release(5): /etc/os-release, else /usr/lib/os-release. On Debian and
// Ubuntu /etc/os-release is a relative link (../usr/lib/os-release), so it
// is read from the system root the etc tree sits in ("/" live, the capture
// directory otherwise), where that link resolves (inside the root).
std::optional<std::string> ReadOsRelease(const std::string& etc_root, v1::ProbeResult* result,
                                         std::string* why) {
  std::string trimmed = etc_root;
  while (trimmed.size() > 1 && trimmed.back() == '/') trimmed.pop_back();
  const std::filesystem::path etc(trimmed);
  if (etc.filename() != "etc") return ReadOptional(platform::FileTree(etc_root), "os-release", result, why);
  const platform::FileTree root(etc.parent_path().string());
  if (auto text = ReadOptional(root, "etc/os-release", result, why)) return text;
  std::string fallback_why;
  if (auto text = ReadOptional(root, "usr/lib/os-release", result, &fallback_why)) return text;
  absl::StrAppend(why, "; ", fallback_why);
  return std::nullopt;
}

// What sysfs says: the peer-memory module (GPUDirect RDMA) and each HCA's
// firmware.
void AddSysfsComponents(const platform::FileTree& sys, v1::ProbeResult* result) {
  std::string why;
  if (!sys.Exists("module")) {
    // A sysfs capture without module/: loaded modules are not known.
    Add(result, "nvidia_peermem", false, "",
        absl::StrCat(kNotCaptured, ": ", sys.Path("module"), " is not in the capture"));
  } else if (sys.Exists("module/nvidia_peermem")) {
    std::string version =
        ReadOptional(sys, "module/nvidia_peermem/version", result, &why).value_or("");
    Add(result, "nvidia_peermem", true, version, "module loaded");
  } else if (auto v = ReadOptional(sys, "kernel/mm/memory_peers/nv_mem/version", result, &why)) {
    Add(result, "nvidia_peermem", true, *v, "legacy nv_peer_mem module");
  } else {
    Add(result, "nvidia_peermem", false, "", "module not loaded");
  }

  absl::StatusOr<std::vector<platform::RawRdmaDevice>> hcas = platform::ReadRdmaDevices(sys);
  if (hcas.ok()) {
    for (const platform::RawRdmaDevice& hca : *hcas) {
      auto attr = [&](const char* key) {
        const platform::RawAttr& a = hca.attrs.at(key);
        return a.value.ok() ? *a.value : std::string("unknown");
      };
      v1::Component* c =
          Add(result, "hca_firmware", hca.attrs.at("fw_ver").value.ok(),
              hca.attrs.at("fw_ver").value.ok() ? attr("fw_ver") : "",
              absl::StrCat("pci ", hca.pci_address.empty() ? "none" : hca.pci_address, ", board ",
                           attr("board_id"), ", node_guid ", attr("node_guid")));
      c->set_device(hca.name);
    }
  }
}

void AddHostComponents(const ProbeContext& ctx, v1::ProbeResult* result) {
  platform::FileTree etc(ctx.host.etc_root);
  platform::FileTree proc(ctx.host.proc_root);
  platform::FileTree sys(ctx.host.sys_root);
  std::string why;
  const bool no_etc = ctx.host.NotCaptured(ctx.host.etc_root, "/etc");
  const bool no_proc = ctx.host.NotCaptured(ctx.host.proc_root, "/proc");
  const bool no_sys = ctx.host.NotCaptured(ctx.host.sys_root, "/sys");
  auto not_captured = [&](const std::string& name, const char* root_flag) {
    Add(result, name, false, "",
        absl::StrCat(kNotCaptured, ": the capture has no ", root_flag,
                     " (give it with --capture DIR or ", root_flag, ")"));
  };
  if (no_etc) {
    not_captured("os_release", "--etc-root");
  } else if (auto text = ReadOsRelease(ctx.host.etc_root, result, &why)) {
    auto fields = hostfacts::ParseOsRelease(*text);
    Add(result, "os_release", true, fields["VERSION_ID"],
        fields.count("PRETTY_NAME") ? fields["PRETTY_NAME"] : fields["NAME"]);
  } else {
    Add(result, "os_release", false, "", why);
  }

  if (no_proc) {
    for (const char* name : {"kernel", "kernel_cmdline", "nvidia_driver"}) {
      not_captured(name, "--procfs-root");
    }
  } else if (auto release = ReadOptional(proc, "sys/kernel/osrelease", result, &why)) {
    Add(result, "kernel", true, *release, proc.Path("sys/kernel/osrelease"));
  } else {
    Add(result, "kernel", false, "", why);
  }

  if (no_proc) {
  } else if (auto cmdline = ReadOptional(proc, "cmdline", result, &why)) {
    std::vector<std::string> flags = hostfacts::RelevantCmdlineFlags(*cmdline);
    Add(result, "kernel_cmdline", true,
        flags.empty() ? "none" : absl::StrJoin(flags, " "),
        flags.empty() ? "none of iommu=, intel_iommu=, amd_iommu=, pci=noacs"
                      : "IOMMU/ACS flags");
  } else {
    Add(result, "kernel_cmdline", false, "", why);
  }

  if (no_proc) {
  } else if (auto text = ReadOptional(proc, "driver/nvidia/version", result, &why)) {
    hostfacts::NvidiaDriver drv = hostfacts::ParseNvidiaDriverVersion(*text);
    Add(result, "nvidia_driver", true, drv.version,
        drv.open_module ? "open kernel module" : "proprietary kernel module");
  } else {
    Add(result, "nvidia_driver", false, "", "no /proc/driver/nvidia/version");
  }

  if (no_sys) {
    not_captured("nvidia_peermem", "--sysfs-root");
    return;
  }
  AddSysfsComponents(sys, result);
}

}  // namespace

void JudgePinnedVersions(const Profile& profile, v1::ProbeResult* result) {
  for (const auto& [name, expected] : profile.versions) {
    bool seen = false;
    for (const v1::Component& c : result->inventory().components()) {
      if (c.name() != name) continue;
      seen = true;
      if (c.present() && VersionMatches(expected, c.version())) continue;
      if (!c.present() && c.detail().rfind(kNotCaptured, 0) == 0) {
        AddFinding(result, findings::kVersionNotCaptured.code, c.device(),
                   absl::StrCat(name, ": pinned to ", expected,
                                " but the capture does not hold it; not judged"));
        continue;
      }
      AddFinding(result, findings::kVersionMismatch.code, c.device(),
                 absl::StrCat(name, c.device().empty() ? "" : " on ", c.device(), ": expected ",
                              expected, ", found ", c.present() ? c.version() : "absent"));
    }
    if (!seen) {
      AddFinding(result, findings::kVersionMismatch.code, "",
                 absl::StrCat(name, ": expected ", expected, ", found absent"));
    }
  }
}

absl::StatusOr<v1::ProbeResult> InventoryProbe::Run(const ProbeContext& ctx) {
  v1::ProbeResult result;
  result.mutable_inventory();
  AddHostComponents(ctx, &result);
  if (ctx.host.IsCaptured()) {
    // The libraries loaded here are this machine's, not the capture's.
    for (const char* name : {"rdma_core", "hwloc", "cuda_driver", "cuda_runtime", "nccl"}) {
      Add(&result, name, false, "",
          absl::StrCat(kNotCaptured, ": library versions are this machine's, not the capture's"));
    }
  } else {
    AddLibrary(&result, "rdma_core", platform::RdmaCoreVersion());
    AddLibrary(&result, "hwloc", platform::HwlocVersion());
    AddLibrary(&result, "cuda_driver", platform::CudaDriverVersion());
    AddLibrary(&result, "cuda_runtime", platform::CudaRuntimeVersion());
    AddLibrary(&result, "nccl", platform::NcclVersion());
  }
  JudgePinnedVersions(*ctx.profile, &result);
  return result;
}

}  // namespace nodeprobe
