// File: preflight_record.h
// A pre-flight run sent by `nodeprobe preflight` from inside a job, made
// into a stored run (stage PREFLIGHT, the job it ran for, who sent it) so
// the acceptance record shows every job's pre-flight beside the stages.
// What a job sends is data, never a command; it is checked like any record
// read from elsewhere (record_check.h): a verdict its findings deny is
// refused, not stored.
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "nodeprobe/v1/service.pb.h"

namespace nodeprobe::coordinator {

struct Sender {
  bool check_identity = false;  // mutual TLS (false: a plaintext lab coordinator)
  bool is_operator = false;
  std::vector<std::string> names;  // the certificate's CN and DNS names
};

// The run to store under `run_id`: INVALID_ARGUMENT for a report that is
// not a pre-flight, a bad node name or job label; PERMISSION_DENIED when a
// non-operator certificate sends another node's; FAILED_PRECONDITION for
// a verdict the findings deny.
absl::StatusOr<v1::StageRun> PreflightRun(const v1::RecordPreflightRequest& request,
                                          const Sender& sender, const std::string& run_id);

}  // namespace nodeprobe::coordinator
