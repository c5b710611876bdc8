#include "coordinator/run_pages.h"

#include "absl/strings/str_cat.h"

namespace nodeprobe::coordinator {

v1::StageRun RunPage(const v1::StageRun& run, size_t reports_offset, size_t pairs_offset,
                     size_t budget) {
  v1::StageRun page = run;
  page.clear_node_reports();
  page.clear_pairs();
  page.set_node_reports_total(run.node_reports_size());
  page.set_pairs_total(run.pairs_size());
  size_t used = page.ByteSizeLong();
  bool full = false;
  for (size_t i = reports_offset; i < static_cast<size_t>(run.node_reports_size()); ++i) {
    const size_t size = run.node_reports(i).ByteSizeLong() + 8;
    if (page.node_reports_size() + page.pairs_size() > 0 && used + size > budget) {
      full = true;
      break;
    }
    *page.add_node_reports() = run.node_reports(i);
    used += size;
  }
  if (full || reports_offset + page.node_reports_size() < static_cast<size_t>(run.node_reports_size())) {
    return page;  // pairs come once the reports are all out
  }
  for (size_t i = pairs_offset; i < static_cast<size_t>(run.pairs_size()); ++i) {
    const size_t size = run.pairs(i).ByteSizeLong() + 8;
    if (page.node_reports_size() + page.pairs_size() > 0 && used + size > budget) break;
    *page.add_pairs() = run.pairs(i);
    used += size;
  }
  return page;
}

bool IsPartial(const v1::StageRun& run) {
  return run.node_reports_size() < static_cast<int>(run.node_reports_total()) ||
         run.pairs_size() < static_cast<int>(run.pairs_total());
}

absl::StatusOr<v1::StageRun> FetchRun(v1::Coordinator::StubInterface* stub,
                                      const std::string& run_id, absl::Time deadline) {
  v1::StageRun whole;
  bool first = true;
  while (true) {
    v1::GetRunRequest req;
    req.set_run_id(run_id);
    req.set_reports_offset(first ? 0 : whole.node_reports_size());
    req.set_pairs_offset(first ? 0 : whole.pairs_size());
    grpc::ClientContext ctx;
    ctx.set_deadline(absl::ToChronoTime(deadline));
    v1::StageRun page;
    grpc::Status s = stub->GetRun(&ctx, req, &page);
    if (!s.ok()) {
      return absl::Status(static_cast<absl::StatusCode>(s.error_code()), s.error_message());
    }
    if (first) {
      whole = std::move(page);
      first = false;
    } else {
      if (page.node_reports_size() + page.pairs_size() == 0) {
        return absl::DataLossError(absl::StrCat("run ", run_id, ": the coordinator sent an "
                                                "empty page before the end"));
      }
      for (auto& r : *page.mutable_node_reports()) *whole.add_node_reports() = std::move(r);
      for (auto& p : *page.mutable_pairs()) *whole.add_pairs() = std::move(p);
    }
    if (!IsPartial(whole)) break;
  }
  whole.clear_node_reports_total();
  whole.clear_pairs_total();
  return whole;
}

}  // namespace nodeprobe::coordinator
