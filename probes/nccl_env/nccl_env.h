// File: nccl_env.h
// The NCCL environment as the job will run it, judged against what this
// container or VM sees, by NCCL's own rules for each variable:
//  - NCCL_IB_HCA, NCCL_SOCKET_IFNAME: comma lists; a leading '^' excludes
//    what follows, a leading '=' (after any '^') makes names exact instead
//    of prefixes; HCA entries may end in ":PORT". An include list must
//    select something here (an HCA entry a device, its port ACTIVE; an
//    interface entry an up interface); an exclude list must leave some.
//  - NCCL_IB_GID_INDEX: on each selected RoCE port, a RoCE v2 GID with an
//    IPv4 address at that index.
//  - NCCL_TOPO_FILE: a readable file.
//  - NCCL_NET_GDR_LEVEL, NCCL_P2P_LEVEL: LOC, NVL, PIX, PXB, PHB, SYS or
//    0-5.
//   (its findings, with severity and remedy: probes/nccl_env/nccl_env_findings.h)
#pragma once

#include <string>
#include <vector>

#include "nodeprobe/v1/result.pb.h"
#include "probes/common/job_view.h"
#include "probes/common/rdma_view.h"

namespace nodeprobe::nccl_env {

struct Entry {
  std::string name;
  int port = -1;  // HCA ":PORT"; -1 none
};
struct List {
  bool exclude = false;
  bool exact = false;
  std::vector<Entry> entries;
};
// NCCL's list syntax ("^=mlx5_0:1,mlx5_1").
List ParseList(const std::string& value);
// Whether `name` (and `port`, when the entry names one) is selected.
bool Selects(const List& list, const std::string& name, int port = -1);

// What is here, as the job sees it.
using rdma_view::Device;
using rdma_view::Gid;
using rdma_view::Port;
struct Link {
  std::string name;
  bool up = false;
};

// Adds NCCL_ENV_INVALID findings to `result` and every NCCL_* variable
// seen to its evidence.
void Judge(const job::Env& env, const std::vector<Device>& devices, const std::vector<Link>& links,
           v1::ProbeResult* result);

}  // namespace nodeprobe::nccl_env
