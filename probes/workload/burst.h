// A burst during the workload stage's measured steps
// (RunWorkloadRank.burst): the tail a training step meets when a
// checkpoint or bulk traffic shares its nodes. Each node's first rank runs
// it beside its replay, from measured step `at_step` for `steps` steps:
// - storage: checkpoints written one after another into the path, as the
//   storage probe writes one (storage_io.h: O_DIRECT where the filesystem
//   takes it, each file fsynced), until the window ends; every file and the
//   scratch directory removed after;
// - east-west: bulk TCP from this node to the next node's sink (the nodes
//   in a ring; each sink's address through the run's rendezvous store),
//   over the same addresses the ranks use, until the window ends;
// - competing: a second collective job on the same nodes and addresses:
//   the nodes' first ranks all-reduce 4 MiB (a DDP bucket) in a loop on a
//   Gloo context of their own. Each round carries a stop flag, so the loop
//   ends on every node in the same round, when the first node's window
//   ends (a collective cannot stop on one member alone).
#pragma once

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "absl/status/statusor.h"
#include "nodeprobe/v1/task.pb.h"
#include "platform/socket.h"

namespace gloo {
class Context;
namespace rendezvous {
class Store;
}  // namespace rendezvous
}  // namespace gloo

namespace nodeprobe::workload {

class Burst {
 public:
  // Ready to run: an east-west burst has opened its sink and learnt the
  // next node's through `store` (every node's first rank prepares one).
  static absl::StatusOr<std::unique_ptr<Burst>> Prepare(const v1::WorkloadBurst& burst, int node,
                                                        int nodes, const std::string& bind_ip,
                                                        gloo::rendezvous::Store& store);
  ~Burst();  // stops the load and the sink, removes what it wrote
  // Called as each measured step starts (and with the step count after the
  // last): starts the load at at_step, asks it to stop when the window ends
  // without waiting (a checkpoint shard in flight finishes on its own).
  void AtStep(int measured_step);
  // What went wrong in the load, "" when nothing did.
  std::string error() const;

 private:
  explicit Burst(v1::WorkloadBurst burst) : burst_(std::move(burst)) {}
  void Start();
  void Stop();
  void WriteCheckpoints();
  void SendBulk();
  void Sink();
  void Compete();
  void Fail(const std::string& why);

  const v1::WorkloadBurst burst_;
  std::string scratch_;    // storage: the directory it writes in
  std::string peer_;       // east-west: the next node's sink, host:port
  platform::Fd listener_;  // east-west: this node's sink
  std::shared_ptr<gloo::Context> competing_;  // competing: the second job's context
  std::thread sink_;
  std::thread load_;
  std::atomic<bool> stop_{false};
  std::atomic<bool> closing_{false};
  bool started_ = false;
  mutable std::mutex mu_;
  std::string error_;
};

}  // namespace nodeprobe::workload
