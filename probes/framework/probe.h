// What a probe is: a name, the stages it belongs to, a one-line purpose, and
// Run(). A non-OK Status from Run() means "could not run" (reported as
// ERROR); hardware that is wrong is a FAIL finding inside an OK result.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "nodeprobe/v1/result.pb.h"
#include "platform/host_paths.h"
#include "probes/framework/probe_argument.h"
#include "probes/framework/profile.h"

namespace nodeprobe {

struct ProbeContext {
  platform::HostPaths host;
  // Never null; an empty Profile when the user gave none.
  const Profile* profile = nullptr;
  std::string node_name;
  absl::Time deadline = absl::InfiniteFuture();
  // The nccl probe's options from the command line (set fields win over
  // the profile's).
  v1::CollectiveOptions nccl_options;
  // The busy-node guard: what runs on the node that an intrusive probe
  // would disturb (empty: idle); asked once, before the first intrusive
  // probe. Unset: no guard (tests, captured trees).
  std::function<std::vector<std::string>()> what_keeps_busy;
  bool force = false;           // run intrusive probes on a busy node
  bool skip_intrusive = false;  // a sweep the profile keeps non-intrusive
  // The probes' own arguments (path-mtu's peer, the job's GPU grant, the
  // storm's writers), each read through its declaration (probe_argument.h).
  ProbeArguments arguments;
};

class Probe {
 public:
  virtual ~Probe() = default;
  virtual std::string_view name() const = 0;
  virtual std::vector<v1::Stage> stages() const = 0;
  virtual std::string_view purpose() const = 0;
  // Loads the GPUs or the fabric (copies, collectives, transfers): not run
  // on a busy node without --force, nor in a sweep unless the profile asks.
  virtual bool intrusive() const { return false; }
  // The arguments it reads from ctx.arguments, each declared once beside
  // it: the CLI's flags and the run's checks come from these.
  virtual std::vector<const ProbeArgument*> arguments() const { return {}; }
  // Fills findings, measurements, evidence and detail. Leave verdict unset
  // to have it derived from the findings; set SKIP (with reason) when the
  // probe does not apply to this host.
  virtual absl::StatusOr<v1::ProbeResult> Run(const ProbeContext& ctx) = 0;
};

}  // namespace nodeprobe
