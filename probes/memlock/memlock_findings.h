// File: memlock_findings.h
// The finding codes the memlock probe raises, declared beside the code that raises
// them: each a typed constant (code, severity or its rule, owner, meaning,
// remediation). Call sites name the constant (findings::kX.code), never
// the string; memlock_findings.cc lists them for the one table
// (finding_codes.h) that `nodeprobe findings`, the man page and the JSON
// print.
#pragma once

#include "probes/framework/finding_codes.h"

namespace nodeprobe::findings {

inline constexpr FindingCode kMemlockTooLow = {
    "MEMLOCK_TOO_LOW", v1::FAIL, "memlock",
    "the job's locked-memory limit (RLIMIT_MEMLOCK) is below what its RDMA registers",
    "raise it where the job starts: LimitMEMLOCK=infinity in slurmd's and the container "
    "runtime's systemd units, `--ulimit memlock=-1` for docker/podman, memlock unlimited "
    "in /etc/security/limits.conf; a Kubernetes pod needs the runtime's default raised "
    "(and IPC_LOCK where the device plugin asks for it)"};

}  // namespace nodeprobe::findings
