// The finding codes of baseline judgement (baseline_judge.h), declared
// beside it and listed by baseline_findings.cc for the one table.
#pragma once

#include "probes/framework/finding_codes.h"

namespace nodeprobe::findings {

inline constexpr FindingCode kRegressedFromBaseline = {
    "REGRESSED_FROM_BASELINE",
    kVaries,
    "baseline",
    "a figure fell below what its node class measured in earlier accepted runs, by more than "
    "the profile's fraction and beyond the baseline's own spread, though it may pass the "
    "profile's bar",
    "compare with the node's previous value and the class's median in the message: a driver, "
    "firmware or cable change, a degraded link or a noisy neighbour; `nodeprobe baseline show` "
    "lists the class",
    "WARN past baseline.regression_warn, FAIL past baseline.regression_fail"};

inline constexpr FindingCode kBaselineTooFewRuns = {
    "BASELINE_TOO_FEW_RUNS", v1::PASS, "baseline",
    "baseline.use is set but the node's class has too few accepted runs to judge against",
    "nothing to fix: the class's baseline builds as accepted runs are stored (baseline.min_runs)"};

inline constexpr FindingCode kBaselineClassChanged = {
    "BASELINE_CLASS_CHANGED", v1::PASS, "baseline",
    "a node's class changed since its last accepted run (a driver, firmware, CUDA or NCCL "
    "version, its GPUs or NICs, or the profile): its baseline starts over; the message says what "
    "changed and how its figures moved against the old class",
    "nothing to fix if the change was meant (an upgrade): read how the figures moved; a move "
    "the whole fleet shares is the change's effect"};

}  // namespace nodeprobe::findings
