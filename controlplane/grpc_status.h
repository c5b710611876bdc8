// File: grpc_status.h
// absl::Status and grpc::Status share their codes' numbers: a server
// answers the status its code returned, one to one, and a client reads it
// back the same way, so a NOT_FOUND stays NOT_FOUND end to end (and its
// exit code is ExitCodeFor's, exit_codes.h).
#pragma once

#include <grpcpp/support/status.h>

#include "absl/status/status.h"

namespace nodeprobe::controlplane {

grpc::Status ToGrpcStatus(const absl::Status& status);
absl::Status FromGrpcStatus(const grpc::Status& status);

}  // namespace nodeprobe::controlplane
