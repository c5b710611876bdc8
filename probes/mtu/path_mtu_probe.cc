// File: path_mtu_probe.cc
#include "probes/mtu/path_mtu_probe.h"

#include <arpa/inet.h>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "probes/framework/result_util.h"
#include "probes/mtu/mtu_probe.h"

namespace nodeprobe {

absl::StatusOr<v1::ProbeResult> PathMtuProbe::Run(const ProbeContext& ctx) {
  if (ctx.mtu_peer.empty()) {
    return SkipResult("path-mtu",
                      "no peer named: `nodeprobe preflight --active --mtu-peer HOST` measures the "
                      "path to HOST's `nodeprobe mtu serve` (or its agent)");
  }
  mtu::PathProbeOptions options;
  options.peer_ip = ctx.mtu_peer;
  if (const size_t colon = ctx.mtu_peer.rfind(':'); colon != std::string::npos) {
    options.peer_ip = ctx.mtu_peer.substr(0, colon);
    uint32_t port = 0;
    if (!absl::SimpleAtoi(ctx.mtu_peer.substr(colon + 1), &port) || port == 0 || port > 65535) {
      return absl::InvalidArgumentError(
          absl::StrCat("--mtu-peer ", ctx.mtu_peer, ": the port is not 1-65535"));
    }
    options.port = static_cast<uint16_t>(port);
  }
  in_addr addr;
  if (inet_pton(AF_INET, options.peer_ip.c_str(), &addr) != 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("--mtu-peer ", ctx.mtu_peer,
                     ": not an IPv4 address (give the peer's address on the "
                     "job's network, e.g. 10.0.0.2 or 10.0.0.2:18516)"));
  }
  options.deadline = ctx.deadline;
  v1::ProbeResult r = ProbePath(options);
  r.set_probe("path-mtu");
  return r;
}

}  // namespace nodeprobe
