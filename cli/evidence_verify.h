// File: evidence_verify.h
// `nodeprobe evidence --verify BUNDLE... [--pub-key KEY.pub]`: what
// `sha256sum -c` and `openssl dgst -sha256 -verify` would say of a bundle
// (evidence_bundle.h), in one step and without unpacking it: every member
// matches MANIFEST.sha256 and none is missing or added, the signature (when
// a public key is given) verifies over the manifest, and run.json is a run
// whose verdicts its findings give (coordinator/record_check.h).
#pragma once

#include <string>

#include "absl/status/statusor.h"

namespace nodeprobe::cli {

// One line saying what was verified; DATA_LOSS naming the first member,
// manifest line or signature that does not fit (the bundle was changed
// after it was written); INVALID_ARGUMENT for a file that is not a bundle
// or a key that cannot be read.
absl::StatusOr<std::string> VerifyEvidenceBundle(const std::string& path,
                                                 const std::string& pub_key);

}  // namespace nodeprobe::cli
