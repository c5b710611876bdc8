// File: coordinator_load.cc
// Load generator for the coordinator: N fake agents (real gRPC streams, the
// real proto) register, heartbeat, stream unsolicited results, and answer
// RunProbes tasks with a canned report, while RunStage is timed.
//
//   coordinator_load ADDRESS N SECONDS STAGES
//
// Prints: streams held, results sent per second (the coordinator reads and
// drops each one), and RunStage latency p50/p99 over STAGES single-node
// stages on random nodes. Coordinator RSS is read by the calling script.
#include <grpcpp/grpcpp.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "nodeprobe/v1/service.grpc.pb.h"
#include "tasks/task_kinds.h"

using nodeprobe::v1::AgentMessage;
using nodeprobe::v1::Coordinator;
using nodeprobe::v1::CoordinatorMessage;

int main(int argc, char** argv) {
  if (argc != 5) {
    fprintf(stderr, "usage: %s ADDRESS N SECONDS STAGES\n", argv[0]);
    return 2;
  }
  const std::string address = argv[1];
  const int n = atoi(argv[2]);
  const int seconds = atoi(argv[3]);
  const int stages = atoi(argv[4]);
  // One channel per 50 streams: a single HTTP/2 connection caps concurrent
  // streams (100 by default).
  std::vector<std::shared_ptr<grpc::Channel>> channels;
  for (int i = 0; i < (n + 49) / 50; ++i) {
    grpc::ChannelArguments args;
    args.SetInt("grpc.channel_id", i);  // distinct connections
    channels.push_back(grpc::CreateCustomChannel(address, grpc::InsecureChannelCredentials(), args));
  }
  std::atomic<int> registered{0};
  std::atomic<uint64_t> results{0};
  std::atomic<bool> stop{false};
  std::vector<std::thread> agents;
  for (int i = 0; i < n; ++i) {
    agents.emplace_back([&, i] {
      auto stub = Coordinator::NewStub(channels[i / 50]);
      grpc::ClientContext ctx;
      auto stream = stub->Connect(&ctx);
      std::mutex write_mu;
      AgentMessage reg;
      reg.mutable_registration()->set_node_name(absl::StrCat("load", i));
      // What the reader below answers, and nothing else.
      if (!nodeprobe::tasks::StateServed(reg.mutable_registration(),
                                         {"run_probes", "kernel_events"})) {
        fprintf(stderr, "coordinator_load: a task it answers is not in the task table\n");
        std::abort();
      }
      stream->Write(reg);
      CoordinatorMessage first;
      if (!stream->Read(&first) || !first.has_ack()) return;
      ++registered;
      std::thread reader([&] {
        CoordinatorMessage m;
        while (stream->Read(&m)) {
          if (!m.has_task()) continue;
          AgentMessage reply;
          reply.mutable_result()->set_task_id(m.task().task_id());
          if (m.task().has_run_probes()) {
            reply.mutable_result()->mutable_report()->set_node(absl::StrCat("load", i));
            reply.mutable_result()->mutable_report()->set_verdict(nodeprobe::v1::PASS);
          } else if (m.task().has_kernel_events()) {
            // Every stage ends asking for the kernel events of its span: an
            // agent that stays silent holds each RunStage for its timeout.
            reply.mutable_result()->mutable_result()->set_probe("kernel-events");
            reply.mutable_result()->mutable_result()->set_verdict(nodeprobe::v1::SKIP);
          } else {
            continue;
          }
          std::lock_guard<std::mutex> l(write_mu);
          stream->Write(reply);
        }
      });
      // Each agent streams one result per 100 ms (far above real rates).
      AgentMessage unsolicited;
      unsolicited.mutable_result()->set_task_id("bench-unsolicited");
      unsolicited.mutable_result()->mutable_result()->set_probe("bench");
      while (!stop) {
        {
          std::lock_guard<std::mutex> l(write_mu);
          if (!stream->Write(unsolicited)) break;
        }
        ++results;
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
      }
      ctx.TryCancel();
      reader.join();
    });
  }
  for (int w = 0; w < 120 && registered < n; ++w) std::this_thread::sleep_for(std::chrono::milliseconds(250));
  const uint64_t r0 = results;
  const absl::Time t0 = absl::Now();
  // RunStage latency while the load runs.
  std::vector<double> ms;
  std::mt19937 rng(1);
  auto stub = Coordinator::NewStub(channels[0]);
  for (int s = 0; s < stages; ++s) {
    nodeprobe::v1::RunStageRequest req;
    req.set_stage(nodeprobe::v1::SINGLE_NODE);
    req.add_nodes(absl::StrCat("load", rng() % std::max(1, registered.load())));
    req.set_timeout_s(30);
    grpc::ClientContext ctx;
    absl::Time start = absl::Now();
    auto reader = stub->RunStage(&ctx, req);
    nodeprobe::v1::StageEvent ev;
    while (reader->Read(&ev)) {}
    if (reader->Finish().ok()) ms.push_back(absl::ToDoubleMilliseconds(absl::Now() - start));
  }
  std::this_thread::sleep_for(std::chrono::seconds(
      std::max<int64_t>(0, seconds - absl::ToInt64Seconds(absl::Now() - t0))));
  const double rate = static_cast<double>(results - r0) / absl::ToDoubleSeconds(absl::Now() - t0);
  std::sort(ms.begin(), ms.end());
  auto pct = [&](double p) { return ms.empty() ? 0 : ms[std::min(ms.size() - 1, size_t(p * ms.size()))]; };
  printf("agents=%d registered=%d results_per_s=%.0f runstage_ok=%zu p50_ms=%.1f p99_ms=%.1f\n", n,
         registered.load(), rate, ms.size(), pct(0.5), pct(0.99));
  fflush(stdout);
  stop = true;
  for (auto& t : agents) t.join();
  return 0;
}
