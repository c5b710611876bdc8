// File: preflight_upload.h
// Sends a pre-flight report to the coordinator, when one is configured
// (--coordinator, $NODEPROBE_COORDINATOR or /etc/nodeprobe/nodeprobe.yaml),
// so the acceptance record shows each job's pre-flight. Standalone
// otherwise. Never changes the verdict or the exit code: a job is not held
// back because the coordinator is away; a send that fails says so on
// stderr, and the printed report (JSON, JUnit) still holds everything.
#pragma once

#include <string>

#include "absl/time/time.h"
#include "controlplane/credentials.h"
#include "nodeprobe/v1/result.pb.h"

namespace nodeprobe::cli {

// The job label when --job is not given: SLURM_JOB_ID (with the step when
// set), else the pod's name (HOSTNAME in a Kubernetes pod), else "".
std::string DefaultJobLabel();

// The send gets what is left until `deadline` (the pre-flight's own
// --timeout), at most 5 s, never more: a black-holed coordinator cannot
// stretch a prolog past its budget.
void UploadPreflight(const std::string& coordinator_flag, const controlplane::TlsFiles& tls,
                     const std::string& job, const v1::StageReport& report, bool quiet,
                     absl::Time deadline = absl::InfiniteFuture());

}  // namespace nodeprobe::cli
