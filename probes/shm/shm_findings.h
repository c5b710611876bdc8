// File: shm_findings.h
// The finding codes the shm probe raises, declared beside the code that raises
// them: each a typed constant (code, severity or its rule, owner, meaning,
// remediation). Call sites name the constant (findings::kX.code), never
// the string; shm_findings.cc lists them for the one table
// (finding_codes.h) that `nodeprobe findings`, the man page and the JSON
// print.
#pragma once

#include "probes/framework/finding_codes.h"

namespace nodeprobe::findings {

inline constexpr FindingCode kShmNotUsable = {
    "SHM_NOT_USABLE", v1::FAIL, "shm",
    "the job's user cannot create, size or remove a segment in /dev/shm (read-only, not "
    "writable, no free inode)",
    "mount /dev/shm read-write and writable by the job's user (a memory emptyDir, "
    "--ipc=host or --shm-size), with inodes to spare"};
inline constexpr FindingCode kShmTooSmall = {
    "SHM_TOO_SMALL", v1::FAIL, "shm",
    "/dev/shm is missing or has less room than NCCL's segments between local ranks need",
    "Kubernetes: mount an emptyDir with medium: Memory (and a sizeLimit) at /dev/shm; "
    "docker/podman: --shm-size=16g or --ipc=host; Slurm with enroot/pyxis: the container's "
    "/dev/shm mount size"};

}  // namespace nodeprobe::findings
