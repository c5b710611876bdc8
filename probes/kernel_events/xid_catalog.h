// File: xid_catalog.h
// What an NVIDIA Xid code means, how bad it is for a node under acceptance,
// and what to do: our table, written from NVIDIA's "Xid Errors" document
// (docs.nvidia.com/deploy/xid-errors, its "Analyzing Xid Errors with the Xid
// Catalog" page: mnemonic, description and immediate resolution bucket, as
// published for A100/H100/B100/GB200 in 2025). The facts carry over; the
// wording and the severities are ours:
//   FAIL  the hardware or its state needs action before work goes back
//         (RESET_GPU, RESTART_BM, a drain: ECC DBE, row-remap failure,
//         NVLink, GSP, off the bus)
//   WARN  usually the application's own fault (RESTART_APP: illegal
//         instruction, page fault, push buffer) or a record to watch
#pragma once

#include <string_view>

#include "nodeprobe/v1/result.pb.h"

namespace nodeprobe::kernel {

struct XidInfo {
  int code = 0;
  const char* meaning = "";
  v1::Verdict severity = v1::WARN;
  // RESTART_APP, RESET_GPU, RESTART_BM (reboot the node), WORKFLOW (drain
  // and follow NVIDIA's workflow), CONTACT_SUPPORT.
  const char* action = "";
  bool needs_reset = false;  // the GPU stays unusable (or degraded) until reset
};

// The code's entry; one with meaning "not in nodeprobe's Xid table" and
// severity WARN for codes we do not list.
XidInfo LookupXid(int code);

}  // namespace nodeprobe::kernel
