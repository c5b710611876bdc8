// File: evidence_bundle.cc
#include "cli/evidence_bundle.h"

#include <archive.h>
#include <archive_entry.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <stdio.h>

#include <memory>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "cli/html_report.h"
#include "cli/json_output.h"
#include "cli/junit_output.h"
#include "cli/output_file.h"
#include "coordinator/acceptance_gate.h"
#include "platform/identifiers.h"
#include "probes/framework/coverage.h"

namespace nodeprobe::cli {
namespace {

struct File {
  std::string name;
  std::string content;
};

// A SHA-256 signature of `data` with the PEM private key at `path` (RSA or
// EC: what `openssl dgst -sha256 -verify` checks).
absl::StatusOr<std::string> Sign(const std::string& data, const std::string& path) {
  FILE* f = fopen(path.c_str(), "r");
  if (f == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat("--sign-key ", path, ": cannot read it"));
  }
  std::unique_ptr<EVP_PKEY, decltype(&EVP_PKEY_free)> key(
      PEM_read_PrivateKey(f, nullptr, nullptr, nullptr), &EVP_PKEY_free);
  fclose(f);
  if (!key) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--sign-key ", path, ": not a PEM private key (an unencrypted RSA or EC key, e.g. from "
        "`openssl genpkey -algorithm RSA`)"));
  }
  std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> ctx(EVP_MD_CTX_new(), &EVP_MD_CTX_free);
  size_t len = 0;
  if (!ctx || EVP_DigestSignInit(ctx.get(), nullptr, EVP_sha256(), nullptr, key.get()) != 1 ||
      EVP_DigestSign(ctx.get(), nullptr, &len,
                     reinterpret_cast<const unsigned char*>(data.data()), data.size()) != 1) {
    return absl::InvalidArgumentError(absl::StrCat("--sign-key ", path, ": cannot sign with it"));
  }
  std::string sig(len, '\0');
  if (EVP_DigestSign(ctx.get(), reinterpret_cast<unsigned char*>(sig.data()), &len,
                     reinterpret_cast<const unsigned char*>(data.data()), data.size()) != 1) {
    return absl::InternalError("signing the manifest failed");
  }
  sig.resize(len);
  return sig;
}

// The .tar.gz in memory (a bundle is a run's JSON and its renderings: a few
// MB at most), so that it reaches disk through WriteOutputFile.
absl::StatusOr<std::string> TarGz(const std::string& dir, const std::vector<File>& files) {
  std::unique_ptr<archive, decltype(&archive_write_free)> a(archive_write_new(),
                                                            &archive_write_free);
  archive_write_add_filter_gzip(a.get());
  archive_write_set_format_pax_restricted(a.get());
  std::string out;
  auto write = [](archive*, void* data, const void* buf, size_t n) -> la_ssize_t {
    static_cast<std::string*>(data)->append(static_cast<const char*>(buf), n);
    return static_cast<la_ssize_t>(n);
  };
  if (archive_write_open(a.get(), &out, nullptr, write, nullptr) != ARCHIVE_OK) {
    return absl::InternalError(absl::StrCat("packing the bundle: ", archive_error_string(a.get())));
  }
  const time_t now = absl::ToUnixSeconds(absl::Now());
  for (const File& f : files) {
    std::unique_ptr<archive_entry, decltype(&archive_entry_free)> e(archive_entry_new(),
                                                                    &archive_entry_free);
    archive_entry_set_pathname(e.get(), absl::StrCat(dir, "/", f.name).c_str());
    archive_entry_set_size(e.get(), static_cast<la_int64_t>(f.content.size()));
    archive_entry_set_filetype(e.get(), AE_IFREG);
    archive_entry_set_perm(e.get(), 0644);
    archive_entry_set_mtime(e.get(), now, 0);
    if (archive_write_header(a.get(), e.get()) != ARCHIVE_OK ||
        archive_write_data(a.get(), f.content.data(), f.content.size()) !=
            static_cast<la_ssize_t>(f.content.size())) {
      return absl::InternalError(absl::StrCat("packing the bundle: ", archive_error_string(a.get())));
    }
  }
  if (archive_write_close(a.get()) != ARCHIVE_OK) {
    return absl::InternalError(absl::StrCat("packing the bundle: ", archive_error_string(a.get())));
  }
  return out;
}

}  // namespace

absl::Status WriteEvidenceBundle(const v1::StageRun& stored, const std::string& out,
                                 const std::string& sign_key, bool replace) {
  // What is derived is derived again before any file is written, so every
  // file of the bundle says the same (a coverage forged into the stored
  // run does not survive in run.json beside record.html's).
  v1::StageRun run = stored;
  for (v1::StageReport& r : *run.mutable_node_reports()) *r.mutable_coverage() = CoverageOf(r);
  *run.mutable_coverage() = CoverageOf(run);
  // The run id names the bundle's directory: only a valid name (no '/',
  // no "..") may reach a tar member's path.
  if (absl::Status id = platform::CheckNodeName("run id", run.run_id()); !id.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("cannot bundle this run: ", id.message()));
  }
  if (absl::Status target = CheckOutputTarget(out, replace, "--out"); !target.ok()) return target;
  // Evidence is of a run that ended: one still "running" (or that died
  // without its end recorded, e.g. with a full store) is not bundled as if
  // complete.
  if (stored.state() != "done" && stored.state() != "error" && stored.state() != "cancelled" &&
      stored.state() != "incomplete") {
    return absl::FailedPreconditionError(absl::StrCat(
        "run ", stored.run_id(), " has not ended (state '", stored.state(),
        "'): evidence is of a finished run; wait for it, or see `nodeprobe runs`"));
  }
  absl::StatusOr<std::string> json = ToJson(coordinator::WithGate(run));
  if (!json.ok()) return json.status();
  std::vector<File> files = {{"run.json", *json},
                             {"record.html", HtmlRun(run)},
                             {"junit.xml", JunitRun(run)}};
  if (!run.profile().yaml().empty()) files.push_back({"profile.yaml", run.profile().yaml()});
  std::string manifest;
  for (const File& f : files) absl::StrAppend(&manifest, Sha256Hex(f.content), "  ", f.name, "\n");
  files.push_back({"MANIFEST.sha256", manifest});
  if (!sign_key.empty()) {
    absl::StatusOr<std::string> sig = Sign(manifest, sign_key);
    if (!sig.ok()) return sig.status();
    files.push_back({"MANIFEST.sha256.sig", *sig});
  }
  absl::StatusOr<std::string> bundle = TarGz(absl::StrCat("nodeprobe-", run.run_id()), files);
  if (!bundle.ok()) return bundle.status();
  return WriteOutputFile(out, *bundle, replace, "--out");
}

}  // namespace nodeprobe::cli
