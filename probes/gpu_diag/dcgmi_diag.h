// File: dcgmi_diag.h
// What `dcgmi diag -r N` printed, read from its table (DCGM 3.x: "| Test |
// Result |" rows under section rows such as "+-----  Hardware  ---+",
// results "Pass", "Skip - All", "Fail - GPU: 0", "Pass - GPUs: 1, 2",
// and "Warning"/"Error"/"Info" rows whose text wraps over continuation
// rows at a fixed width), and judged:
//   (its findings, with severity and remedy: probes/gpu_diag/gpu_diag_findings.h)
// A run in which every test was skipped judged nothing: SKIP with why.
// The table rather than `-j`: its JSON schema changed between DCGM 3 and 4,
// the table did not, and the captures we test against are tables.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/string_view.h"
#include "nodeprobe/v1/result.pb.h"

namespace nodeprobe::gpu_diag {

struct DcgmTest {
  std::string category;  // Deployment, Integration, Hardware, Stress, ...
  std::string name;      // "GPU Memory"
  // Each status line: ("Fail", "GPU: 0"), ("Skip", "All"), ("Pass", "").
  std::vector<std::pair<std::string, std::string>> statuses;
  std::vector<std::string> warnings;  // Warning and Error rows, unwrapped
  std::vector<std::string> info;
};

struct DcgmDiag {
  std::map<std::string, std::string> metadata;  // "DCGM Version" -> "3.3.8"
  std::vector<DcgmTest> tests;
};

DcgmDiag ParseDcgmiDiag(absl::string_view text);

// Findings, measurements and evidence into `result` (probe gpu-diag);
// SKIP when no test passed or failed.
void JudgeDcgmiDiag(const DcgmDiag& diag, v1::ProbeResult* result);

}  // namespace nodeprobe::gpu_diag
