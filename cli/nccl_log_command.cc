#include "cli/nccl_log_command.h"

#include <CLI/CLI.hpp>
#include <iostream>
#include <set>

#include "absl//strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "cli/json_output.h"
#include "cli/log_input.h"
#include "cli/safe_text.h"
#include "cli/table_renderer.h"
#include "controlplane/exit_codes.h"
#include "platform/hwloc_topology.h"
#include "probes/framework/profile.h"
#include "probes/framework/result_util.h"
#include "probes/framework/stage_runner.h"
#include "probes/locality/locality_probe.h"
#include "probes/nccl/nccl_log.h"
#include "probes/nccl/nccl_log_judge.h"
#include "probes/nccl/nccl_profile.h"

namespace nodeprobe::cli {
namespace {

struct NcclLogOptions {
  std::string file;
  std::string format = "table";
  std::string topology_xml;
  std::string profile_path;
  bool expect_rdma = false;
  bool expect_gdr = false;
};

// The rails and GDR eligibility of each GPU in the topology.
absl::Status AddTopology(const std::string& path, nccl::NcclLogContext* c) {
  absl::StatusOr<platform::PciTopology> topo = platform::LoadPciTopology(path);
  if (!topo.ok()) return topo.status();
  c->topology_source = path;
  for (auto& [gpu, rail] : RdmaRails(*topo)) {
    if (rail.gdr_by_default) c->gdr_by_default.insert(gpu);
    // A topology that names a NIC only by bus id (an NCCL file written by
    // class) cannot be matched with the HCA names in the log: no check.
    std::set<std::string> named;
    for (const std::string& nic : rail.nics) {
      if (nic.find(':') == std::string::npos) named.insert(nic);
    }
    if (!named.empty()) c->rails[gpu] = std::move(named);
  }
  return absl::OkStatus();
}

std::string RenderNcclLog(const v1::ProbeResult& r) {
  const v1::NcclLogReport& n = r.nccl_log();
  std::string out;
  absl::StrAppend(&out, " NCCL ", n.versions().empty() ? "(version not in the log)"
                                                       : absl::StrJoin(n.versions(), ", "),
                  ", ", n.nccl_lines(), " NCCL lines of ", n.lines(),
                  n.hosts().empty() ? "" : absl::StrCat(", hosts ", absl::StrJoin(n.hosts(), " ")),
                  "\n");
  if (!n.networks().empty()) {
    absl::StrAppend(&out, "  network   ", absl::StrJoin(n.networks(), ", "),
                    n.provider().empty() ? "" : absl::StrCat(" (provider ", n.provider(), ")"),
                    "\n");
  }
  for (const v1::NcclNetDevice& d : n.devices()) {
    absl::StrAppend(&out, "  device    ", d.network(), "[", d.index(), "] ", d.name(),
                    d.network() == "IB" ? absl::StrCat(":", d.port(), "/", d.link_layer())
                                        : absl::StrCat(" ", d.address()),
                    "\n");
  }
  if (n.ib_no_device()) absl::StrAppend(&out, "  NET/IB    no device found\n");
  for (const std::string& h : n.gdr_disabled_hcas()) {
    absl::StrAppend(&out, "  GDR off   for HCA ", h, "\n");
  }
  for (const v1::NcclTransportUse& t : n.transports()) {
    absl::StrAppend(&out, "  via       ", t.transport(),
                    t.network() ? absl::StrCat("/", t.net_device(),
                                               t.device_name().empty() ? "" : " (" + t.device_name() + ")",
                                               t.gdr() ? " GDRDMA" : " no GDR")
                                : "",
                    ": ", t.connections(), " connection(s)\n");
  }
  for (const auto& [k, v] : n.env()) absl::StrAppend(&out, "  env       ", k, "=", v, "\n");
  for (const std::string& w : n.warnings()) absl::StrAppend(&out, "  NCCL WARN ", w, "\n");
  for (const v1::NcclTestsRun& t : n.tests()) {
    absl::StrAppend(&out, " nccl-tests ", t.collective().empty() ? "(collective not printed)" : t.collective(),
                    ": ", t.ranks(), " ranks, ", t.rows_size(), " sizes, avg busbw ",
                    t.avg_printed() ? absl::StrFormat("%.2f GB/s", t.avg_busbw_gbps())
                                    : std::string("not printed"));
    if (!t.rows().empty()) {
      const v1::NcclTestsRow& last = t.rows(t.rows_size() - 1);
      absl::StrAppend(&out, absl::StrFormat(", at %llu B %.2f GB/s",
                                            static_cast<unsigned long long>(last.size()),
                                            last.busbw_gbps()));
    }
    absl::StrAppend(&out, "\n");
  }
  return TerminalSafe(out + RenderVerdictAndFindings(r));
}

int RunNcclLog(const NcclLogOptions& o) {
  absl::StatusOr<Profile> loaded = LoadProfileWarning(o.profile_path);
  if (!loaded.ok()) return controlplane::StatusExit(loaded.status());
  const Profile& profile = *loaded;
  nccl::NcclLogContext context;
  context.busbw_min_gbps = profile.Section<NcclRules>().busbw_min_gbps;
  context.profile_source = profile.source;
  context.rdma_expected = o.expect_rdma;
  context.gdr_expected = o.expect_gdr;
  if (!o.topology_xml.empty()) {
    absl::Status s = AddTopology(o.topology_xml, &context);
    if (!s.ok()) return controlplane::ErrorExit(absl::StrCat("--topology-xml: ", s.message()));
  }
  nccl::NcclLogParser parser;
  if (absl::Status read = ReadLogInput(o.file, "", [&](std::istream& in) { parser.AddStream(in); });
      !read.ok()) {
    return controlplane::StatusExit(read);
  }
  v1::ProbeResult result = nccl::JudgeNcclLog(parser.Report(), context);
  FinalizeResult(profile, &result);
  if (!PrintAs(o.format, result, [&] { return RenderNcclLog(result); }))
    return controlplane::kExitCouldNotRun;
  return controlplane::ExitCodeForVerdict(result.verdict());
}

}  // namespace

std::function<int()> AddNcclLogCommand(CLI::App& app) {
  auto o = std::make_shared<NcclLogOptions>();
  CLI::App* cmd = app.add_subcommand(
      "nccl-log",
      "Read what NCCL did from an NCCL_DEBUG=INFO log (ours or any job's): version, network, "
      "devices, each connection's transport and GPUDirect RDMA; findings for a fallback to "
      "sockets, GDR off, and NICs off the GPU's rail. Exit 0 clean, 1 FAIL, 2 bad input, "
      "3 nothing to judge.");
  cmd->add_option("file", o->file, "The log file, or - for stdin")->required();
  cmd->add_option("--format", o->format, "table or json")
      ->check(CLI::IsMember({"table", "json"}))
      ->capture_default_str();
  cmd->add_option("--topology-xml", o->topology_xml,
                  "hwloc XML of the nodes: checks each GPU's NIC against its rail, and GDR "
                  "where the rail is PIX/PXB");
  cmd->add_flag("--expect-rdma", o->expect_rdma,
                "The nodes have RDMA NICs: traffic over sockets is a FAIL, not a WARN");
  cmd->add_flag("--expect-gdr", o->expect_gdr,
                "GPUDirect RDMA is possible: RDMA connections without it are a FAIL");
  cmd->add_option("--profile", o->profile_path,
                  "Acceptance profile: its nccl.<collective>_busbw_min_gbps bars judge "
                  "nccl-tests tables, its exceptions apply");
  return [=]() -> int { return cmd->parsed() ? RunNcclLog(*o) : -1; };
}

}  // namespace nodeprobe::cli
