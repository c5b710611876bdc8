#include "cli/preflight_upload.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <iostream>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "cli/control_commands.h"
#include "nodeprobe/v1/service.grpc.pb.h"

namespace nodeprobe::cli {

std::string DefaultJobLabel() {
  const char* job = getenv("SLURM_JOB_ID");
  if (job != nullptr && *job != '\0') {
    const char* step = getenv("SLURM_STEP_ID");
    return step != nullptr && *step != '\0' ? absl::StrCat("slurm-", job, ".", step)
                                            : absl::StrCat("slurm-", job);
  }
  // In a Kubernetes pod HOSTNAME is the pod's name; elsewhere it says
  // little, and KUBERNETES_SERVICE_HOST tells the two apart.
  const char* host = getenv("HOSTNAME");
  if (getenv("KUBERNETES_SERVICE_HOST") != nullptr && host != nullptr) {
    return absl::StrCat("pod-", host);
  }
  return "";
}

void UploadPreflight(const std::string& coordinator_flag, const controlplane::TlsFiles& tls,
                     const std::string& job, const v1::StageReport& report, bool quiet,
                     absl::Time deadline) {
  absl::StatusOr<std::string> address = controlplane::ResolveCoordinator(coordinator_flag);
  if (!address.ok()) return;  // none configured: pre-flight stands alone
  // A prolog must not wait on a coordinator that is away: what is left of
  // the pre-flight's budget, at most 5 s.
  const absl::Time until = std::min(deadline, absl::Now() + absl::Seconds(5));
  if (until <= absl::Now()) {
    std::cerr << "nodeprobe: warning: the pre-flight was not recorded at " << *address
              << ": its --timeout was spent (the verdict and exit code stand)\n";
    return;
  }
  absl::StatusOr<CoordinatorClient> client = ConnectCoordinator(*address, tls);
  grpc::Status sent;
  v1::RecordPreflightResponse resp;
  if (client.ok()) {
    grpc::ClientContext ctx;
    ctx.set_deadline(absl::ToChronoTime(until));
    v1::RecordPreflightRequest req;
    *req.mutable_report() = report;
    req.set_job(job);
    sent = client->stub->RecordPreflight(&ctx, req, &resp);
  } else {
    sent = grpc::Status(grpc::StatusCode::UNAVAILABLE, std::string(client.status().message()));
  }
  if (!sent.ok()) {
    std::cerr << "nodeprobe: warning: the pre-flight was not recorded at " << *address << ": "
              << sent.error_message()
              << " (the verdict and exit code stand; keep this output with the job)\n";
    return;
  }
  if (!quiet) {
    std::cerr << "nodeprobe: pre-flight recorded at " << *address << " as run " << resp.run_id()
              << (job.empty() ? "" : absl::StrCat(" (job ", job, ")")) << "\n";
  }
}

}  // namespace nodeprobe::cli
