#include "probes/nccl/nccl_log_judge.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "probes/framework/result_util.h"
#include "probes/nccl/nccl_findings.h"
#include "probes/nccl/nccl_log.h"
#include "probes/nccl/nccl_tests_output.h"

namespace nodeprobe::nccl {
namespace {

// The GPU whose rail carried a path: a PXN path leaves through its proxy
// rank's NIC, so that GPU's rail is the one to judge; "" when the log does
// not name it.
const std::string& RailGpu(const v1::NcclNetPath& p) {
  return p.has_proxy_rank() ? p.proxy_gpu_bus_id() : p.gpu_bus_id();
}

uint32_t Connections(const v1::NcclLogReport& r, bool (*match)(const v1::NcclTransportUse&)) {
  uint32_t n = 0;
  for (const v1::NcclTransportUse& t : r.transports()) {
    if (match(t)) n += t.connections();
  }
  return n;
}

bool IsSocket(const v1::NcclTransportUse& t) { return t.transport() == "NET/Socket"; }
bool IsRdmaWithoutGdr(const v1::NcclTransportUse& t) {
  return t.network() && t.transport() != "NET/Socket" && !t.gdr();
}
bool IsRdma(const v1::NcclTransportUse& t) {
  return t.network() && t.transport() != "NET/Socket";
}

std::vector<std::string> RdmaDeviceNames(const v1::NcclLogReport& r) {
  std::vector<std::string> out;
  for (const v1::NcclNetDevice& d : r.devices()) {
    if (d.network() == "IB") out.push_back(absl::StrCat(d.name(), ":", d.port(), "/", d.link_layer()));
  }
  return out;
}

void SocketFallback(const v1::NcclLogReport& r, const NcclLogContext& c, v1::ProbeResult* out) {
  const uint32_t sockets = Connections(r, IsSocket);
  if (sockets == 0) return;
  const std::vector<std::string> rdma = RdmaDeviceNames(r);
  // NCCL listed RDMA devices and still used sockets, or the node has them:
  // a fallback for sure. Otherwise the log alone cannot tell.
  const bool sure = c.rdma_expected || !rdma.empty();
  std::string why;
  if (!rdma.empty()) {
    why = absl::StrCat("although it listed RDMA devices (", absl::StrJoin(rdma, " "), ")");
  } else if (r.ib_no_device()) {
    why = "because its IB transport found no device (\"NET/IB : No device found\")";
  } else {
    why = "and listed no RDMA device";
  }
  AddFinding(out, findings::kNcclFellBackToSockets.code, sure ? v1::FAIL : v1::WARN, "",
             absl::StrCat("NCCL carried ", sockets,
                          " connection(s) between nodes over "
                          "sockets (NET/Socket) ",
                          why, sure ? "" : "; if these nodes have RDMA NICs this is a fallback"));
}

void GdrOff(const v1::NcclLogReport& r, const NcclLogContext& c, v1::ProbeResult* out) {
  const uint32_t without = Connections(r, IsRdmaWithoutGdr);
  if (without == 0) return;
  // Which sending GPUs went without GDR, and whether their rail allows it.
  std::set<std::string> gpus, expected_gpus;
  for (const v1::NcclNetPath& p : r.net_paths()) {
    if (p.transport() == "NET/Socket" || p.gdr() || RailGpu(p).empty()) continue;
    gpus.insert(RailGpu(p));
    if (c.gdr_by_default.count(RailGpu(p))) expected_gpus.insert(RailGpu(p));
  }
  const bool sure = c.gdr_expected || !expected_gpus.empty();
  std::string detail;
  if (!expected_gpus.empty()) {
    detail = absl::StrCat("; GPUs ", absl::StrJoin(expected_gpus, ", "), " sit PIX/PXB to their "
                          "rail in ", c.topology_source, ", where NCCL's default uses it");
  } else if (!gpus.empty()) {
    detail = absl::StrCat(" (GPUs ", absl::StrJoin(gpus, ", "), ")");
  }
  if (!r.gdr_disabled_hcas().empty()) {
    absl::StrAppend(&detail, "; NCCL said GPU Direct RDMA is disabled for ",
                    absl::StrJoin(r.gdr_disabled_hcas(), ", "));
  }
  if (auto it = r.env().find("NCCL_NET_GDR_LEVEL"); it != r.env().end()) {
    absl::StrAppend(&detail, "; NCCL_NET_GDR_LEVEL=", it->second);
  }
  AddFinding(out, findings::kNcclGdrOff.code, sure ? v1::FAIL : v1::WARN, "",
             absl::StrCat(without, " of ", Connections(r, IsRdma),
                          " RDMA connection(s) between nodes ran without GPUDirect RDMA "
                          "(no /GDRDMA in \"via NET/...\")",
                          detail));
}

void HcaMismatch(const v1::NcclLogReport& r, const NcclLogContext& c, v1::ProbeResult* out) {
  if (c.rails.empty()) return;
  std::set<std::string> seen;
  for (const v1::NcclNetPath& p : r.net_paths()) {
    const std::string& gpu = RailGpu(p);
    if (p.transport() == "NET/Socket" || gpu.empty() || p.device_name().empty()) continue;
    auto rail = c.rails.find(gpu);
    if (rail == c.rails.end() || rail->second.empty() || rail->second.count(p.device_name())) {
      continue;
    }
    const std::string key = absl::StrCat(p.host(), gpu, p.device_name());
    if (!seen.insert(key).second) continue;
    const std::string proxied =
        p.has_proxy_rank() ? absl::StrCat(" (PXN: for GPU ", p.gpu_bus_id(), " through rank ",
                                          p.proxy_rank(), ")")
                           : "";
    AddFinding(out, findings::kNcclHcaMismatch.code, p.device_name(),
               absl::StrCat("GPU ", gpu, p.host().empty() ? "" : " on ", p.host(), " sent over ",
                            p.device_name(), proxied, ", which is not its rail (",
                            absl::StrJoin(rail->second, ", "), " in ", c.topology_source, ")"));
  }
}

bool WrongCount(const std::string& column) {
  // "0" and "N/A" are clean; any other count is elements that differ,
  // printed with "%6g" (1048576 wrong elements is "1.04858e+06").
  double n = 0;
  return !column.empty() && column != "N/A" && absl::SimpleAtod(column, &n) && n > 0;
}

bool ValidFigure(double x) { return std::isfinite(x) && x >= 0; }

// Printed to two decimals: within 2% or 0.02 of each other.
bool Agrees(double printed, double derived) {
  return std::fabs(printed - derived) <= std::max(0.02, 0.02 * std::fabs(derived));
}

// Figures that are measurements and agree with each other as nccl-tests
// derives them: algbw = size / time, busbw = algbw x the collective's
// factor for the run's ranks (a table whose busbw is 1e308 or 99999 next to
// an ordinary algbw was not printed by nccl-tests).
bool ValidRow(const v1::NcclTestsRow& row, const std::string& collective, uint32_t ranks) {
  for (double x : {row.time_us(), row.algbw_gbps(), row.busbw_gbps(), row.in_place_time_us(),
                   row.in_place_algbw_gbps(), row.in_place_busbw_gbps()}) {
    if (!ValidFigure(x)) return false;
  }
  if (row.time_us() > 0 &&
      !Agrees(row.algbw_gbps(), static_cast<double>(row.size()) / (row.time_us() * 1e3))) {
    return false;
  }
  const double factor = ranks > 0 ? BusBwFactor(collective, static_cast<int>(ranks)) : 0;
  return factor <= 0 || (Agrees(row.busbw_gbps(), row.algbw_gbps() * factor) &&
                         Agrees(row.in_place_busbw_gbps(), row.in_place_algbw_gbps() * factor));
}

// The bars of the profile that no table in the log can be held to: a
// table that does not say its collective, or no table of the bar's
// collective. Never passed over in silence.
void BarsNotApplied(const v1::NcclLogReport& r, const NcclLogContext& c, v1::ProbeResult* out) {
  if (c.busbw_min_gbps.empty() || r.tests_size() == 0) return;
  std::set<std::string> named;
  int unnamed = 0;
  for (const v1::NcclTestsRun& run : r.tests()) {
    if (run.collective().empty()) {
      ++unnamed;
    } else {
      named.insert(run.collective());
    }
  }
  for (const auto& [collective, bar] : c.busbw_min_gbps) {
    if (named.count(collective)) continue;
    AddFinding(out, findings::kBarNotApplied.code, collective,
               unnamed > 0
                   ? absl::StrFormat("the profile's %s busbw bar (%.2f GB/s) was not applied: "
                                     "%d nccl-tests table(s) do not say which collective they "
                                     "measured, and none is named %s",
                                     collective, bar, unnamed, collective)
                   : absl::StrFormat("the profile's %s busbw bar (%.2f GB/s) was not applied: "
                                     "the log holds no %s table",
                                     collective, bar, collective));
  }
}

// nccl-tests runs: figures at the largest size with a valid figure as
// measurements, rows with invalid figures as findings, wrong results (its
// -c check) as NCCL_WRONG_RESULT.
void JudgeTests(const v1::NcclLogReport& r, const NcclLogContext& c, v1::ProbeResult* out) {
  BarsNotApplied(r, c, out);
  for (int i = 0; i < r.tests_size(); ++i) {
    const v1::NcclTestsRun& run = r.tests(i);
    const std::string name = run.collective().empty() ? absl::StrCat("run", i) : run.collective();
    const v1::NcclTestsRow* last = nullptr;
    std::vector<std::string> invalid;
    for (const v1::NcclTestsRow& row : run.rows()) {
      if (ValidRow(row, run.collective(), run.ranks())) {
        last = &row;
      } else {
        invalid.push_back(absl::StrFormat("%llu B (time %g us, busbw %g GB/s)",
                                          static_cast<unsigned long long>(row.size()),
                                          row.time_us(), row.busbw_gbps()));
      }
    }
    if (!invalid.empty()) {
      AddFinding(out, findings::kNcclTestsFigureInvalid.code, name,
                 absl::StrCat("nccl-tests ", name, ": ", invalid.size(),
                              " size(s) printed figures that are not measurements (NaN, "
                              "infinite, negative, or not algbw = size / time and busbw = "
                              "algbw x the collective's factor): ",
                              absl::StrJoin(invalid, "; "),
                              last ? absl::StrFormat("; judged at %llu B, the largest valid size",
                                                     static_cast<unsigned long long>(last->size()))
                                   : "; no size has valid figures"));
    }
    if (!run.avg_printed() && !run.rows().empty()) {
      AddFinding(out, findings::kNcclTestsFigureInvalid.code, name,
                 absl::StrCat("nccl-tests ", name,
                              " printed no '# Avg bus bandwidth' line: the "
                              "run ended before its summary (or the log was cut)"));
    }
    if (last != nullptr) {
      AddMeasurement(out, "nccl_tests_busbw", last->busbw_gbps(), "GB/s",
                     {{"collective", name},
                      {"size", absl::StrCat(last->size())},
                      {"ranks", absl::StrCat(run.ranks())}});
    }
    if (auto bar = c.busbw_min_gbps.find(run.collective()); bar != c.busbw_min_gbps.end()) {
      if (last == nullptr) {
        AddFinding(out, findings::kBarNotApplied.code, name,
                   absl::StrFormat("the profile's %s busbw bar (%.2f GB/s) was not applied: the "
                                   "table has no size with valid figures",
                                   run.collective(), bar->second));
      } else if (last->busbw_gbps() < bar->second) {
        AddFinding(out, findings::kNcclBusbwBelowExpected.code, "",
                   absl::StrFormat("nccl-tests %s at %llu B: busbw %.2f GB/s (out-of-place), "
                                   "below the profile's %.2f GB/s (%s)",
                                   name, static_cast<unsigned long long>(last->size()),
                                   last->busbw_gbps(), bar->second, c.profile_source));
      }
    }
    AddEvidence(out, absl::StrCat("nccl-tests.", name),
                absl::StrCat(run.ranks(), " ranks, ", run.rows_size(), " sizes, avg busbw ",
                             run.avg_printed() ? absl::StrFormat("%g GB/s", run.avg_busbw_gbps())
                                               : std::string("not printed")));
    int wrong_rows = 0;
    for (const v1::NcclTestsRow& row : run.rows()) {
      if (!run.error_column() && (WrongCount(row.wrong()) || WrongCount(row.in_place_wrong()))) {
        ++wrong_rows;
      }
    }
    if (wrong_rows > 0 || run.out_of_bounds() > 0) {
      AddFinding(out, findings::kNcclWrongResult.code, "",
                 absl::StrCat("nccl-tests ", name, ": ",
                              wrong_rows > 0 ? absl::StrCat(wrong_rows,
                                                            " size(s) with wrong "
                                                            "elements (#wrong)")
                                             : "",
                              wrong_rows > 0 && run.out_of_bounds() > 0 ? ", " : "",
                              run.out_of_bounds() > 0
                                  ? absl::StrCat(run.out_of_bounds(), " out-of-bounds value(s)")
                                  : ""));
    }
  }
}

// Ranks of one job on different NCCL versions: NCCL's protocol is not
// promised across versions, and a mixed job hangs or fails at init.
void VersionsDiffer(const v1::NcclLogReport& r, v1::ProbeResult* out) {
  if (r.version_hosts_size() < 2) return;
  std::vector<std::string> seen;
  for (const auto& [version, hosts] : r.version_hosts()) {
    seen.push_back(absl::StrCat(version, " on ", hosts));
  }
  std::sort(seen.begin(), seen.end());
  const size_t total = seen.size();
  if (seen.size() > 8) {
    seen.resize(8);
    seen.push_back(absl::StrCat("+", total - 8, " more"));
  }
  // Past the versions a report keeps, the count is a floor.
  const bool more = r.truncated() && total >= kMaxNcclVersions;
  AddFinding(
      out, findings::kNcclVersionsDiffer.code, "",
      absl::StrCat(more ? "at least " : "", total, " NCCL versions in one log",
                   more ? " (more than the report keeps)" : "", ": ", absl::StrJoin(seen, "; ")));
}

// Per event class: its finding code (its severity and remediation are in
// the finding table) and what it means in a message.
struct EventClass {
  const char* kind;
  const char* code;
  const char* what;
};

const std::vector<EventClass>& EventClasses() {
  static const std::vector<EventClass> classes = {
      {"memory_registration", findings::kNcclMemoryRegistrationFailed.code,
       "NCCL could not register memory with the network"},
      {"shared_memory", findings::kNcclShmFailed.code,
       "NCCL could not create its shared-memory segments"},
      {"transport_setup", findings::kNcclTransportFailed.code,
       "NCCL's network transport failed to connect or to move data"},
      {"timeout", findings::kNcclJobTimeout.code, "a collective timed out"},
      {"error", findings::kNcclJobError.code, "NCCL or CUDA reported an error"},
      {"job_killed", findings::kNcclJobKilled.code, "the job was killed or cancelled"},
  };
  return classes;
}

std::string Where(const v1::NcclLogEvent& e) {
  std::vector<std::string> parts;
  if (!e.host().empty()) parts.push_back(e.host());
  if (e.rank() >= 0) parts.push_back(absl::StrCat("rank ", e.rank()));
  return parts.empty() ? "" : absl::StrCat(" (", absl::StrJoin(parts, ", "), ")");
}

// Up to five distinct messages with counts and where, then how many more.
std::string Examples(const std::vector<const v1::NcclLogEvent*>& events) {
  std::vector<std::string> shown;
  for (size_t i = 0; i < events.size() && i < 5; ++i) {
    const v1::NcclLogEvent& e = *events[i];
    shown.push_back(absl::StrCat(e.count(), " x \"", e.message(), "\"", Where(e), " first at line ",
                                 e.line()));
  }
  if (events.size() > 5) shown.push_back(absl::StrCat("+", events.size() - 5, " more"));
  return absl::StrJoin(shown, "; ");
}

// Every warning and error of the log: a finding per class, unclassified
// WARNs together in one.
void JudgeEvents(const v1::NcclLogReport& r, const NcclLogContext& c, v1::ProbeResult* out) {
  std::map<std::string, std::vector<const v1::NcclLogEvent*>> by_kind;
  for (const v1::NcclLogEvent& e : r.events()) by_kind[e.kind()].push_back(&e);
  for (const EventClass& k : EventClasses()) {
    auto it = by_kind.find(k.kind);
    if (it == by_kind.end()) continue;
    uint64_t lines = 0;
    std::set<std::string> hosts;
    for (const v1::NcclLogEvent* e : it->second) {
      lines += e->count();
      if (!e->host().empty()) hosts.insert(e->host());
    }
    std::string message = absl::StrCat(k.what, ": ", lines, " line(s)");
    if (std::string(k.kind) == "timeout") {
      for (const v1::NcclLogEvent* e : it->second) {
        if (!e->op().empty()) {
          absl::StrAppend(&message, ", first ", e->op(), " SeqNum=", e->seq(),
                          e->rank() >= 0 ? absl::StrCat(" on rank ", e->rank()) : "");
          break;
        }
      }
    }
    absl::StrAppend(&message, ": ", Examples(it->second));
    AddFinding(out, k.code, hosts.size() == 1 ? *hosts.begin() : "", message);
  }
  // NCCL's IB transport found no device where RDMA was expected or asked for.
  const auto hca = r.env().find("NCCL_IB_HCA");
  if (r.ib_no_device() && (c.rdma_expected || hca != r.env().end())) {
    AddFinding(out, findings::kNcclTransportFailed.code, "",
               absl::StrCat("NCCL's IB transport found no device (\"NET/IB : No device found\") "
                            "although ",
                            hca != r.env().end()
                                ? absl::StrCat("NCCL_IB_HCA=", hca->second, " asks for one")
                                : "the nodes have RDMA NICs"));
  }
  // Communicators torn down by an abort that never finished setting up.
  if (r.abort_complete() > 0 && r.init_complete() == 0) {
    AddFinding(out, findings::kNcclJobError.code, "",
               absl::StrCat(r.abort_complete(),
                            " communicator(s) ended in \"Abort COMPLETE\" "
                            "and none reached \"Init COMPLETE\": NCCL never finished setting up"));
  }
  auto warnings = by_kind.find("warning");
  if (warnings != by_kind.end()) {
    uint64_t lines = 0;
    for (const v1::NcclLogEvent* e : warnings->second) lines += e->count();
    AddFinding(out, findings::kNcclLogWarnings.code, "",
               absl::StrCat(lines, " NCCL WARN line(s) of ", warnings->second.size(),
                            " distinct kind(s): ", Examples(warnings->second)));
  }
  if (r.cr_line_endings()) {
    AddEvidence(out, "nccl.line_endings", "some lines end with a bare CR; read as lines");
  }
  if (r.not_utf8()) AddEvidence(out, "nccl.encoding", "the log is not UTF-8; read byte by byte");
}

}  // namespace

v1::ProbeResult JudgeNcclLog(const v1::NcclLogReport& report, const NcclLogContext& context) {
  v1::ProbeResult out;
  out.set_probe("nccl-log");
  *out.mutable_nccl_log() = report;
  JudgeTests(report, context, &out);
  if (report.nccl_lines() == 0 && report.events_size() > 0) {
    // No NCCL output, but the job said NCCL failed (a watchdog timeout, a
    // kill): judged on that.
    JudgeEvents(report, context, &out);
    return out;
  }
  if (report.nccl_lines() == 0 && report.tests_size() > 0) {
    AddEvidence(&out, "nccl.debug",
                "no NCCL INFO lines: transports unknown (rerun with NCCL_DEBUG=INFO)");
    return out;
  }
  if (report.nccl_lines() == 0) {
    out.set_reason("no NCCL INFO output in the log");
    AddFinding(&out, findings::kNcclLogEmpty.code, "",
               absl::StrCat("none of the ", report.lines(),
                            " lines is NCCL output (\"NCCL INFO\" or \"NCCL WARN\")"));
    return out;
  }
  AddEvidence(&out, "nccl.version", absl::StrJoin(report.versions(), ", "));
  AddEvidence(&out, "nccl.network", absl::StrJoin(report.networks(), ", "));
  std::vector<std::string> devices;
  for (const v1::NcclNetDevice& d : report.devices()) {
    devices.push_back(d.network() == "IB"
                          ? absl::StrCat("[", d.index(), "]", d.name(), ":", d.port(), "/",
                                         d.link_layer())
                          : absl::StrCat("[", d.index(), "]", d.name(), ":", d.address()));
  }
  AddEvidence(&out, "nccl.devices", absl::StrJoin(devices, " "));
  std::vector<std::string> transports;
  for (const v1::NcclTransportUse& t : report.transports()) {
    transports.push_back(absl::StrCat(t.example(), " x", t.connections()));
  }
  AddEvidence(&out, "nccl.transports", absl::StrJoin(transports, "; "));
  for (const auto& [name, value] : report.env()) AddEvidence(&out, "env." + name, value);
  if (report.truncated()) {
    AddEvidence(&out, "nccl.truncated", "the log exceeded the parser's bounds; counts are partial");
  }
  SocketFallback(report, context, &out);
  GdrOff(report, context, &out);
  HcaMismatch(report, context, &out);
  JudgeEvents(report, context, &out);
  VersionsDiffer(report, &out);
  return out;
}

}  // namespace nodeprobe::nccl
