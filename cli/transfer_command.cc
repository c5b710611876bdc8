#include "cli/transfer_command.h"

#include <CLI/CLI.hpp>
#include <iostream>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "cli/json_output.h"
#include "cli/table_renderer.h"
#include "controlplane/exit_codes.h"
#include "controlplane/signals.h"
#include "platform/file_tree.h"
#include "platform/route.h"
#include "probes/framework/result_util.h"
#include "probes/framework/stage_runner.h"
#include "probes/transfer/transfer_runner.h"
#include "probes/transfer/transfer_task.h"

namespace nodeprobe::cli {
namespace {

struct TransferServeOptions {
  std::string bind;
  std::string sys_root = "/sys";
  int port = kDefaultTransferPort;
  double idle_timeout_s = 5;
  std::string device;
  uint32_t ib_port = 0;
  int gid_index = -1;
  int gpu = -1;
};

struct TransferRunOptions {
  std::string peer;
  std::string sys_root;
  std::string transport = "tcp";
  std::string op;
  std::string sizes;
  bool all_sizes = false;
  double duration_s = 5;
  int64_t iterations = 0;  // signed, so "-5" is refused rather than wrapped
  bool iterations_set = false;
  int64_t warmup = 0;
  uint32_t streams = 1;
  uint32_t tx_depth = 128;
  bool bidirectional = false;
  bool rdma_cm = false;
  int traffic_class = 0;
  int service_level = 0;
  int gpu = -1;
  std::string device;
  uint32_t ib_port = 0;
  int gid_index = -1;
  double idle_timeout_s = 5;
  std::string format = "table";
};

int ServeTransfer(const TransferServeOptions& o) {
  transfer::Timeouts t;
  t.idle = absl::Seconds(o.idle_timeout_s);
  auto server = transfer::TransferServer::Start(o.bind, static_cast<uint16_t>(o.port), t);
  if (!server.ok()) {
    std::cerr << "nodeprobe: error: cannot listen: " << server.status().message()
              << " (choose another --port, or --port 0 for any)\n";
    return controlplane::kExitCouldNotRun;
  }
  if (o.ib_port != 0 && o.device.empty()) {
    std::cerr << "nodeprobe: error: --ib-port needs the --device it belongs to\n";
    return controlplane::kExitUsage;
  }
  transfer::RdmaServeChoice choice{o.device, o.ib_port, std::nullopt};
  if (o.gid_index >= 0) choice.gid_index = static_cast<uint32_t>(o.gid_index);
  choice.gpu = o.gpu;
  (*server)->set_rdma_choice(choice);
  (*server)->set_counter_root(o.sys_root);
  std::cout << "nodeprobe transfer server listening on "
            << (o.bind.empty() ? "*" : o.bind) << ":" << (*server)->port() << std::endl;
  {
    controlplane::StopOnSignal on_signal([&] { (*server)->Stop(); });
    (*server)->Serve();
  }
  std::cerr << "nodeprobe: transfer server stopped after "
            << (*server)->runs_served() << " runs\n";
  return controlplane::kExitOk;
}

std::string RenderTransfer(const v1::ProbeResult& r) {
  const v1::TransferReport& t = r.transfer();
  std::string out = absl::StrCat(" ", transfer::OpName(t.op()), " over ",
                                 absl::AsciiStrToLower(v1::Transport_Name(t.transport())),
                                 " to ", t.peer(),
                                 t.streams() > 1 ? absl::StrCat(", ", t.streams(), " streams") : "",
                                 "\n");
  if (!t.gid_reason().empty()) {
    absl::StrAppend(&out, " device ", t.device(), ", GID index ", t.gid_index(), ": ",
                    t.gid_reason(), "; buffer in ", t.memory(), " memory",
                    t.traffic_class() ? absl::StrCat("; traffic class ", t.traffic_class()) : "",
                    "\n");
  }
  if (transfer::IsLatencyOp(t.op())) {
    absl::StrAppend(&out, absl::StrFormat(
        " %-10s %-12s %-12s %-12s %-16s %-12s %-14s %-14s\n", "#bytes", "#iterations",
        "t_min[usec]", "t_max[usec]", "t_typical[usec]", "t_avg[usec]",
        "99%[usec]", "99.9%[usec]"));
    for (const v1::TransferResult& row : t.results()) {
      const v1::LatencyStats& l = row.latency();
      absl::StrAppend(&out, absl::StrFormat(
          " %-10d %-12d %-12.2f %-12.2f %-16.2f %-12.2f %-14.2f %-14.2f%s\n", row.size(),
          row.iterations(), l.min_us(), l.max_us(), l.median_us(), l.avg_us(),
          l.p99_us(), l.p999_us(), row.partial() ? "  (partial)" : ""));
    }
  } else {
    absl::StrAppend(&out, absl::StrFormat(" %-10s %-12s %-16s %-18s %-14s\n", "#bytes",
                                          "#iterations", "BW peak[Gb/s]",
                                          "BW average[Gb/s]", "MsgRate[Mpps]"));
    for (const v1::TransferResult& row : t.results()) {
      absl::StrAppend(&out, absl::StrFormat(
          " %-10d %-12d %-16.2f %-18.2f %-14.6f%s\n", row.size(), row.iterations(),
          row.bw_peak_gbps(), row.bw_avg_gbps(), row.msg_rate_mpps(),
          row.partial() ? "  (partial: sender's count)" : ""));
    }
  }
  return out + RenderFindings(r);
}

int RunTransfer(const TransferRunOptions& o) {
  auto usage = [](const std::string& msg) {
    std::cerr << "nodeprobe: error: " << msg << "\n";
    return controlplane::kExitUsage;
  };
  absl::StatusOr<platform::HostPort> peer =
      platform::ParseHostPort(o.peer, kDefaultTransferPort);
  if (!peer.ok()) return usage(absl::StrCat("--peer: ", peer.status().message()));
  const bool rdma = o.transport == "rdma";
  std::string op_name = o.op.empty() ? (rdma ? "write_bw" : "stream_bw") : o.op;
  v1::TransferOp op = transfer::OpFromName(op_name);
  if (op == v1::OP_UNSPECIFIED) {
    return usage(absl::StrCat("--op ", op_name, " is unknown (tcp: stream_bw, rr_lat; rdma: "
                              "write_bw, read_bw, send_bw, write_lat)"));
  }
  v1::RunTransfer task;
  task.set_peer_host(peer->host);
  task.set_peer_port(peer->port);
  if (o.all_sizes) {
    for (uint64_t s : transfer::AllSizes()) task.add_sizes(s);
  } else if (!o.sizes.empty()) {
    absl::StatusOr<std::vector<uint64_t>> sizes = transfer::ParseSizeList(o.sizes);
    if (!sizes.ok()) return usage(absl::StrCat("--size: ", sizes.status().message()));
    for (uint64_t s : *sizes) task.add_sizes(s);
  } else {
    task.add_sizes(transfer::DefaultSize(rdma ? v1::RDMA : v1::TCP, op, o.streams));
  }
  if (o.iterations_set && o.iterations <= 0) {
    return usage(absl::StrCat("--iterations ", o.iterations, " must be a positive count"));
  }
  if (o.warmup < 0) return usage("--warmup must be 0 or more");
  v1::TransferRequest* req = task.mutable_request();
  req->set_transport(rdma ? v1::RDMA : v1::TCP);
  req->set_op(op);
  req->set_streams(o.streams);
  req->set_duration_s(o.duration_s);
  req->set_iterations(o.iterations_set ? static_cast<uint64_t>(o.iterations)
                                       : (transfer::IsLatencyOp(op) ? 1000 : 0));
  req->set_warmup(o.warmup ? static_cast<uint64_t>(o.warmup)
                           : (transfer::IsLatencyOp(op) ? 100 : 0));
  req->set_tx_depth(o.tx_depth);
  req->set_bidirectional(o.bidirectional);
  req->set_rdma_cm(o.rdma_cm);
  if (o.traffic_class < 0) return usage("--tc must be 0 .. 255");
  req->set_traffic_class(static_cast<uint32_t>(o.traffic_class));
  if (o.service_level < 0) return usage("--sl must be 0 .. 15");
  req->set_service_level(static_cast<uint32_t>(o.service_level));
  task.set_device(o.device);
  task.set_port(o.ib_port);
  if (o.gid_index >= 0) task.set_gid_index(static_cast<uint32_t>(o.gid_index));
  if (o.gpu >= 0) task.set_gpu(static_cast<uint32_t>(o.gpu));
  task.set_sys_root(o.sys_root);
  if (absl::Status valid = transfer::ValidateTransfer(task, absl::Hours(1)); !valid.ok()) {
    return usage(std::string(valid.message()));
  }
  v1::ProbeResult result =
      transfer::RunTransferTask(task, absl::Seconds(o.idle_timeout_s));
  FinalizeResult(Profile(), &result);
  if (!PrintAs(o.format, result, [&] { return RenderTransfer(result); }))
    return controlplane::kExitCouldNotRun;
  return controlplane::ExitCodeForVerdict(result.verdict());
}

// `transfer serve`'s flags into *serve; its subcommand.
CLI::App* AddServeFlags(CLI::App& transfer, const std::shared_ptr<TransferServeOptions>& serve) {
  CLI::App* serve_cmd = transfer.add_subcommand(
      "serve", "Serve transfer runs until SIGTERM; prints the port it listens on.");
  serve_cmd->add_option("--bind", serve->bind, "Address to listen on (default: all)");
  serve_cmd->add_option("--port", serve->port, "Control port (0: any free port)")
      ->check(CLI::Range(0, 65535))
      ->capture_default_str();
  serve_cmd->add_option("--idle-timeout", serve->idle_timeout_s,
                        "Give up on a client that moves nothing for this many seconds")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  serve_cmd->add_option("--device", serve->device,
                        "RDMA device to serve from, e.g. mlx5_0 (default: the ACTIVE port "
                        "behind the address the client reaches)");
  serve_cmd->add_option("--ib-port", serve->ib_port, "Port of --device (default: chosen)")
      ->check(CLI::Range(1, 255));
  serve_cmd->add_option("--gid-index", serve->gid_index,
                        "RoCE GID index (default: chosen from the client's interface)")
      ->check(CLI::Range(0, 65535));
  serve_cmd->add_option("--gpu", serve->gpu,
                        "RDMA: put the served buffer on GPU N, so the NIC writes into (or "
                        "reads from) GPU memory as NCCL's receive side does (dma-buf, else "
                        "nvidia_peermem)")
      ->check(CLI::Range(0, 1023));
  serve_cmd->add_option("--sysfs-root", serve->sys_root,
                        "Read the port counters sent back with each run from this tree "
                        "(the host's /sys mounted elsewhere, e.g. /host/sys in a container)")
      ->check(CLI::ExistingDirectory)
      ->capture_default_str();
  return serve_cmd;
}

// `transfer run`'s flags into *run; its subcommand.
CLI::App* AddRunFlags(CLI::App& transfer, const std::shared_ptr<TransferRunOptions>& run) {
  CLI::App* run_cmd = transfer.add_subcommand(
      "run", "Run a transfer against `nodeprobe transfer serve` on the peer.");
  run_cmd->add_option("--peer", run->peer, "HOST[:PORT] of the server")->required();
  run_cmd->add_option("--transport", run->transport, "tcp or rdma")
      ->check(CLI::IsMember({"tcp", "rdma"}))
      ->capture_default_str();
  run_cmd->add_option("--op", run->op,
                      "tcp: stream_bw (default), rr_lat; rdma: write_bw (default), "
                      "read_bw, send_bw, write_lat");
  auto* size = run_cmd->add_option("--size", run->sizes,
                                    "Message sizes, e.g. 65536 or 4K,64K,1M (default: 64K RDMA, 128K TCP stream, 2 latency)");
  run_cmd->add_flag("--all-sizes", run->all_sizes, "Sweep 2 B .. 8 MiB, doubling")
      ->excludes(size);
  run_cmd->add_option("--duration", run->duration_s, "Seconds per size (bandwidth ops)")
      ->check(CLI::Range(0.05, 3600.0))
      ->capture_default_str();
  run_cmd->add_option_function<int64_t>(
      "--iterations",
      [run](const int64_t& n) {
        run->iterations = n;
        run->iterations_set = true;
      },
      "Messages per size (latency ops default 1000)");
  run_cmd->add_option("--warmup", run->warmup, "Messages excluded from the figures");
  run_cmd->add_option("--streams", run->streams, "Parallel TCP streams")
      ->check(CLI::Range(1, 128))
      ->capture_default_str();
  run_cmd->add_option("--tx-depth", run->tx_depth, "RDMA outstanding work requests")
      ->check(CLI::Range(1, 8192))
      ->capture_default_str();
  run_cmd->add_flag("--bidirectional", run->bidirectional, "Traffic both ways at once");
  run_cmd->add_option("--device", run->device, "RDMA device, e.g. mlx5_0");
  run_cmd->add_option("--ib-port", run->ib_port, "Port of --device (default: chosen)")
      ->check(CLI::Range(1, 255));
  run_cmd->add_flag("--rdma-cm", run->rdma_cm,
                    "Connect through rdma_cm on the peer's IP (default: out-of-band "
                    "exchange of LID/GID/QPN on the control connection)");
  run_cmd->add_option("--gpu", run->gpu,
                      "RDMA: put this end's buffer on GPU N (GPUDirect RDMA via dma-buf, "
                      "else nvidia_peermem)")
      ->check(CLI::Range(0, 1023));
  run_cmd->add_option("--tc", run->traffic_class,
                      "RoCE traffic class in the GRH (DSCP << 2), as NCCL_IB_TC; lossless "
                      "fabrics map a DSCP to their PFC priority");
  run_cmd->add_option("--sl", run->service_level,
                      "Service level in the address vector, as NCCL_IB_SL (InfiniBand: the "
                      "VL; perftest -S)");
  run_cmd->add_option("--gid-index", run->gid_index,
                      "RoCE GID index (default: chosen from the route to the peer)");
  run_cmd->add_option("--idle-timeout", run->idle_timeout_s,
                      "Fail when nothing moves for this many seconds")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  run_cmd->add_option("--sysfs-root", run->sys_root,
                      "Read this end's port counters from this tree instead of /sys (the "
                      "host's /sys mounted elsewhere, e.g. /host/sys in a container)")
      ->check(CLI::ExistingDirectory);
  run_cmd->add_option("--format", run->format, "table or json")
      ->check(CLI::IsMember({"table", "json"}))
      ->capture_default_str();
  return run_cmd;
}

}  // namespace

std::function<int()> AddTransferCommand(CLI::App& app) {
  CLI::App* transfer = app.add_subcommand(
      "transfer", "Measure bandwidth and latency to a peer (ib_write_bw / iperf-style).");
  transfer->require_subcommand(1);
  auto serve = std::make_shared<TransferServeOptions>();
  auto run = std::make_shared<TransferRunOptions>();
  CLI::App* serve_cmd = AddServeFlags(*transfer, serve);
  CLI::App* run_cmd = AddRunFlags(*transfer, run);
  return [=]() -> int {
    if (serve_cmd->parsed()) return ServeTransfer(*serve);
    if (run_cmd->parsed()) return RunTransfer(*run);
    return -1;
  };
}

}  // namespace nodeprobe::cli
