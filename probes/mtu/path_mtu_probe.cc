#include "probes/mtu/path_mtu_probe.h"

#include "platform/socket.h"
#include "probes/framework/result_util.h"
#include "probes/mtu/mtu_probe.h"

namespace nodeprobe {

absl::StatusOr<v1::ProbeResult> PathMtuProbe::Run(const ProbeContext& ctx) {
  const std::string named = ctx.arguments.Text(mtu::kMtuPeer);
  if (named.empty()) {
    return SkipResult("path-mtu",
                      "no peer named: `nodeprobe preflight --active --mtu-peer HOST` measures the "
                      "path to HOST's `nodeprobe mtu serve` (or its agent)");
  }
  // Its declaration checked it: an IPv4 address, a port or not.
  absl::StatusOr<platform::HostPort> peer = platform::ParseHostPort(named, mtu::kDefaultMtuPort);
  if (!peer.ok()) return peer.status();
  mtu::PathProbeOptions options;
  options.peer_ip = peer->host;
  options.port = peer->port;
  options.deadline = ctx.deadline;
  v1::ProbeResult r = ProbePath(options);
  r.set_probe("path-mtu");
  return r;
}

}  // namespace nodeprobe
