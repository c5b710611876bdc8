#include "probes/kernel_events/xid_catalog.h"

#include <algorithm>
#include <array>

namespace nodeprobe::kernel {
namespace {

constexpr v1::Verdict W = v1::WARN;
constexpr v1::Verdict F = v1::FAIL;

// Sorted by code (LookupXid searches it).
constexpr std::array<XidInfo, 29> kXids = {{
    {8, "GPU stopped processing (channel idle timeout)", W, "RESTART_APP", false},
    {13,
     "graphics engine exception (usually an illegal access or instruction in the "
     "application)",
     W, "RESTART_APP", false},
    {31, "GPU memory page fault (usually the application's invalid address)", W, "RESTART_APP",
     false},
    {32, "invalid or corrupted push buffer stream", W, "RESTART_APP", false},
    {38, "driver firmware error", F, "RESET_GPU", true},
    {43, "GPU stopped processing (a fault in the application's channel)", W, "RESTART_APP", false},
    {45, "preemptive cleanup after an earlier error (see the Xid it names)", W, "RESTART_APP",
     false},
    {48, "double bit ECC error (uncorrectable memory error)", F, "RESET_GPU", true},
    {61, "internal micro-controller breakpoint/warning", F, "RESET_GPU", true},
    {62, "internal micro-controller halt", F, "RESET_GPU", true},
    {63, "ECC page retirement or row remapping recorded (a reset activates it)", W, "RESET_GPU",
     true},
    {64, "ECC page retirement or row remapping failed", F, "RESET_GPU", true},
    {69, "graphics engine class error", W, "RESTART_APP", false},
    {74, "NVLink error", F, "RESET_GPU", true},
    {79, "GPU has fallen off the bus", F, "RESTART_BM", true},
    {92, "high single-bit ECC error rate", W, "CONTACT_SUPPORT", false},
    {94, "contained ECC error (the affected application was stopped)", W, "RESTART_APP", false},
    {95, "uncontained ECC error", F, "RESET_GPU", true},
    {109, "context switch timeout", W, "RESTART_APP", false},
    {119, "GSP RPC timeout", F, "RESET_GPU", true},
    {120, "GSP error", F, "RESET_GPU", true},
    {121, "C2C link error", F, "RESET_GPU", true},
    {140, "unrecovered ECC error", F, "RESET_GPU", true},
    {143, "GPU initialization failure", F, "RESET_GPU", true},
    {144, "NVLink error (SAW/MVB)", F, "RESET_GPU", true},
    {145, "NVLink error (RLW)", F, "RESET_GPU", true},
    {146, "NVLink error (TLW)", F, "RESET_GPU", true},
    {149, "NVLink error (NETIR)", F, "RESET_GPU", true},
    {154, "GPU recovery action changed (the driver asks for a reset or reboot)", F, "WORKFLOW",
     true},
}};

}  // namespace

XidInfo LookupXid(int code) {
  auto it = std::lower_bound(kXids.begin(), kXids.end(), code,
                             [](const XidInfo& x, int c) { return x.code < c; });
  if (it != kXids.end() && it->code == code) return *it;
  XidInfo unknown;
  unknown.code = code;
  unknown.meaning = "not in nodeprobe's Xid table (see NVIDIA's Xid catalog)";
  unknown.action = "CONTACT_SUPPORT";
  return unknown;
}

}  // namespace nodeprobe::kernel
