// The cabling probe's InfiniBand half on one port, as the node the fabric
// simulator attaches it to sees it: asks the fabric one hop out of
// DEVICE:PORT (live SMPs through libibnetdisc, which ibsim's umad2sim
// LD_PRELOAD carries to the simulator), judges the answer against the
// plan `DEVICE:PORT -> PATTERN`, and prints the probe result as JSON.
// A separate program because the preload must be in place from exec on;
// ib_fabric_sim_test runs it once per simulated node.
//
//   ib_cabling_helper DEVICE:PORT PATTERN
#include <google/protobuf/util/json_util.h>

#include <cstdio>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "probes/cabling/cabling_probe.h"
#include "probes/framework/profile.h"
#include "probes/framework/stage_runner.h"

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s DEVICE:PORT PATTERN\n", argv[0]);
    return 2;
  }
  const std::vector<std::string> key = absl::StrSplit(argv[1], ':');
  nodeprobe::rdma::PortNetdevs port;
  if (key.size() != 2 || !absl::SimpleAtoi(key[1], &port.port)) {
    std::fprintf(stderr, "%s is not DEVICE:PORT\n", argv[1]);
    return 2;
  }
  port.device = key[0];
  port.link_layer = "InfiniBand";
  port.active = true;
  const std::vector<nodeprobe::platform::CableNeighbor> found =
      nodeprobe::IbCableNeighbors({port});
  nodeprobe::Profile plan;
  plan.source = "ibsim-plan.yaml";
  nodeprobe::v1::ProbeResult r =
      nodeprobe::JudgeCabling(found, {{argv[1], argv[2]}}, {}, plan.source);
  nodeprobe::FinalizeResult(plan, &r);  // the verdict, as a stage gives it
  std::string json;
  if (!google::protobuf::util::MessageToJsonString(r, &json).ok()) return 1;
  std::printf("%s\n", json.c_str());
  return 0;
}
