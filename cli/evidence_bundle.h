// File: evidence_bundle.h
// The evidence bundle of a run (`nodeprobe evidence`): one .tar.gz (written
// by libarchive) holding, under nodeprobe-RUN/, the run as protobuf JSON,
// the HTML acceptance record, the JUnit XML, the profile that judged it,
// the link to the record it follows (ledger.json, with --follows), and
// MANIFEST.sha256 in `sha256sum -c` format; with a signing key, also
// MANIFEST.sha256.sig, a SHA-256 signature of the manifest that
//   openssl dgst -sha256 -verify KEY.pub -signature MANIFEST.sha256.sig MANIFEST.sha256
// checks. Written member by member through OutputFileWriter
// (cli/output_file.h), so only the member being added is in memory: OUT is
// created (replaced only with `replace`), "-" is standard output, never
// half a file. The run id names the directory, so it must be a valid name.
#pragma once

#include <map>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "nodeprobe/v1/ledger.pb.h"
#include "nodeprobe/v1/service.pb.h"

namespace nodeprobe::cli {

// `sign_key`: a PEM private key (RSA or EC), "" for none. The run is taken
// by value: callers move it in, so the bundle holds no second copy.
// `follows`: the link to the previous record of its ledger (ledger.proto),
// written as ledger.json inside the manifest; null for none.
absl::Status WriteEvidenceBundle(v1::StageRun run, const std::string& out,
                                 const std::string& sign_key = "", bool replace = false,
                                 const v1::LedgerLink* follows = nullptr);

// A bundle read back: its directory ("nodeprobe-RUN") and members by name
// (run.json, MANIFEST.sha256, ...). Bounded like a saved run: each member
// at most 64 MiB, all of them 256 MiB. INVALID_ARGUMENT naming the problem
// for a file that is not a bundle (not .tar.gz, members outside one
// directory, a path with "..", a link or device).
struct ReadBundle {
  std::string dir;
  std::map<std::string, std::string> members;
};
absl::StatusOr<ReadBundle> ReadEvidenceBundle(const std::string& path);

}  // namespace nodeprobe::cli
