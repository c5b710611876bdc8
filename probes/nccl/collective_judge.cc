#include "probes/nccl/collective_judge.h"

#include <algorithm>
#include <map>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "probes/framework/result_util.h"
#include "probes/nccl/collective_math.h"
#include "probes/nccl/nccl_findings.h"
#include "probes/nccl/nccl_tests_output.h"

namespace nodeprobe::nccl {
namespace {

std::string Who(const v1::CollectiveRank& r) {
  return absl::StrCat("rank ", r.rank(), r.node().empty() ? "" : absl::StrCat(" on ", r.node()),
                      " (GPU ", r.gpu(), ")");
}

// Rows of every rank merged by position; a row some rank lacks is left out.
void MergeRows(v1::CollectiveReport* report) {
  const int n = report->ranks_size();
  if (n == 0) return;
  const auto& first = report->ranks(0).rows();
  for (int i = 0; i < first.size(); ++i) {
    v1::CollectiveRow row = first[i];
    double sum = 0, sum_in = 0, worst = -1;
    int slowest = 0;
    int64_t wrong = 0, wrong_in = 0;
    bool complete = true;
    for (const v1::CollectiveRank& r : report->ranks()) {
      if (i >= r.rows_size() || r.rows(i).collective() != row.collective() ||
          r.rows(i).size() != row.size() || r.rows(i).time_us() <= 0) {
        complete = false;
        break;
      }
      const v1::CollectiveRow& x = r.rows(i);
      sum += x.time_us();
      sum_in += x.in_place_time_us();
      if (x.time_us() > worst) {
        worst = x.time_us();
        slowest = static_cast<int>(r.rank());
      }
      wrong = (wrong < 0 || x.wrong() < 0) ? -1 : wrong + x.wrong();
      wrong_in = (wrong_in < 0 || x.in_place_wrong() < 0) ? -1 : wrong_in + x.in_place_wrong();
    }
    if (!complete) continue;
    const double factor = BusBwFactor(row.collective(), n);
    row.set_time_us(sum / n);
    row.set_algbw_gbps(AlgBwGbps(row.size(), row.time_us()));
    row.set_busbw_gbps(row.algbw_gbps() * factor);
    row.set_wrong(wrong);
    row.set_in_place_time_us(sum_in / n);
    row.set_in_place_algbw_gbps(sum_in > 0 ? AlgBwGbps(row.size(), row.in_place_time_us()) : 0);
    row.set_in_place_busbw_gbps(row.in_place_algbw_gbps() * factor);
    row.set_in_place_wrong(wrong_in);
    row.set_max_time_us(worst);
    row.set_slowest_rank(slowest);
    *report->add_rows() = row;
  }
}

// Every row's figures as measurements, and wrong results (with the
// ranks that saw them) as findings.
void MeasureRows(const v1::CollectiveReport& report, v1::ProbeResult* out) {
  for (const v1::CollectiveRow& row : report.rows()) {
    const std::map<std::string, std::string> labels = {
        {"collective", row.collective()}, {"size", absl::StrCat(row.size())},
        {"ranks", absl::StrCat(report.nranks())}};
    AddMeasurement(out, "nccl_busbw", row.busbw_gbps(), "GB/s", labels);
    AddMeasurement(out, "nccl_algbw", row.algbw_gbps(), "GB/s", labels);
    AddMeasurement(out, "nccl_time", row.time_us(), "us", labels);
    if (row.wrong() > 0 || row.in_place_wrong() > 0) {
      std::vector<std::string> who;
      for (const v1::CollectiveRank& r : report.ranks()) {
        for (const v1::CollectiveRow& x : r.rows()) {
          if (x.collective() == row.collective() && x.size() == row.size() &&
              (x.wrong() > 0 || x.in_place_wrong() > 0)) {
            who.push_back(Who(r));
          }
        }
      }
      AddFinding(out, findings::kNcclWrongResult.code, row.collective(),
                 absl::StrFormat("%s at %llu B: %lld wrong elements out of place, %lld in place "
                                 "(%s)",
                                 row.collective(), static_cast<unsigned long long>(row.size()),
                                 static_cast<long long>(std::max<int64_t>(0, row.wrong())),
                                 static_cast<long long>(std::max<int64_t>(0, row.in_place_wrong())),
                                 absl::StrJoin(who, ", ")));
    }
  }
}

// The largest size of one collective against its bar: the profile's, else
// nccl.hardware_min_fraction of what the links carry, else none (and why).
void JudgeLargestRow(const v1::CollectiveReport& report, const v1::CollectiveRow* row,
                     const NcclLogContext& ctx, v1::ProbeResult* out) {
  const std::string& c = row->collective();
  const std::string size = absl::StrCat(row->size());
  auto bar = ctx.busbw_min_gbps.find(c);
  if (report.nranks() < 2 && c != "broadcast" && c != "reduce" && c != "sendrecv") {
    AddEvidence(out, absl::StrCat("expected.", c),
                "no bar: with one rank nccl-tests' factor makes busbw 0");
    return;
  }
  // With one rank nothing crosses a link, so the hardware says nothing.
  const HardwareBound bound = CollectiveBound(c, report.nranks(), ctx.run_shape);
  const bool hardware = bound.gbps > 0 && report.nranks() >= 2;
  const double share = hardware ? row->busbw_gbps() / bound.gbps : 0;
  const std::string of_hardware =
      hardware ? absl::StrFormat("busbw %.2f GB/s is %.0f%% of the hardware's %.1f GB/s (%s)",
                                 row->busbw_gbps(), 100 * share, bound.gbps, bound.basis)
               : "";
  if (bar == ctx.busbw_min_gbps.end() && hardware) {
    AddEvidence(out, absl::StrCat("expected.", c),
                absl::StrFormat("hardware at %s B: %s; bar %.0f%% of it "
                                "(nccl.hardware_min_fraction)",
                                size, of_hardware, 100 * ctx.hardware_min_fraction));
    if (share < ctx.hardware_min_fraction) {
      AddFinding(
          out, findings::kNcclBusbwBelowHardware.code, c,
          absl::StrFormat("%s at %s B over %u ranks: %s, below the %.0f%% bar; slowest "
                          "rank %d at %.1f us against a mean of %.1f us",
                          c, size, report.nranks(), of_hardware, 100 * ctx.hardware_min_fraction,
                          row->slowest_rank(), row->max_time_us(), row->time_us()));
    }
    return;
  }
  if (bar == ctx.busbw_min_gbps.end()) {
    AddEvidence(out, absl::StrCat("expected.", c),
                "no bar: the profile sets no nccl." + c + "_busbw_min_gbps, and " +
                    (report.nranks() < 2 ? std::string("one rank crosses no link")
                                         : std::string("what the links carry is not known "
                                                       "for it (NVLink version, PCIe links or "
                                                       "rail rates unreadable, or no formula "
                                                       "for this collective)")));
    return;
  }
  AddEvidence(out, absl::StrCat("expected.", c),
              absl::StrFormat("profile %s: nccl.%s_busbw_min_gbps = %.2f GB/s at the largest "
                              "size (%s B)%s",
                              ctx.profile_source, c, bar->second, size,
                              hardware ? "; " + of_hardware : ""));
  if (row->busbw_gbps() < bar->second) {
    AddFinding(out, findings::kNcclBusbwBelowExpected.code, c,
               absl::StrFormat("%s at %s B over %u ranks: busbw %.2f GB/s (out of place), "
                               "below the profile's %.2f GB/s; slowest rank %d at %.1f us "
                               "against a mean of %.1f us",
                               c, size, report.nranks(), row->busbw_gbps(), bar->second,
                               row->slowest_rank(), row->max_time_us(), row->time_us()));
  }
}

void JudgeRows(const v1::CollectiveReport& report, const NcclLogContext& ctx,
               v1::ProbeResult* out) {
  MeasureRows(report, out);
  for (const v1::CollectiveRow* row : LargestRows(report)) JudgeLargestRow(report, row, ctx, out);
}

}  // namespace

bool RankFinished(const v1::ProbeResult& r) {
  return r.has_collective() && r.collective().ranks_size() > 0 &&
         r.collective().ranks(0).state() == "done";
}

std::vector<const v1::CollectiveRow*> LargestRows(const v1::CollectiveReport& report) {
  std::vector<const v1::CollectiveRow*> out;
  std::map<std::string, size_t> at;  // collective -> index in out
  for (const v1::CollectiveRow& row : report.rows()) {
    auto [it, fresh] = at.emplace(row.collective(), out.size());
    if (fresh) {
      out.push_back(&row);
    } else if (row.size() >= out[it->second]->size()) {
      out[it->second] = &row;
    }
  }
  return out;
}

RunShape ShapeOfRun(const std::vector<RankAnswer>& answers, size_t nodes) {
  RunShape shape;
  shape.nodes = static_cast<uint32_t>(nodes);
  std::map<std::string, std::vector<GpuPath>> by_node;
  bool known = true;
  for (const RankAnswer& a : answers) {
    std::vector<GpuPath>& paths = by_node[a.node];
    if (!a.result.has_value() || !a.result->has_collective() ||
        a.result->collective().ranks_size() == 0) {
      known = false;
      continue;
    }
    const v1::CollectiveRank& r = a.result->collective().ranks(0);
    GpuPath& p = paths.emplace_back();
    p.bus_id = r.bus_id();
    p.nvlinks_active = r.nvlinks_active();
    p.nvlink_version = r.nvlink_version();
    if (r.pcie_gts() > 0 && r.pcie_width() > 0) p.pcie = pcie::PcieLink{r.pcie_gts(), r.pcie_width()};
  }
  for (const auto& [node, paths] : by_node) {
    shape.ranks_per_node = std::max(shape.ranks_per_node, static_cast<uint32_t>(paths.size()));
    if (!known) continue;
    HardwareBound b = LocalBound(paths);
    if (b.gbps <= 0) {
      known = false;
      shape.intra = {};
      continue;
    }
    if (shape.intra.gbps <= 0 || b.gbps < shape.intra.gbps) {
      if (!node.empty()) absl::StrAppend(&b.basis, " on ", node);
      shape.intra = b;
    }
  }
  // A node with one rank has no hop inside it to bound.
  if (shape.ranks_per_node < 2) shape.intra = {};
  return shape;
}

v1::ProbeResult JudgeCollectiveRun(const std::vector<RankAnswer>& answers,
                                   const NcclLogContext& ctx, const std::string& rank_order) {
  for (const RankAnswer& a : answers) {
    if (a.rank == 0 && a.result.has_value() && a.result->verdict() == v1::SKIP) {
      return SkipResult("nccl", a.result->reason());
    }
  }
  v1::ProbeResult out;
  out.set_probe("nccl");
  v1::CollectiveReport* report = out.mutable_collective();
  report->set_nranks(static_cast<uint32_t>(answers.size()));
  report->set_rank_order(rank_order);
  AddEvidence(&out, "rank_order", rank_order);
  std::set<std::string> seen;  // findings already added
  auto add_once = [&](const v1::Finding& f) {
    if (seen.insert(absl::StrCat(f.code(), "|", f.device(), "|", f.message())).second) {
      *out.add_findings() = f;
    }
  };
  std::vector<std::string> unfinished;
  for (const RankAnswer& a : answers) {
    v1::CollectiveRank* me = report->add_ranks();
    me->set_rank(a.rank);
    me->set_node(a.node);
    me->set_gpu(a.gpu);
    if (!a.result.has_value()) {
      me->set_state("lost");
      me->set_error(a.lost);
      unfinished.push_back(absl::StrCat(Who(*me), ": ", a.lost));
      continue;
    }
    const v1::ProbeResult& r = *a.result;
    if (r.has_collective()) {
      const v1::CollectiveReport& c = r.collective();
      if (report->nccl_version().empty()) {
        report->set_nccl_version(c.nccl_version());
        report->set_cuda_runtime(c.cuda_runtime());
        report->set_nccl_library(c.nccl_library());
      }
      if (a.rank == 0) {
        *report->mutable_env() = c.env();
        *report->mutable_log() = c.log();
      }
      if (c.ranks_size() > 0) {
        *me = c.ranks(0);
        me->set_rank(a.rank);
        me->set_node(a.node);
      }
      if (c.has_log()) {
        const v1::ProbeResult judged = JudgeNcclLog(c.log(), ctx);
        for (const v1::Finding& f : judged.findings()) {
          if (f.code() != findings::kNcclLogEmpty.code) add_once(f);
        }
      }
    }
    if (me->state().empty()) me->set_state(r.verdict() == v1::SKIP ? "skipped" : "error");
    if (me->state() == "timeout") {
      unfinished.push_back(absl::StrCat(Who(*me), ": in ", me->stuck_in()));
    }
    for (const v1::Finding& f : r.findings()) {
      if (f.code() != findings::kNcclTimeout.code) add_once(f);
    }
  }
  if (!unfinished.empty()) {
    AddFinding(&out, findings::kNcclTimeout.code, "",
               absl::StrCat(unfinished.size(), " of ", answers.size(),
                            " ranks did not finish: ", absl::StrJoin(unfinished, "; ")));
  }
  MergeRows(report);
  JudgeRows(*report, ctx, &out);
  if (!report->nccl_version().empty()) AddEvidence(&out, "nccl_version", report->nccl_version());
  for (const auto& [k, v] : report->env()) AddEvidence(&out, absl::StrCat("env.", k), v);
  return out;
}

}  // namespace nodeprobe::nccl
