#include "cli/evidence_verify.h"

#include <google/protobuf/util/json_util.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <stdio.h>

#include <map>
#include <memory>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
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

// "unsigned", "signed (...)" or "signature verified with KEY".
absl::StatusOr<std::string> CheckSignature(const std::string& path, const ReadBundle& bundle,
                                           const std::string& pub_key) {
  auto sig = bundle.members.find(kSignature);
  if (pub_key.empty()) {
    return sig == bundle.members.end() ? "unsigned" : "signed (pass --pub-key to check it)";
  }
  if (sig == bundle.members.end()) {
    return absl::DataLossError(
        absl::StrCat(path, ": unsigned, and --pub-key asks for a signature"));
  }
  absl::StatusOr<bool> ok = SignatureVerifies(bundle.members.at(kManifest), sig->second, pub_key);
  if (!ok.ok()) return ok.status();
  if (!*ok) {
    return absl::DataLossError(
        absl::StrCat(path, ": the signature does not verify with ", pub_key,
                     ": the manifest was changed, or another key signed it"));
  }
  return absl::StrCat("signature verified with ", pub_key);
}

}  // namespace

absl::StatusOr<VerifiedBundle> VerifyEvidenceBundle(const std::string& path,
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
  absl::StatusOr<std::string> signature = CheckSignature(path, *bundle, pub_key);
  if (!signature.ok()) return signature.status();
  auto run_json = bundle->members.find("run.json");
  if (run_json == bundle->members.end()) {
    return absl::DataLossError(absl::StrCat(path, ": no run.json in it"));
  }
  absl::StatusOr<v1::StageRun> run =
      ParseRunJson(run_json->second, absl::StrCat(path, " run.json"));
  if (!run.ok()) return absl::DataLossError(run.status().message());
  VerifiedBundle out;
  out.run_id = run->run_id();
  out.verdict = run->verdict();
  out.manifest_sha256 = Sha256Hex(manifest_text->second);
  if (auto link = bundle->members.find("ledger.json"); link != bundle->members.end()) {
    v1::LedgerLink follows;
    if (!google::protobuf::util::JsonStringToMessage(link->second, &follows).ok()) {
      return absl::DataLossError(absl::StrCat(path, ": ledger.json is not a ledger link"));
    }
    out.follows = follows;
  }
  out.line = absl::StrCat(
      path, ": verified: run ", run->run_id(), " (", v1::Stage_Name(run->stage()), ", ",
      VerdictName(run->verdict()), "), ", manifest->size(), " members match ", kManifest, ", ",
      *signature,
      out.follows ? absl::StrCat(", record ", out.follows->sequence(), " of its ledger, after run ",
                                 out.follows->previous_run_id())
                  : "");
  return out;
}

absl::StatusOr<std::string> VerifyLedger(const std::vector<std::string>& paths,
                                         const std::vector<VerifiedBundle>& bundles) {
  std::vector<std::string> chain;
  for (size_t i = 0; i < bundles.size(); ++i) {
    const VerifiedBundle& b = bundles[i];
    chain.push_back(absl::StrCat(b.run_id, " (", b.follows ? b.follows->sequence() : 1, ")"));
    if (i == 0) continue;
    const VerifiedBundle& prev = bundles[i - 1];
    if (!b.follows || b.follows->previous_manifest_sha256() != prev.manifest_sha256) {
      return absl::DataLossError(absl::StrCat(
          paths[i], " does not follow ", paths[i - 1], ": ",
          b.follows ? absl::StrCat("its ledger names run ", b.follows->previous_run_id(),
                                   " (record ", b.follows->sequence() - 1,
                                   ") before it; a record between them is missing, or ",
                                   paths[i - 1], " is not the bundle it followed")
                    : "it was written without --follows",
          "; give the bundles in the ledger's order"));
    }
  }
  return absl::StrCat("ledger unbroken: ", absl::StrJoin(chain, " -> "));
}

v1::LedgerLink LinkTo(const VerifiedBundle& previous) {
  v1::LedgerLink link;
  link.set_sequence((previous.follows ? previous.follows->sequence() : 1) + 1);
  link.set_previous_run_id(previous.run_id);
  link.set_previous_manifest_sha256(previous.manifest_sha256);
  link.set_previous_verdict(VerdictName(previous.verdict));
  return link;
}

}  // namespace nodeprobe::cli
