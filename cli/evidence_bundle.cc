#include "cli/evidence_bundle.h"

#include <archive.h>
#include <archive_entry.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <stdio.h>

#include <memory>
#include <vector>

#include "absl/strings/match.h"
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

// A .tar.gz written as its members come, straight to the output file: a
// fleet's run (tens of MB of JSON, its HTML and JUnit renderings) never
// sits in memory whole, only the member being added.
class TarGzWriter {
 public:
  TarGzWriter(OutputFileWriter* out, std::string dir)
      : a_(archive_write_new(), &archive_write_free), out_(out), dir_(std::move(dir)) {}

  absl::Status Open() {
    archive_write_add_filter_gzip(a_.get());
    archive_write_set_format_pax_restricted(a_.get());
    auto write = [](archive*, void* data, const void* buf, size_t n) -> la_ssize_t {
      auto* out = static_cast<OutputFileWriter*>(data);
      if (!out->Append(std::string_view(static_cast<const char*>(buf), n)).ok()) return -1;
      return static_cast<la_ssize_t>(n);
    };
    if (archive_write_open(a_.get(), out_, nullptr, write, nullptr) != ARCHIVE_OK) return Failed();
    return absl::OkStatus();
  }

  // Adds a member and notes its SHA-256 for the manifest.
  absl::Status Add(const std::string& name, const std::string& content) {
    absl::StrAppend(&manifest_, Sha256Hex(content), "  ", name, "\n");
    std::unique_ptr<archive_entry, decltype(&archive_entry_free)> e(archive_entry_new(),
                                                                    &archive_entry_free);
    archive_entry_set_pathname(e.get(), absl::StrCat(dir_, "/", name).c_str());
    archive_entry_set_size(e.get(), static_cast<la_int64_t>(content.size()));
    archive_entry_set_filetype(e.get(), AE_IFREG);
    archive_entry_set_perm(e.get(), 0644);
    archive_entry_set_mtime(e.get(), now_, 0);
    if (archive_write_header(a_.get(), e.get()) != ARCHIVE_OK ||
        archive_write_data(a_.get(), content.data(), content.size()) !=
            static_cast<la_ssize_t>(content.size())) {
      return Failed();
    }
    return absl::OkStatus();
  }

  const std::string& manifest() const { return manifest_; }

  absl::Status Close() {
    if (archive_write_close(a_.get()) != ARCHIVE_OK) return Failed();
    return out_->Commit();
  }

 private:
  // The output's own error (a full disk) says more than libarchive's.
  absl::Status Failed() {
    if (absl::Status s = out_->Append(""); !s.ok()) return s;
    return absl::InternalError(absl::StrCat("packing the bundle: ", archive_error_string(a_.get())));
  }

  std::unique_ptr<archive, decltype(&archive_write_free)> a_;
  OutputFileWriter* out_;
  std::string dir_;
  std::string manifest_;
  const time_t now_ = absl::ToUnixSeconds(absl::Now());
};

// The run with everything derived computed again (coverage, the gate) so
// every file of the bundle says the same: a coverage forged into the
// stored run does not survive in run.json beside record.html's.
void Rederive(v1::StageRun& run) {
  for (v1::StageReport& r : *run.mutable_node_reports()) *r.mutable_coverage() = CoverageOf(r);
  *run.mutable_coverage() = CoverageOf(run);
  std::vector<v1::StageRun> one(1);
  one[0].Swap(&run);
  v1::GateChecklist gate = coordinator::GateOf(one);
  run.Swap(&one[0]);
  *run.mutable_gate() = std::move(gate);
}

}  // namespace

absl::Status WriteEvidenceBundle(v1::StageRun run, const std::string& out,
                                 const std::string& sign_key, bool replace,
                                 const v1::LedgerLink* follows) {
  // The run id names the bundle's directory: only a valid name (no '/',
  // no "..") may reach a tar member's path.
  if (absl::Status id = platform::CheckNodeName("run id", run.run_id()); !id.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("cannot bundle this run: ", id.message()));
  }
  if (absl::Status target = CheckOutputTarget(out, replace, "--out"); !target.ok()) return target;
  // Evidence is of a run that ended: one still "running" (or that died
  // without its end recorded, e.g. with a full store) is not bundled as if
  // complete.
  if (run.state() != "done" && run.state() != "error" && run.state() != "cancelled" &&
      run.state() != "incomplete") {
    return absl::FailedPreconditionError(absl::StrCat(
        "run ", run.run_id(), " has not ended (state '", run.state(),
        "'): evidence is of a finished run; wait for it, or see `nodeprobe runs`"));
  }
  Rederive(run);
  absl::StatusOr<std::unique_ptr<OutputFileWriter>> file =
      OutputFileWriter::Open(out, replace, "--out");
  if (!file.ok()) return file.status();
  TarGzWriter tar(file->get(), absl::StrCat("nodeprobe-", run.run_id()));
  if (absl::Status s = tar.Open(); !s.ok()) return s;
  // Each member is rendered, added and dropped before the next.
  absl::StatusOr<std::string> json = RunToJson(run);
  if (!json.ok()) return json.status();
  if (absl::Status s = tar.Add("run.json", *json); !s.ok()) return s;
  json->clear();
  json->shrink_to_fit();
  if (absl::Status s = tar.Add("record.html", HtmlRun(run)); !s.ok()) return s;
  if (absl::Status s = tar.Add("junit.xml", JunitRun(run)); !s.ok()) return s;
  if (!run.profile().yaml().empty()) {
    if (absl::Status s = tar.Add("profile.yaml", run.profile().yaml()); !s.ok()) return s;
  }
  if (follows != nullptr) {
    absl::StatusOr<std::string> link = ToJson(*follows);
    if (!link.ok()) return link.status();
    if (absl::Status s = tar.Add("ledger.json", *link); !s.ok()) return s;
  }
  const std::string manifest = tar.manifest();
  if (absl::Status s = tar.Add("MANIFEST.sha256", manifest); !s.ok()) return s;
  if (!sign_key.empty()) {
    absl::StatusOr<std::string> sig = Sign(manifest, sign_key);
    if (!sig.ok()) return sig.status();
    if (absl::Status s = tar.Add("MANIFEST.sha256.sig", *sig); !s.ok()) return s;
  }
  return tar.Close();
}

absl::StatusOr<ReadBundle> ReadEvidenceBundle(const std::string& path) {
  constexpr size_t kMaxMember = 64 << 20, kMaxTotal = 256 << 20;
  std::unique_ptr<archive, decltype(&archive_read_free)> a(archive_read_new(), &archive_read_free);
  archive_read_support_filter_gzip(a.get());
  archive_read_support_format_tar(a.get());
  if (archive_read_open_filename(a.get(), path.c_str(), 65536) != ARCHIVE_OK) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, ": not an evidence bundle (", archive_error_string(a.get()), ")"));
  }
  ReadBundle out;
  size_t total = 0;
  archive_entry* entry = nullptr;
  int rc;
  while ((rc = archive_read_next_header(a.get(), &entry)) == ARCHIVE_OK) {
    const std::string name = archive_entry_pathname(entry);
    const size_t slash = name.find('/');
    const std::string dir = name.substr(0, slash);
    const std::string member = slash == std::string::npos ? "" : name.substr(slash + 1);
    // The directory's own entry (a bundle repacked with tar has one).
    if (archive_entry_filetype(entry) == AE_IFDIR && absl::StartsWith(dir, "nodeprobe-") &&
        member.empty() && (out.dir.empty() || out.dir == dir)) {
      continue;
    }
    if (archive_entry_filetype(entry) != AE_IFREG || !absl::StartsWith(dir, "nodeprobe-") ||
        member.empty() || absl::StrContains(member, "/") || member == "..") {
      return absl::InvalidArgumentError(
          absl::StrCat(path, ": holds ", name, ", not a member of a `nodeprobe evidence` bundle"));
    }
    if (!out.dir.empty() && dir != out.dir) {
      return absl::InvalidArgumentError(
          absl::StrCat(path, ": holds both ", out.dir, " and ", dir, "; one bundle holds one run"));
    }
    out.dir = dir;
    std::string& content = out.members[member];
    char buf[65536];
    la_ssize_t n;
    while ((n = archive_read_data(a.get(), buf, sizeof(buf))) > 0) {
      content.append(buf, static_cast<size_t>(n));
      total += static_cast<size_t>(n);
      if (content.size() > kMaxMember || total > kMaxTotal) {
        return absl::InvalidArgumentError(
            absl::StrCat(path, ": ", member, " is larger than any bundle holds"));
      }
    }
    if (n < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat(path, ": truncated (", archive_error_string(a.get()), ")"));
    }
  }
  if (rc != ARCHIVE_EOF) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, ": unreadable (", archive_error_string(a.get()), ")"));
  }
  if (out.members.empty()) return absl::InvalidArgumentError(absl::StrCat(path, ": empty"));
  return out;
}

}  // namespace nodeprobe::cli
