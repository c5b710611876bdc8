#include "cli/evidence_verify.h"

#include <openssl/evp.h>
#include <openssl/pem.h>
#include <stdio.h>

#include <map>
#include <memory>
#include <set>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "cli/evidence_bundle.h"
#include "cli/evidence_command.h"
#include "cli/html_report.h"
#include "probes/framework/result_util.h"

namespace nodeprobe::cli {
namespace {

constexpr char kManifest[] = "MANIFEST.sha256";
constexpr char kSignature[] = "MANIFEST.sha256.sig";

// The manifest's lines, `sha256sum` style: 64 hex digits, two spaces, name.
absl::StatusOr<std::map<std::string, std::string>> ManifestOf(const std::string& path,
                                                              const std::string& text) {
  std::map<std::string, std::string> out;
  int line_no = 0;
  for (absl::string_view line : absl::StrSplit(text, '\n', absl::SkipEmpty())) {
    ++line_no;
    const bool hex = line.size() > 66 && line.substr(64, 2) == "  " &&
                     std::all_of(line.begin(), line.begin() + 64,
                                 [](char c) { return absl::ascii_isxdigit(c); });
    if (!hex) {
      return absl::DataLossError(absl::StrCat(path, ": ", kManifest, " line ", line_no,
                                              " is not `SHA256  NAME`: the manifest was edited"));
    }
    out[std::string(line.substr(66))] = absl::AsciiStrToLower(line.substr(0, 64));
  }
  return out;
}

// Whether `sig` is `key`'s SHA-256 signature of `data` (what `openssl dgst
// -sha256 -verify KEY -signature SIG` checks).
absl::StatusOr<bool> SignatureVerifies(const std::string& data, const std::string& sig,
                                       const std::string& key_path) {
  FILE* f = fopen(key_path.c_str(), "r");
  if (f == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat("--pub-key ", key_path, ": cannot read it"));
  }
  std::unique_ptr<EVP_PKEY, decltype(&EVP_PKEY_free)> key(
      PEM_read_PUBKEY(f, nullptr, nullptr, nullptr), &EVP_PKEY_free);
  fclose(f);
  if (!key) {
    return absl::InvalidArgumentError(
        absl::StrCat("--pub-key ", key_path,
                     ": not a PEM public key (make one with `openssl pkey -in KEY.pem -pubout`)"));
  }
  std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> ctx(EVP_MD_CTX_new(), &EVP_MD_CTX_free);
  if (!ctx || EVP_DigestVerifyInit(ctx.get(), nullptr, EVP_sha256(), nullptr, key.get()) != 1) {
    return absl::InternalError("cannot set up signature verification");
  }
  return EVP_DigestVerify(ctx.get(), reinterpret_cast<const unsigned char*>(sig.data()), sig.size(),
                          reinterpret_cast<const unsigned char*>(data.data()), data.size()) == 1;
}

absl::Status CheckMembers(const std::string& path, const ReadBundle& bundle,
                          const std::map<std::string, std::string>& manifest) {
  for (const auto& [name, hash] : manifest) {
    auto m = bundle.members.find(name);
    if (m == bundle.members.end()) {
      return absl::DataLossError(
          absl::StrCat(path, ": ", kManifest, " lists ", name, ", which the bundle does not hold"));
    }
    if (Sha256Hex(m->second) != hash) {
      return absl::DataLossError(absl::StrCat(path, ": ", name, " does not match ", kManifest,
                                              ": it was changed after the bundle was written"));
    }
  }
  for (const auto& [name, content] : bundle.members) {
    if (name != kManifest && name != kSignature && !manifest.count(name)) {
      return absl::DataLossError(absl::StrCat(path, ": ", name, " is not in ", kManifest,
                                              ": it was added after the bundle was written"));
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::string> VerifyEvidenceBundle(const std::string& path,
                                                 const std::string& pub_key) {
  absl::StatusOr<ReadBundle> bundle = ReadEvidenceBundle(path);
  if (!bundle.ok()) return bundle.status();
  auto manifest_text = bundle->members.find(kManifest);
  if (manifest_text == bundle->members.end()) {
    return absl::DataLossError(absl::StrCat(path, ": no ", kManifest, " in it"));
  }
  absl::StatusOr<std::map<std::string, std::string>> manifest =
      ManifestOf(path, manifest_text->second);
  if (!manifest.ok()) return manifest.status();
  if (absl::Status s = CheckMembers(path, *bundle, *manifest); !s.ok()) return s;
  auto sig = bundle->members.find(kSignature);
  std::string signature =
      sig == bundle->members.end() ? "unsigned" : "signed (pass --pub-key to check it)";
  if (!pub_key.empty()) {
    if (sig == bundle->members.end()) {
      return absl::DataLossError(
          absl::StrCat(path, ": unsigned, and --pub-key asks for a signature"));
    }
    absl::StatusOr<bool> ok = SignatureVerifies(manifest_text->second, sig->second, pub_key);
    if (!ok.ok()) return ok.status();
    if (!*ok) {
      return absl::DataLossError(
          absl::StrCat(path, ": the signature does not verify with ", pub_key,
                       ": the manifest was changed, or another key signed it"));
    }
    signature = absl::StrCat("signature verified with ", pub_key);
  }
  auto run_json = bundle->members.find("run.json");
  if (run_json == bundle->members.end()) {
    return absl::DataLossError(absl::StrCat(path, ": no run.json in it"));
  }
  absl::StatusOr<v1::StageRun> run =
      ParseRunJson(run_json->second, absl::StrCat(path, " run.json"));
  if (!run.ok()) return absl::DataLossError(run.status().message());
  return absl::StrCat(path, ": verified: run ", run->run_id(), " (", v1::Stage_Name(run->stage()),
                      ", ", VerdictName(run->verdict()), "), ", manifest->size(), " members match ",
                      kManifest, ", ", signature);
}

}  // namespace nodeprobe::cli
