// File: control_commands.h
// Commands that talk to (or are) the control plane: `coordinator`,
// `agent`, `runs`, `report`, and the multi-node path of `run`.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "controlplane/command_line.h"
#include "controlplane/credentials.h"
#include "nodeprobe/v1/baseline_service.grpc.pb.h"
#include "nodeprobe/v1/service.grpc.pb.h"

// Headers name CLI11's types only: its definitions cost seconds of every
// translation unit that includes it (the global validators it defines are
// compiled each time), so only the .cc files that declare flags do.
namespace CLI {
class App;
}  // namespace CLI

namespace nodeprobe::cli {

// The coordinator a client command talks to: --coordinator, else
// $NODEPROBE_COORDINATOR, else the config file; dialled with `tls`.
struct CoordinatorClient {
  std::string address;
  std::unique_ptr<v1::Coordinator::Stub> stub;
  std::unique_ptr<v1::Baselines::Stub> baselines;  // the same channel
};
absl::StatusOr<CoordinatorClient> ConnectCoordinator(const std::string& flag,
                                                     const controlplane::TlsFiles& tls);

// A failed call to the coordinator, in one line: unreachable or refused ->
// 3 saying to check the address and TLS flags; a bad argument or an unknown
// run -> 2; anything else (a role refused, a store error) -> 3.
int RpcErrorExit(const grpc::Status& s, const std::string& address);
int RpcErrorExit(const absl::Status& s, const std::string& address);

// Adds coordinator, agent, runs and report; the callable runs whichever was
// chosen and returns its exit code, or -1.
std::vector<std::function<int()>> AddControlCommands(CLI::App& app);

struct MultiNodeRun {
  std::string stage;
  std::vector<std::string> nodes;
  bool all_nodes = false;              // cluster: every connected agent
  std::string pattern = "all-pairs";   // cluster: all-pairs | ring
  bool allow_disruptive = false;       // failure: the operator's yes
  bool force = false;                  // intrusive work on busy nodes
  std::vector<std::string> scenarios;  // failure: link-down, agent-restart
  std::string resume;                  // cluster: a stored run to go on with
  std::vector<std::string> rails;
  std::string coordinator;
  controlplane::TlsFiles tls;
  double timeout_s = 600;
  uint32_t transfer_seconds = 3;
  double soak_s = 0;  // two-node: repeat the transfers this long (coordinator/soak.h)
  bool storage_storm = false;  // cluster: every node's checkpoint at once (storage_storm.h)
  bool gpu_memory = false;     // two-node, cluster: RDMA between the rails' GPUs' memory
  // Workload: a burst during the steps (coordinator/stages/workload/workload_burst.h).
  std::string burst;
  uint32_t burst_at = 0;  // 0: the default window
  uint32_t burst_steps = 0;
  std::string format = "table";
  bool quiet = false;
  std::string profile_path;  // validated here, sent with the run
  // Ctrl-C: cancel the run at the coordinator without asking (what a
  // script gets anyway: it is asked only on a terminal).
  bool cancel_on_interrupt = false;
};

// `nodeprobe run --stage two-node --nodes A,B` through a coordinator.
int RunMultiNode(const MultiNodeRun& run);

}  // namespace nodeprobe::cli
