// File: fake_fleet.cc
// A fleet of fake agents in one process, on gRPC's client callback API (no
// thread per agent), for the cluster stage at scale. Each agent registers
// with two rails (eth0, eth1; addresses 10.<rail>.<hi>.<lo> that nothing
// dials), answers RunProbes with a PASS report, ServeTransfer with an
// endpoint and RunTransfer with a synthetic TCP stream_bw result: 100 Gb/s
// less up to 3% of noise, a tenth of that from an injected slow node, or
// on an injected slow rail of one node. It then runs one cluster stage over
// them all and prints what the issue asks of the bench:
//
//   fake_fleet ADDRESS N PATTERN COORDINATOR_PID DB_PATH [SLOW_NODES [SLOW_RAIL_NODES]]
//
// PATTERN hold:SECONDS registers the fleet, prints "registered N of N",
// holds it for SECONDS and exits (no stage).
//
// SLOW_NODES / SLOW_RAIL_NODES: comma-separated node indices (default "7"
// and "11": node 7 slow, node 11's eth1 slow). $FAKE_FLEET_DRIVERS
// ("550.54.15,550.54.15,535.161.08") gives node i the i-th NVIDIA driver
// version, in its registration and its single-node report's inventory
// (the version-drift test). Prints rounds, wall time
// per round, coordinator CPU seconds per round and RSS per node, store size
// per node, time to the first round's results, and whether the injected
// faults were blamed (and nothing else).
#include <grpcpp/grpcpp.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <fstream>
#include <mutex>
#include <random>
#include <set>
#include <sstream>
#include <thread>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "nodeprobe/v1/service.grpc.pb.h"
#include "tasks/task_kinds.h"

namespace v1 = nodeprobe::v1;

namespace {

std::string NodeName(int i) { return absl::StrCat("fake", 10000 + i); }

// Node i's nvidia_driver from $FAKE_FLEET_DRIVERS; "" when none is given.
std::string DriverOf(int i) {
  const char* env = getenv("FAKE_FLEET_DRIVERS");
  if (env == nullptr) return "";
  std::stringstream all(env);
  std::string v;
  for (int k = 0; std::getline(all, v, ','); ++k) {
    if (k == i) return v;
  }
  return "";
}

void AddDriver(int i, google::protobuf::RepeatedPtrField<v1::Component>* inventory) {
  if (DriverOf(i).empty()) return;
  v1::Component* c = inventory->Add();
  c->set_name("nvidia_driver");
  c->set_present(true);
  c->set_version(DriverOf(i));
}

struct Faults {
  std::set<int> slow_nodes;
  std::set<int> slow_rail_nodes;  // eth1 slow
};

class FakeAgent : public grpc::ClientBidiReactor<v1::AgentMessage, v1::CoordinatorMessage> {
 public:
  FakeAgent(v1::Coordinator::Stub* stub, int index, const Faults& faults,
            std::atomic<int>* registered)
      : index_(index), faults_(faults), registered_(registered), rng_(index) {
    stub->async()->Connect(&ctx_, this);
    v1::AgentMessage reg;
    v1::Registration* r = reg.mutable_registration();
    r->set_node_name(NodeName(index));
    r->set_agent_version("fake");
    // What Answer() serves, and nothing else: the coordinator asks no other.
    if (!nodeprobe::tasks::StateServed(
            r, {"run_probes", "serve_transfer", "run_transfer", "kernel_events"})) {
      std::fprintf(stderr, "fake_fleet: a task it answers is not in the task table\n");
      std::abort();
    }
    AddDriver(index, r->mutable_inventory());
    for (int rail = 0; rail < 2; ++rail) {
      v1::Rail* x = r->add_rails();
      x->set_name(absl::StrCat("eth", rail));
      x->set_netdev(x->name());
      x->add_ipv4(absl::StrCat("10.", rail, ".", index / 256, ".", index % 256));
    }
    Write(std::move(reg));
    StartRead(&in_);
    StartCall();
  }

  void OnReadDone(bool ok) override {
    if (!ok) return;
    if (in_.has_ack()) {
      ++*registered_;
    } else if (in_.has_task()) {
      Answer(in_.task());
    }
    StartRead(&in_);
  }
  void OnWriteDone(bool ok) override {
    std::lock_guard<std::mutex> l(mu_);
    out_.pop_front();
    if (ok && !out_.empty()) StartWrite(&out_.front());
    if (!ok) out_.clear();
  }
  void OnDone(const grpc::Status&) override {
    std::lock_guard<std::mutex> l(mu_);
    done_ = true;
    cv_.notify_all();
  }
  void Stop() {
    ctx_.TryCancel();
    std::unique_lock<std::mutex> l(mu_);
    cv_.wait(l, [&] { return done_; });
  }

 private:
  void Write(v1::AgentMessage m) {
    std::lock_guard<std::mutex> l(mu_);
    out_.push_back(std::move(m));
    if (out_.size() == 1) StartWrite(&out_.front());
  }

  void Answer(const v1::Task& task) {
    v1::AgentMessage reply;
    if (task.has_serve_transfer()) {
      reply.mutable_endpoint()->set_task_id(task.task_id());
      reply.mutable_endpoint()->set_port(5201);
      Write(std::move(reply));
      return;
    }
    v1::TaskResult* r = reply.mutable_result();
    r->set_task_id(task.task_id());
    if (task.has_run_probes()) {
      r->mutable_report()->set_node(NodeName(index_));
      r->mutable_report()->set_stage(v1::SINGLE_NODE);
      r->mutable_report()->set_verdict(v1::PASS);
      if (!DriverOf(index_).empty()) {
        v1::ProbeResult* inv = r->mutable_report()->add_results();
        inv->set_probe("inventory");
        inv->set_verdict(v1::PASS);
        AddDriver(index_, inv->mutable_inventory()->mutable_components());
      }
    } else if (task.has_run_transfer()) {
      // The receiver's rail is the address's second octet.
      const std::string& peer = task.run_transfer().peer_host();
      const int rail = peer.size() > 3 && peer[3] == '1' ? 1 : 0;
      double gbps = 100.0 * (1.0 - std::uniform_real_distribution<double>(0, 0.03)(rng_));
      if (faults_.slow_nodes.count(index_) || (rail == 1 && faults_.slow_rail_nodes.count(index_))) {
        gbps /= 10;
      }
      v1::ProbeResult* p = r->mutable_result();
      p->set_probe("transfer");
      p->set_verdict(v1::PASS);
      v1::TransferReport* t = p->mutable_transfer();
      t->set_transport(v1::TCP);
      t->set_op(v1::STREAM_BW);
      v1::TransferResult* row = t->add_results();
      row->set_size(131072);
      row->set_bw_avg_gbps(gbps);
      row->set_bw_peak_gbps(gbps);
    } else if (task.has_kernel_events()) {
      // Asked at the end of every stage: silence would hold each run.
      r->mutable_result()->set_probe("kernel-events");
      r->mutable_result()->set_verdict(v1::SKIP);
      r->mutable_result()->set_reason("a fake agent reads no kernel log");
    } else {
      return;  // nothing else is asked of a fleet without MTU responders
    }
    Write(std::move(reply));
  }

  const int index_;
  const Faults& faults_;
  std::atomic<int>* registered_;
  std::mt19937 rng_;
  grpc::ClientContext ctx_;
  v1::CoordinatorMessage in_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<v1::AgentMessage> out_;
  bool done_ = false;
};

std::set<int> Indices(const char* s) {
  std::set<int> out;
  for (absl::string_view part : absl::StrSplit(s, ',', absl::SkipEmpty())) {
    int i = 0;
    if (absl::SimpleAtoi(part, &i)) out.insert(i);
  }
  return out;
}

// utime + stime of `pid`, in seconds.
double CpuSeconds(int pid) {
  std::ifstream f(absl::StrCat("/proc/", pid, "/stat"));
  std::string text((std::istreambuf_iterator<char>(f)), {});
  std::istringstream rest(text.substr(text.rfind(')') + 2));
  std::string field;
  double ticks = 0;
  for (int i = 3; rest >> field; ++i) {
    if (i == 14 || i == 15) ticks += std::stod(field);
    if (i == 15) break;
  }
  return ticks / static_cast<double>(sysconf(_SC_CLK_TCK));
}

long RssKb(int pid) {
  std::ifstream f(absl::StrCat("/proc/", pid, "/status"));
  std::string line;
  while (std::getline(f, line)) {
    if (line.rfind("VmRSS:", 0) == 0) return std::stol(line.substr(6));
  }
  return 0;
}

long FileBytes(const std::string& path) {
  long total = 0;
  for (const char* suffix : {"", "-wal"}) {
    struct stat st {};
    if (stat((path + suffix).c_str(), &st) == 0) total += st.st_size;
  }
  return total;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 6) {
    fprintf(stderr, "usage: %s ADDRESS N PATTERN COORDINATOR_PID DB_PATH [SLOW_NODES [SLOW_RAIL_NODES]]\n",
            argv[0]);
    return 2;
  }
  const std::string address = argv[1];
  const int n = atoi(argv[2]);
  const std::string pattern = argv[3];
  const int coordinator = atoi(argv[4]);
  const std::string db = argv[5];
  Faults faults{Indices(argc > 6 ? argv[6] : "7"), Indices(argc > 7 ? argv[7] : "11")};

  // One connection per 50 agents: an HTTP/2 connection holds 100 streams.
  std::vector<std::shared_ptr<grpc::Channel>> channels;
  std::vector<std::unique_ptr<v1::Coordinator::Stub>> stubs;
  for (int i = 0; i < (n + 49) / 50; ++i) {
    grpc::ChannelArguments args;
    args.SetInt("grpc.channel_id", i);
    args.SetMaxReceiveMessageSize(64 << 20);
    channels.push_back(grpc::CreateCustomChannel(address, grpc::InsecureChannelCredentials(), args));
    stubs.push_back(v1::Coordinator::NewStub(channels.back()));
  }
  const long rss_before = RssKb(coordinator);
  std::atomic<int> registered{0};
  std::vector<std::unique_ptr<FakeAgent>> agents;
  for (int i = 0; i < n; ++i) {
    agents.push_back(std::make_unique<FakeAgent>(stubs[i / 50].get(), i, faults, &registered));
  }
  for (int w = 0; w < 600 && registered < n; ++w) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  if (pattern.rfind("hold:", 0) == 0) {
    // Only the fleet, held for a while (bench/agent_footprint.sh scrapes the
    // coordinator's /metrics meanwhile); then gone at once.
    printf("registered %d of %d\n", registered.load(), n);
    fflush(stdout);
    std::this_thread::sleep_for(std::chrono::seconds(atoi(pattern.c_str() + 5)));
    _exit(0);
  }
  const long rss_fleet = RssKb(coordinator);
  const long db_before = FileBytes(db);
  const double cpu_before = CpuSeconds(coordinator);

  v1::RunStageRequest req;
  req.set_stage(v1::CLUSTER);
  req.set_all_nodes(true);
  req.set_pattern(pattern);
  req.set_timeout_s(3600);
  grpc::ClientContext ctx;
  const absl::Time start = absl::Now();
  auto reader = stubs[0]->RunStage(&ctx, req);
  v1::StageEvent ev;
  v1::StageRun run;
  std::vector<absl::Time> round_starts;
  double cpu_rounds_start = 0, cpu_rounds_end = -1;
  absl::Time singles_done = start, retests_start = absl::InfinitePast();
  while (reader->Read(&ev)) {
    if (ev.has_run()) run = ev.run();
    if (!ev.has_progress()) continue;
    const std::string& p = ev.progress();
    if (p.find("] round ") != std::string::npos) {
      if (round_starts.empty()) cpu_rounds_start = CpuSeconds(coordinator);
      round_starts.push_back(absl::Now());
    }
    if (p.find("] retest ") != std::string::npos && retests_start == absl::InfinitePast()) {
      retests_start = absl::Now();
      cpu_rounds_end = CpuSeconds(coordinator);
    }
    if (round_starts.empty() && p.find("single-node") != std::string::npos) singles_done = absl::Now();
  }
  const grpc::Status status = reader->Finish();
  const absl::Time end = absl::Now();
  const double cpu = CpuSeconds(coordinator) - cpu_before;
  if (cpu_rounds_end < 0) cpu_rounds_end = cpu_before + cpu;
  const long rss_after = RssKb(coordinator);
  if (!status.ok()) {
    fprintf(stderr, "RunStage: %s\n", status.error_message().c_str());
    return 1;
  }
  const absl::Time rounds_end =
      retests_start != absl::InfinitePast() ? retests_start : end;
  const double rounds_s =
      round_starts.empty() ? 0 : absl::ToDoubleSeconds(rounds_end - round_starts.front());
  const double first_s =
      round_starts.size() > 1 ? absl::ToDoubleSeconds(round_starts[1] - start) : absl::ToDoubleSeconds(end - start);

  // Blame: exactly the injected faults.
  std::set<std::string> want, got;
  for (int i : faults.slow_nodes) {
    if (i < n) want.insert("node " + NodeName(i));
  }
  for (int i : faults.slow_rail_nodes) {
    if (i < n && !faults.slow_nodes.count(i)) want.insert("rail " + NodeName(i) + " eth1");
  }
  int confirmed = 0;
  for (const v1::Suspect& s : run.suspects()) {
    got.insert(s.kind() == "rail" ? absl::StrCat("rail ", s.node(), " ", s.rail())
               : s.kind() == "node" ? absl::StrCat("node ", s.node())
                                    : absl::StrCat("link ", s.node(), " ", s.other_node()));
    confirmed += s.confirmed();
  }
  int pairs = 0;
  for (const v1::PairResult& p : run.pairs()) pairs += !p.retest();
  printf("nodes=%d registered=%d pattern=%s rounds=%u pairs=%d wall_s=%.2f "
         "single_node_s=%.2f per_round_s=%.3f first_round_results_s=%.2f "
         "coordinator_cpu_s=%.2f cpu_per_round_s=%.3f rss_per_node_kB=%.1f "
         "rss_during_stage_per_node_kB=%.1f store_per_node_B=%.0f suspects=%d confirmed=%d "
         "blame=%s verdict=%s\n",
         n, registered.load(), run.pattern().c_str(), run.rounds(), pairs,
         absl::ToDoubleSeconds(end - start), absl::ToDoubleSeconds(singles_done - start),
         run.rounds() ? rounds_s / run.rounds() : 0.0, first_s, cpu,
         run.rounds() ? (cpu_rounds_end - cpu_rounds_start) / run.rounds() : 0.0,
         static_cast<double>(rss_fleet - rss_before) / n,
         static_cast<double>(rss_after - rss_before) / n,
         static_cast<double>(FileBytes(db) - db_before) / n, run.suspects_size(), confirmed,
         want == got ? "correct" : "WRONG", v1::Verdict_Name(run.verdict()).c_str());
  if (want != got) {
    for (const auto& s : got) fprintf(stderr, "blamed: %s\n", s.c_str());
    for (const auto& s : want) fprintf(stderr, "injected: %s\n", s.c_str());
  }
  for (auto& a : agents) a->Stop();
  return want == got ? 0 : 1;
}
