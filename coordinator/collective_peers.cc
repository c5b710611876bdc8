#include "coordinator/collective_peers.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "coordinator/coordinator_findings.h"
#include "coordinator/peer_stats.h"
#include "platform/statistics.h"
#include "probes/framework/result_util.h"
#include "probes/framework/stage_runner.h"
#include "probes/nccl/collective_judge.h"
#include "probes/nccl/nccl_profile.h"
#include "probes/transfer/transfer_profile.h"

namespace nodeprobe::coordinator {
namespace {

// collective, ranks, size: only figures of one shape are compared.
using Shape = std::tuple<std::string, uint32_t, uint64_t>;

struct Figure {
  size_t report = 0;  // index in node_reports
  int result = 0;     // index in its results
  double busbw = 0;
};

}  // namespace

void JudgeCollectivesAgainstPeers(const Profile& profile, v1::StageRun* run) {
  std::map<Shape, std::vector<Figure>> by_shape;
  for (size_t i = 0; i < static_cast<size_t>(run->node_reports_size()); ++i) {
    const v1::StageReport& rep = run->node_reports(static_cast<int>(i));
    for (int j = 0; j < rep.results_size(); ++j) {
      const v1::ProbeResult& r = rep.results(j);
      if (r.probe() != "nccl" || r.verdict() == v1::SKIP || !r.has_collective() ||
          r.collective().nranks() < 2) {
        continue;  // one rank crosses no link: nothing to compare
      }
      for (const v1::CollectiveRow* row : nccl::LargestRows(r.collective())) {
        if (row->busbw_gbps() <= 0) continue;
        by_shape[{row->collective(), r.collective().nranks(), row->size()}].push_back(
            {i, j, row->busbw_gbps()});
      }
    }
  }
  std::vector<bool> touched(static_cast<size_t>(run->node_reports_size()), false);
  for (auto& [shape, figures] : by_shape) {
    if (figures.size() < 3) continue;  // a node and at least two others
    const auto& [collective, ranks, size] = shape;
    std::sort(figures.begin(), figures.end(),
              [](const Figure& x, const Figure& y) { return x.busbw < y.busbw; });
    std::vector<double> sorted;
    for (const Figure& f : figures) sorted.push_back(f.busbw);
    // The nodes' robust spread (MAD x 1.4826, relative): a gap must also
    // be larger than the noise (peer_stats.h, the same rule as transfers).
    const double spread = stats::RelativeMad(sorted, stats::Median(sorted));
    for (size_t k = 0; k < figures.size(); ++k) {
      const Figure& f = figures[k];
      // Each node against the others, from one sort (thousands of nodes).
      const double median = stats::SortedMedianWithout(sorted, k);
      if (f.busbw >= profile.Section<NcclRules>().min_fraction_of_peers * median ||
          median - f.busbw <= profile.Section<TransferBars>().noise_sigmas * spread * median) {
        continue;
      }
      v1::StageReport* rep = run->mutable_node_reports(static_cast<int>(f.report));
      v1::ProbeResult* r = rep->mutable_results(f.result);
      AddFinding(
          r, findings::kNcclBusbwBelowPeers.code, collective,
          absl::StrFormat("%s at %llu B over %u local ranks on %s: busbw %.2f GB/s, "
                          "%.0f%% of the median %.2f GB/s of the %zu other nodes (bar "
                          "%.0f%%: nccl.min_fraction_of_peers)",
                          collective, static_cast<unsigned long long>(size), ranks, rep->node(),
                          f.busbw, 100 * f.busbw / median, median, figures.size() - 1,
                          100 * profile.Section<NcclRules>().min_fraction_of_peers));
      FinalizeResult(profile, r);
      touched[f.report] = true;
    }
  }
  for (size_t i = 0; i < touched.size(); ++i) {
    if (!touched[i]) continue;
    v1::StageReport* rep = run->mutable_node_reports(static_cast<int>(i));
    FinalizeReport(rep);
  }
}

}  // namespace nodeprobe::coordinator
