// File: cluster_findings.h
// The finding codes the cluster stage raises, declared beside it (np_findings
// in this folder's CMakeLists): each a typed constant that call sites name
// (findings::kX.code), listed by cluster_findings.cc for the one table.
#pragma once

#include "probes/framework/finding_codes.h"

namespace nodeprobe::findings {

inline constexpr FindingCode kSuspectNode = {
    "SUSPECT_NODE",
    kVaries,
    "cluster stage",
    "a node measured low with most of its partners (FAIL when its retest confirms it)",
    "take the node out of the pool; check its NICs' link speed, PCIe slots, firmware and "
    "counters (nodeprobe run --stage single-node)",
    "WARN; FAIL when its retest confirms it"};

inline constexpr FindingCode kSuspectRail = {
    "SUSPECT_RAIL",
    kVaries,
    "cluster stage",
    "one rail of a node measured low with most partners, its other rails fine",
    "check that rail's cable, optics and switch port on the node named (the other rails of the"
    " node are fine)",
    "WARN; FAIL when its retest confirms it"};

inline constexpr FindingCode kSuspectLink = {
    "SUSPECT_LINK",
    kVaries,
    "cluster stage",
    "one pair measured low while both ends were fine with others",
    "check the path between the two: the cable or a switch port they share, or a route only "
    "they take",
    "WARN; FAIL when its retest confirms it"};

inline constexpr FindingCode kClusterIncomplete = {
    "CLUSTER_INCOMPLETE", v1::ERROR, "cluster stage",
    "the stage deadline passed before every round ran",
    "raise --timeout (about rounds x the time of one pair), or use --pattern ring for a quick "
    "pass"};

}  // namespace nodeprobe::findings
