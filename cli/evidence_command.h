// File: evidence_command.h
// `nodeprobe evidence --run ID | --from-json FILE --out FILE.tar.gz
// [--sign-key KEY.pem]`: the evidence bundle of a stored run (from the
// coordinator) or of a saved `report --format json` (offline).
// `nodeprobe evidence --diff OLD NEW [--format text|markdown|html|json]`:
// what changed between two acceptance records (coordinator/record_diff.h).
// `nodeprobe evidence --verify BUNDLE... [--pub-key KEY.pub]`: each
// bundle checked against its manifest and signature (evidence_verify.h).
#pragma once

#include <functional>
#include <string>

#include "absl/status/statusor.h"
#include "controlplane/tls_files.h"
#include "nodeprobe/v1/service.pb.h"

// Headers name CLI11's types only: its definitions cost seconds of every
// translation unit that includes it (the global validators it defines are
// compiled each time), so only the .cc files that declare flags do.
namespace CLI {
class App;
}  // namespace CLI

namespace nodeprobe::cli {

// A run saved as JSON, read with bounds (size, nesting) and checked: a
// document that is not a run, names that are not valid, or stored verdicts
// its findings do not give (coordinator/record_check.h) are refused with
// one line naming what is wrong.
// `what` names it in errors ("--from-json FILE", or the path).
absl::StatusOr<v1::StageRun> ReadRunJson(const std::string& path, const std::string& what);
// The same checks of a run's JSON text from elsewhere (a bundle's
// run.json); `what` names it in errors.
absl::StatusOr<v1::StageRun> ParseRunJson(const std::string& text, const std::string& what);

// A record named on the command line: a saved run's JSON, an evidence
// bundle (its run.json), or a stored run's id fetched from `coordinator`.
absl::StatusOr<v1::StageRun> ReadRecord(const std::string& record, const std::string& coordinator,
                                        const controlplane::TlsFiles& tls);

std::function<int()> AddEvidenceCommand(CLI::App& app);

}  // namespace nodeprobe::cli
