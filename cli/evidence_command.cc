#include "cli/evidence_command.h"

#include <google/protobuf/util/json_util.h>
#include <sys/stat.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <fstream>
#include <iostream>
#include <iterator>
#include <memory>
#include <optional>
#include <variant>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "cli/control_commands.h"
#include "cli/evidence_bundle.h"
#include "cli/evidence_verify.h"
#include "cli/html_report.h"
#include "cli/json_output.h"
#include "cli/output_file.h"
#include "cli/record_diff_output.h"
#include "controlplane/command_line.h"
#include "controlplane/credentials.h"
#include "controlplane/exit_codes.h"
#include "coordinator/record_check.h"
#include "coordinator/record_diff.h"
#include "coordinator/run_pages.h"
#include "nodeprobe/v1/service.grpc.pb.h"
#include "platform/identifiers.h"

namespace nodeprobe::cli {
namespace {

// A saved run is at most this large and this deeply nested: far above any
// real record (a 1000-node cluster run is a few MB, 8 levels deep), far
// below what makes the JSON parser take gigabytes.
constexpr size_t kMaxRunJsonBytes = 64 << 20;
constexpr int kMaxRunJsonDepth = 32;

// The deepest nesting of { and [ outside strings.
int JsonDepth(std::string_view text) {
  int depth = 0, deepest = 0;
  bool in_string = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') ++i;
      else if (c == '"') in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '{' || c == '[') {
      deepest = std::max(deepest, ++depth);
    } else if (c == '}' || c == ']') {
      --depth;
    }
  }
  return deepest;
}

}  // namespace

absl::StatusOr<v1::StageRun> ParseRunJson(const std::string& text, const std::string& what) {
  if (JsonDepth(text) > kMaxRunJsonDepth) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, ": nested deeper than any run (", kMaxRunJsonDepth, " levels)"));
  }
  v1::StageRun run;
  const auto parsed = google::protobuf::util::JsonStringToMessage(text, &run);
  if (!parsed.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, ": not a run (", std::string(parsed.message()),
                     "); save one with `nodeprobe report --run ID --format json`"));
  }
  // Its verdicts are recomputed from its findings, never taken as written.
  if (absl::Status s = coordinator::CheckRecord(run); !s.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(what, ": ", s.message()));
  }
  return run;
}

namespace {

// The run.json member of an evidence bundle (evidence_bundle.h).
absl::StatusOr<std::string> BundleRunJson(const std::string& path) {
  absl::StatusOr<ReadBundle> bundle = ReadEvidenceBundle(path);
  if (!bundle.ok()) return bundle.status();
  auto run = bundle->members.find("run.json");
  if (run == bundle->members.end()) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, ": no run.json in it; is this a `nodeprobe evidence` bundle?"));
  }
  return std::move(run->second);
}

bool IsGzip(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  char magic[2] = {0, 0};
  in.read(magic, 2);
  return in.gcount() == 2 && magic[0] == '\x1f' && magic[1] == '\x8b';
}

}  // namespace

absl::StatusOr<v1::StageRun> ReadRunJson(const std::string& path, const std::string& what) {
  struct stat st;
  if (stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) {
    return absl::InvalidArgumentError(absl::StrCat(what, ": not a readable file"));
  }
  if (static_cast<size_t>(st.st_size) > kMaxRunJsonBytes) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, ": ", st.st_size >> 20, " MiB is larger than any run (at most ",
                     kMaxRunJsonBytes >> 20, " MiB): is this a nodeprobe run?"));
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::InvalidArgumentError(absl::StrCat(what, ": cannot read it"));
  std::string text;
  text.reserve(static_cast<size_t>(st.st_size));  // not twice the file while it grows
  char buf[65536];
  while (in.read(buf, sizeof(buf)) || in.gcount() > 0) {
    text.append(buf, static_cast<size_t>(in.gcount()));
    if (text.size() > kMaxRunJsonBytes) {
      return absl::InvalidArgumentError(absl::StrCat(what, ": larger than any run"));
    }
  }
  return ParseRunJson(text, what);
}

absl::StatusOr<v1::StageRun> ReadRecord(const std::string& record, const std::string& coordinator,
                                        const controlplane::TlsFiles& tls) {
  struct stat st;
  if (stat(record.c_str(), &st) == 0) {
    if (!S_ISREG(st.st_mode)) {
      return absl::InvalidArgumentError(absl::StrCat(record, ": not a regular file"));
    }
    if (!IsGzip(record)) return ReadRunJson(record, record);
    absl::StatusOr<std::string> text = BundleRunJson(record);
    if (!text.ok()) return text.status();
    return ParseRunJson(*text, absl::StrCat(record, " run.json"));
  }
  if (record.find('/') != std::string::npos || absl::EndsWith(record, ".json") ||
      absl::EndsWith(record, ".gz")) {
    return absl::InvalidArgumentError(absl::StrCat(record, ": no such file"));
  }
  if (!platform::IsValidNodeName(record)) {
    return absl::InvalidArgumentError(absl::StrCat(
        record, ": neither a file (a saved run's JSON, an evidence bundle) nor a run id"));
  }
  absl::StatusOr<CoordinatorClient> client = ConnectCoordinator(coordinator, tls);
  if (!client.ok()) return client.status();
  absl::StatusOr<v1::StageRun> fetched =
      coordinator::FetchRun(client->stub.get(), record, absl::Now() + absl::Seconds(60));
  if (!fetched.ok()) {
    return absl::Status(
        fetched.status().code(),
        absl::StrCat("run ", record, " from ", client->address, ": ", fetched.status().message()));
  }
  return fetched;
}

namespace {

// `evidence --diff OLD NEW`: 0 when nothing got worse, 1 when the new
// record is worse (coordinator::Worse), 2 for a record that cannot be read.
int DiffCommand(const std::vector<std::string>& records, const std::string& format,
                const std::string& out, bool force, const std::string& coordinator,
                const controlplane::TlsFiles& tls) {
  if (!out.empty() && out != "-") {
    if (absl::Status target = CheckOutputTarget(out, force, "--out"); !target.ok()) {
      return controlplane::StatusExit(target);
    }
  }
  std::vector<v1::StageRun> runs;
  for (const std::string& r : records) {
    absl::StatusOr<v1::StageRun> run = ReadRecord(r, coordinator, tls);
    if (!run.ok()) return controlplane::StatusExit(run.status());
    runs.push_back(*std::move(run));
  }
  if (absl::Status same = coordinator::CheckSameFleet(runs[0], runs[1]); !same.ok()) {
    return controlplane::StatusExit(same);
  }
  const v1::RecordDiff diff = coordinator::DiffRecords(runs[0], runs[1]);
  std::string text;
  if (format == "json") {
    absl::StatusOr<std::string> json = ToJson(diff);
    if (!json.ok()) return controlplane::StatusExit(json.status());
    text = *json;
  } else {
    text = format == "markdown" ? MarkdownDiff(diff)
           : format == "html"   ? HtmlDiff(diff)
                                : TextDiff(diff);
  }
  if (out.empty() || out == "-") {
    std::cout << text;
  } else if (absl::Status w = WriteOutputFile(out, text, force, "--out"); !w.ok()) {
    return controlplane::StatusExit(w);
  }
  return coordinator::Worse(diff) ? controlplane::kExitFail : controlplane::kExitOk;
}

struct EvidenceOptions {
  std::string coordinator;
  controlplane::TlsFiles tls;
  std::string run;
  std::string from_json;
  std::string out;
  std::string sign_key;
  std::vector<std::string> diff;
  std::string format = "text";
  std::vector<std::string> verify;
  std::string pub_key;
  std::string follows;
  bool force = false;
};

// A bundle that does not verify: 1 when it was changed (DATA_LOSS), else
// what its status means (2: not a bundle, a bad key).
int VerifyExit(const absl::Status& status) {
  return status.code() == absl::StatusCode::kDataLoss ? controlplane::kExitFail
                                                      : controlplane::ExitCodeFor(status);
}

// `evidence --verify BUNDLE...`: 0 when every bundle verifies, 1 when one
// does not (it was changed), else 2 for one that cannot be read.
int VerifyCommand(const EvidenceOptions& o) {
  int rc = controlplane::kExitOk;
  std::vector<VerifiedBundle> verified;
  for (const std::string& path : o.verify) {
    absl::StatusOr<VerifiedBundle> b = VerifyEvidenceBundle(path, o.pub_key);
    if (b.ok()) {
      std::cout << b->line << "\n";
      verified.push_back(*std::move(b));
      continue;
    }
    const int code =
        controlplane::ErrorExit(std::string(b.status().message()), VerifyExit(b.status()));
    if (code == controlplane::kExitFail || rc == controlplane::kExitOk) rc = code;
  }
  if (rc != controlplane::kExitOk || verified.size() < 2) return rc;
  absl::StatusOr<std::string> ledger = VerifyLedger(o.verify, verified);
  if (!ledger.ok()) {
    return controlplane::ErrorExit(std::string(ledger.status().message()), controlplane::kExitFail);
  }
  std::cout << *ledger << "\n";
  return controlplane::kExitOk;
}

// --follows PREV: the link to it, once it verifies (a record is never
// chained to one that was changed); an exit code when it does not.
std::variant<v1::LedgerLink, int> FollowedLink(const EvidenceOptions& o) {
  absl::StatusOr<VerifiedBundle> prev = VerifyEvidenceBundle(o.follows, o.pub_key);
  if (!prev.ok()) {
    return controlplane::ErrorExit(
        absl::StrCat("--follows ", prev.status().message(), "; not chained to it"),
        VerifyExit(prev.status()));
  }
  return LinkTo(*prev);
}

// --diff and --verify, which read records instead of writing a bundle.
// Each excludes the bundle's own flags (`bundle_flags`).
void AddReadingOptions(CLI::App* cmd, EvidenceOptions* o,
                       const std::vector<CLI::Option*>& bundle_flags) {
  CLI::Option* verify =
      cmd->add_option("--verify", o->verify,
                      "BUNDLE...: check bundles without unpacking them: every member against "
                      "MANIFEST.sha256, none missing or added, the signature with --pub-key, and "
                      "run.json a consistent run (exit 0: all verify; 1: one was changed)");
  cmd->add_option("--pub-key", o->pub_key,
                  "With --verify or --follows: the PEM public key whose signature each bundle "
                  "must carry");
  CLI::Option* opt = cmd->add_option(
      "--diff", o->diff,
      "OLD NEW: two acceptance records, each a saved run's JSON, an evidence bundle or a "
      "stored run's id; prints the nodes added and removed, versions, topology, cabling and "
      "configuration that changed, gate items whose state changed, and the figures that "
      "moved beyond the old record's spread across its nodes (at least 5%)");
  opt->expected(2)->excludes(verify);
  for (CLI::Option* flag : bundle_flags) {
    opt->excludes(flag);
    verify->excludes(flag);
  }
  cmd->add_option("--format", o->format, "With --diff: text, markdown, html or json")
      ->check(CLI::IsMember({"text", "markdown", "html", "json"}));
}

}  // namespace

std::function<int()> AddEvidenceCommand(CLI::App& app) {
  auto o = std::make_shared<EvidenceOptions>();
  CLI::App* cmd = app.add_subcommand(
      "evidence",
      "Write a run's evidence bundle: a .tar.gz with the run (JSON), the HTML acceptance "
      "record, JUnit XML, the profile and MANIFEST.sha256 (`sha256sum -c`), signed with "
      "--sign-key when given (`openssl dgst -sha256 -verify`). With --diff OLD NEW: what "
      "changed between two acceptance records instead (exit 0: nothing worse; 1: the new "
      "record is worse; 2: a record could not be read).");
  controlplane::AddControlFlags(cmd, &o->coordinator, &o->tls);
  auto* run = cmd->add_option("--run", o->run, "A stored run's id (see `nodeprobe runs`)")
                  ->check(controlplane::NameCheck());
  auto* from = cmd->add_option("--from-json", o->from_json,
                               "A run saved by `nodeprobe report --format json` (no coordinator)");
  run->excludes(from);
  cmd->add_option("--out", o->out,
                  "The bundle to write (FILE.tar.gz; - for standard output), or with --diff "
                  "the report (standard output when not given); an existing file is kept "
                  "unless --force");
  cmd->add_flag("--force", o->force, "Replace --out when it exists (a regular file only)");
  auto* sign = cmd->add_option("--sign-key", o->sign_key,
                               "PEM private key that signs MANIFEST.sha256 (MANIFEST.sha256.sig)");
  auto* follows = cmd->add_option(
      "--follows", o->follows,
      "PREV.tar.gz: the previous acceptance's bundle; once it verifies, this bundle carries "
      "the link to it (ledger.json: its manifest's SHA-256), and `--verify PREV THIS` walks "
      "the chain");
  AddReadingOptions(cmd, o.get(), {run, from, sign, follows});
  return [cmd, o]() -> int {
    if (!cmd->parsed()) return -1;
    if (!o->diff.empty()) {
      return DiffCommand(o->diff, o->format, o->out, o->force, o->coordinator, o->tls);
    }
    if (!o->verify.empty()) return VerifyCommand(*o);
    if (o->out.empty()) {
      return controlplane::ErrorExit(
          "evidence needs --out FILE.tar.gz (or --diff OLD NEW, or --verify BUNDLE...)",
          controlplane::kExitUsage);
    }
    // Said before any work: a bad --out is known at once.
    if (absl::Status target = CheckOutputTarget(o->out, o->force, "--out"); !target.ok()) {
      return controlplane::StatusExit(target);
    }
    v1::StageRun stage_run;
    if (!o->from_json.empty()) {
      absl::StatusOr<v1::StageRun> read =
          ReadRunJson(o->from_json, absl::StrCat("--from-json ", o->from_json));
      if (!read.ok()) {
        return controlplane::ErrorExit(absl::StrCat(read.status().message(), "; not bundled"),
                                       controlplane::ExitCodeFor(read.status()));
      }
      stage_run = *std::move(read);
    } else if (!o->run.empty()) {
      absl::StatusOr<CoordinatorClient> client = ConnectCoordinator(o->coordinator, o->tls);
      if (!client.ok()) return controlplane::StatusExit(client.status());
      absl::StatusOr<v1::StageRun> fetched =
          coordinator::FetchRun(client->stub.get(), o->run, absl::Now() + absl::Seconds(60));
      if (!fetched.ok()) return RpcErrorExit(fetched.status(), client->address);
      stage_run = *std::move(fetched);
    } else {
      return controlplane::ErrorExit(
          "evidence needs --run ID (from the coordinator) or --from-json FILE",
          controlplane::kExitUsage);
    }
    std::optional<v1::LedgerLink> link;
    if (!o->follows.empty()) {
      std::variant<v1::LedgerLink, int> followed = FollowedLink(*o);
      if (const int* rc = std::get_if<int>(&followed)) return *rc;
      link = std::get<v1::LedgerLink>(followed);
    }
    absl::Status written = WriteEvidenceBundle(std::move(stage_run), o->out, o->sign_key, o->force,
                                               link ? &*link : nullptr);
    if (!written.ok()) {
      return controlplane::StatusExit(written);
    }
    std::cerr << "nodeprobe: wrote " << (o->out == "-" ? "the bundle to standard output" : o->out)
              << "\n";
    return controlplane::kExitOk;
  };
}

}  // namespace nodeprobe::cli
