// File: congestion_findings.h
// The finding codes the congestion stage raises, declared beside it (np_findings
// in this folder's CMakeLists): each a typed constant that call sites name
// (findings::kX.code), listed by congestion_findings.cc for the one table.
#pragma once

#include "probes/framework/finding_codes.h"

namespace nodeprobe::findings {

inline constexpr FindingCode kCongestionAggregateBelowExpected = {
    "CONGESTION_AGGREGATE_BELOW_EXPECTED", v1::FAIL, "congestion stage",
    "a receiver's sum of flows under incast/all-to-all is below its bar",
    "the receiver's link or its switch egress does not carry its rate under load: check its "
    "buffers, PFC/ECN configuration and the flows' counter deltas"};

inline constexpr FindingCode kCongestionUnfair = {
    "CONGESTION_UNFAIR", v1::WARN, "congestion stage",
    "flows into one receiver shared it unevenly (Jain's index below the profile's)",
    "uneven shares under incast point at ECMP collisions, a missing congestion control (DCQCN)"
    " or one sender's slower path"};

inline constexpr FindingCode kCongestionLatency = {
    "CONGESTION_LATENCY", v1::WARN, "congestion stage",
    "p99 latency into a receiver blew up under load",
    "deep queues at the receiver's switch port: check ECN marking thresholds and buffer "
    "profiles for this traffic class"};

}  // namespace nodeprobe::findings
