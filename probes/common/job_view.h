// File: job_view.h
// The job as pre-flight sees it from inside its container, VM or Slurm
// step: how many local ranks it will run (the GPUs it was granted), and
// the NCCL figures that size what those ranks lock and share. Read from
// the job's environment (passed in, so tests give their own).
#pragma once

#include <cstdint>
#include <map>
#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

namespace nodeprobe::job {

using Env = std::map<std::string, std::string>;

// This process's environment.
Env ProcessEnvironment();
// `key`'s value, "" when unset.
std::string Get(const Env& env, const std::string& key);

struct LocalRanks {
  int count = 0;
  std::string source;  // "--gpus 8", "SLURM_STEP_GPUS=0,1", ..., "4 visible GPUs"
};

// What the scheduler granted: the --gpus flag (`flag` > 0), else Slurm's
// SLURM_STEP_GPUS (a list) or SLURM_GPUS_ON_NODE (a count); count -1 when
// nothing states a grant.
LocalRanks GrantOf(const Env& env, int flag);
// The grant, else CUDA_VISIBLE_DEVICES / NVIDIA_VISIBLE_DEVICES (a list;
// "all" defers to the visible count), else `visible` (the GPUs this
// container can open).
LocalRanks RanksOf(const Env& env, int granted, int visible);

// How many items a GPU list names: "0,1,3" is 3, "GPU-uuid" 1; "", "-1",
// "none", "void" and "NoDevFiles" are 0; -1 for "all".
int CountGpuList(const std::string& list);

// The GPUs the CUDA runtime enumerates from CUDA_VISIBLE_DEVICES, by its
// own rules: entries are ordinals (>= 0), GPU-<uuid> or MIG-<uuid>; it
// stops at the first entry that is none of these ("all", "abc", "-1": the
// CUDA runtime is not the container runtime), and a process sees one MIG
// instance however many are listed. `stopped_at` (may be null) gets the
// entry it stopped at, "" when none. Whether an ordinal exists is the
// caller's to check.
std::vector<std::string> CudaVisibleEntries(const std::string& list, std::string* stopped_at);

// a x b x ...; UINT64_MAX when the product overflows (a need that large is
// never met, never wrapped to a small one).
uint64_t Product(std::initializer_list<uint64_t> factors);

// NCCL's figures for one connection's buffers: NCCL_BUFFSIZE's simple
// protocol buffer plus LL and LL128, as NCCL 2.x sizes a shared-memory
// segment (5 967 872 bytes in the captured "failed to extend /dev/shm"
// failure, tests/fixtures/pod-rdma); NCCL_BUFFSIZE scales it.
uint64_t ConnectionBytes(const Env& env);

// An NCCL_* number as NCCL_PARAM reads it: strtoll base 0 (0x10, 010 is
// 8, a numeric prefix: "3abc" is 3, no digits at all is 0); nullopt when it
// is out of range (ERANGE) or unset. `exact` (may be null) says whether the
// whole value was the number NCCL took.
std::optional<long long> NcclParam(const Env& env, const std::string& name,
                                   bool* exact = nullptr);
// Channels per rank: NCCL_MIN_NCHANNELS when set (NCCL opens at least
// that many), else 2, NCCL's floor on one node.
int Channels(const Env& env);

// Whether the job will use RDMA, and why: NCCL_IB_DISABLE=1 or
// NCCL_NET=Socket say no; NCCL_IB_HCA set, an RDMA device visible here
// (`devices`), or the profile's preflight.expect_rdma say yes.
struct RdmaUse {
  bool uses = false;
  std::string why;
};
RdmaUse RdmaUseOf(const Env& env, int devices, bool expected);

// "64 KiB", "8.0 MiB", "2.0 GiB"; "unlimited" for UINT64_MAX.
std::string Bytes(uint64_t bytes);

}  // namespace nodeprobe::job
