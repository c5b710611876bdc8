#include "coordinator/preflight_record.h"

#include <google/protobuf/util/time_util.h>

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/strings/str_join.h"
#include "coordinator/record_check.h"
#include "platform/identifiers.h"

namespace nodeprobe::coordinator {
namespace {

constexpr size_t kMaxJobLabel = 128;

bool Printable(const std::string& s) {
  return std::all_of(s.begin(), s.end(), [](char c) { return c >= 0x20 && c < 0x7f; });
}

}  // namespace

absl::StatusOr<v1::StageRun> PreflightRun(const v1::RecordPreflightRequest& request,
                                          const Sender& sender, const std::string& run_id) {
  const v1::StageReport& report = request.report();
  if (report.stage() != v1::PREFLIGHT) {
    return absl::InvalidArgumentError(
        "the report is not a pre-flight's (stage preflight): only `nodeprobe preflight` records "
        "are taken");
  }
  if (absl::Status s = platform::CheckNodeName("the report's node", report.node()); !s.ok()) {
    return s;
  }
  if (request.job().size() > kMaxJobLabel || !Printable(request.job())) {
    return absl::InvalidArgumentError(
        absl::StrCat("--job must be printable ASCII of at most ", kMaxJobLabel, " characters"));
  }
  std::string who = "unauthenticated (plaintext coordinator)";
  if (sender.check_identity) {
    who = sender.names.empty() ? "authenticated, no name" : sender.names.front();
    const bool own =
        std::find(sender.names.begin(), sender.names.end(), report.node()) != sender.names.end();
    if (!sender.is_operator && !own) {
      return absl::PermissionDeniedError(
          absl::StrCat("certificate ", absl::StrJoin(sender.names, "/"),
                       " may record pre-flights of its own node only, and the report is ",
                       report.node(), "'s (an operator's certificate may record any node's)"));
    }
  }
  v1::StageRun run;
  run.set_run_id(run_id);
  run.set_stage(v1::PREFLIGHT);
  run.add_nodes(report.node());
  run.set_state("done");
  run.set_job(request.job());
  run.set_operator_identity(who);
  // When it ran: the report's own times, else when it reached us (never
  // the epoch a run without times would list as).
  const google::protobuf::Timestamp now =
      google::protobuf::util::TimeUtil::NanosecondsToTimestamp(absl::ToUnixNanos(absl::Now()));
  *run.mutable_started() = report.has_started() ? report.started() : now;
  *run.mutable_finished() = report.has_finished() ? report.finished() : now;
  *run.add_node_reports() = report;
  run.set_verdict(report.verdict());
  if (absl::Status s = CheckRecord(run); !s.ok()) return s;
  run.set_verdict(RunVerdict(run));
  return run;
}

}  // namespace nodeprobe::coordinator
