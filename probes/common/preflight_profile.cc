// File: preflight_profile.cc
// Declares `preflight:` (np_profile_section in this folder's CMakeLists):
// compiled into the profile library, so it uses only what that links.
#include "probes/common/preflight_profile.h"

#include <cstdlib>

#include "absl/strings/str_cat.h"
#include "probes/framework/profile.h"
#include "probes/framework/profile_section.h"

namespace nodeprobe {
namespace {

absl::Status ReadKey(const ProfileReader& r, const std::string& key, const YAML::Node& v,
                     PreflightRules& into) {
  const std::string name = absl::StrCat(PreflightRules::kSection, ".", key);
  if (key == "expect_rdma") {
    absl::StatusOr<bool> b = r.Bool(v, name);
    if (!b.ok()) return b.status();
    into.expect_rdma = *b;
    return absl::OkStatus();
  }
  if (key == "pkey") {
    // A PKey is written in hex (0x8001) as ibstat and the SM's
    // partitions.conf show it; the full-membership bit is not compared.
    absl::StatusOr<std::string> s = r.String(v, name);
    if (!s.ok()) return s.status();
    unsigned long pkey = 0;
    char* end = nullptr;
    pkey = std::strtoul(s->c_str(), &end, 0);
    if (s->empty() || *end != '\0' || pkey == 0 || pkey > 0xffff) {
      return r.Error(v, name + " must be a PKey such as 0x8001 (1 to 0xffff)");
    }
    into.pkey = static_cast<int>(pkey & 0x7fff);
    return absl::OkStatus();
  }
  absl::StatusOr<double> n = r.Number(v, name);
  if (!n.ok()) return n.status();
  if (key == "interface_mtu") {
    if (*n < 68 || *n > 65535) return r.Error(v, name + " must be an MTU from 68 to 65535");
    into.interface_mtu = static_cast<int>(*n);
    return absl::OkStatus();
  }
  if (*n <= 0 || *n > 16 * 1024 * 1024) return r.Error(v, name + " must be MiB above 0");
  (key == "memlock_min_mb" ? into.memlock_min_mb : into.shm_min_mb) = *n;
  return absl::OkStatus();
}

}  // namespace

ProfileSection PreflightProfileSection() {
  return DeclareSection<PreflightRules>(
      {{"preflight.expect_rdma", "true | false", "false",
        "the job needs RDMA: no usable RDMA device here is RDMA_DEVICE_NOT_VISIBLE, and locked "
        "memory is judged (as when NCCL_IB_HCA is set or a device is visible)"},
       {"preflight.memlock_min_mb", "MiB", "estimated: ranks x channels x 2 x NCCL's buffers",
        "RLIMIT_MEMLOCK at least this for a job using RDMA, else MEMLOCK_TOO_LOW"},
       {"preflight.shm_min_mb", "MiB", "estimated: ranks x channels x NCCL's segment",
        "free space in /dev/shm at least this, else SHM_TOO_SMALL"},
       {"preflight.interface_mtu", "bytes", "not judged",
        "every secondary interface in use at least this MTU, else SECONDARY_INTERFACE_MTU"},
       {"preflight.pkey", "PKey (0x8001)", "not judged",
        "the job's InfiniBand partition: each visible IB port must hold it (either membership), "
        "else RDMA_PKEY_MISSING"}},
      ReadKey);
}

}  // namespace nodeprobe
