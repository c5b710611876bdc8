// File: evidence_verify.h
// `nodeprobe evidence --verify BUNDLE... [--pub-key KEY.pub]`: what
// `sha256sum -c` and `openssl dgst -sha256 -verify` would say of a bundle
// (evidence_bundle.h), in one step and without unpacking it: every member
// matches MANIFEST.sha256 and none is missing or added, the signature (when
// a public key is given) verifies over the manifest, and run.json is a run
// whose verdicts its findings give (coordinator/record_check.h); and, for
// several bundles, that each follows the one before it in the ledger
// (ledger.proto).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "nodeprobe/v1/ledger.pb.h"
#include "nodeprobe/v1/result.pb.h"

namespace nodeprobe::cli {

struct VerifiedBundle {
  std::string line;  // what was verified, for the reader
  std::string run_id;
  v1::Verdict verdict = v1::VERDICT_UNSPECIFIED;
  std::string manifest_sha256;  // what the next record of its ledger links to
  std::optional<v1::LedgerLink> follows;
};

// DATA_LOSS naming the first member, manifest line or signature that does
// not fit (the bundle was changed after it was written); INVALID_ARGUMENT
// for a file that is not a bundle or a key that cannot be read.
absl::StatusOr<VerifiedBundle> VerifyEvidenceBundle(const std::string& path,
                                                    const std::string& pub_key);

// The ledger through `bundles`, in the order given: each must follow the
// one before it (its link is the previous manifest's SHA-256). One line
// naming the chain, or DATA_LOSS naming the first bundle that does not
// follow its predecessor (one between them removed, or that one edited).
absl::StatusOr<std::string> VerifyLedger(const std::vector<std::string>& paths,
                                         const std::vector<VerifiedBundle>& bundles);

// The link a bundle written now would carry to follow `previous`.
v1::LedgerLink LinkTo(const VerifiedBundle& previous);

}  // namespace nodeprobe::cli
