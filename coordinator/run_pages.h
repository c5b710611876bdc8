// File: run_pages.h
// Runs in pages. A fleet's cluster run holds tens of thousands of pairs and
// a report per node: as one message it would pass gRPC's limit
// (controlplane::kMaxMessageBytes). The coordinator answers GetRun with what fits in a
// page (node reports first, then pairs, from the offsets asked); the CLI
// asks until it has everything.
#pragma once

#include <cstddef>
#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "nodeprobe/v1/service.grpc.pb.h"

namespace nodeprobe::coordinator {

// A page's size: well under controlplane::kMaxMessageBytes (16 MiB).
inline constexpr size_t kRunPageBytes = 4 << 20;

// The page of `run` from the offsets: everything but node_reports and
// pairs, then as many of those (at least one, if any is left) as fit in
// `budget` bytes, with the totals set.
v1::StageRun RunPage(const v1::StageRun& run, size_t reports_offset, size_t pairs_offset,
                     size_t budget = kRunPageBytes);

// True when `run` is a page that lacks some of its node reports or pairs.
bool IsPartial(const v1::StageRun& run);

// The whole run, asking page after page.
absl::StatusOr<v1::StageRun> FetchRun(v1::Coordinator::StubInterface* stub,
                                      const std::string& run_id, absl::Time deadline);

}  // namespace nodeprobe::coordinator
