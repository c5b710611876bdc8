#include "cli/evidence_command.h"

#include <google/protobuf/util/json_util.h>
#include <sys/stat.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <fstream>
#include <iostream>
#include <iterator>
#include <memory>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "cli/control_commands.h"
#include "cli/evidence_bundle.h"
#include "cli/output_file.h"
#include "controlplane/command_line.h"
#include "controlplane/credentials.h"
#include "controlplane/exit_codes.h"
#include "coordinator/record_check.h"
#include "coordinator/run_pages.h"
#include "nodeprobe/v1/service.grpc.pb.h"

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

absl::StatusOr<v1::StageRun> ReadRunJson(const std::string& path) {
  struct stat st;
  if (stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) {
    return absl::InvalidArgumentError(
        absl::StrCat("--from-json ", path, ": not a readable file"));
  }
  if (static_cast<size_t>(st.st_size) > kMaxRunJsonBytes) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--from-json ", path, ": ", st.st_size >> 20, " MiB is larger than any run (at most ",
        kMaxRunJsonBytes >> 20, " MiB): is this a nodeprobe run?"));
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::InvalidArgumentError(absl::StrCat("--from-json ", path, ": cannot read it"));
  std::string text;
  text.reserve(static_cast<size_t>(st.st_size));  // not twice the file while it grows
  char buf[65536];
  while (in.read(buf, sizeof(buf)) || in.gcount() > 0) {
    text.append(buf, static_cast<size_t>(in.gcount()));
    if (text.size() > kMaxRunJsonBytes) {
      return absl::InvalidArgumentError(absl::StrCat("--from-json ", path, ": larger than any run"));
    }
  }
  if (JsonDepth(text) > kMaxRunJsonDepth) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--from-json ", path, ": nested deeper than any run (", kMaxRunJsonDepth, " levels)"));
  }
  v1::StageRun run;
  const auto parsed = google::protobuf::util::JsonStringToMessage(text, &run);
  if (!parsed.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--from-json ", path, ": not a run (", std::string(parsed.message()),
        "); save one with `nodeprobe report --run ID --format json`"));
  }
  // Its verdicts are recomputed from its findings, never taken as written.
  if (absl::Status s = coordinator::CheckRecord(run); !s.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("--from-json ", path, ": ", s.message(),
                                                   "; not bundled"));
  }
  return run;
}

std::function<int()> AddEvidenceCommand(CLI::App& app) {
  struct Options {
    std::string coordinator;
    controlplane::TlsFiles tls;
    std::string run;
    std::string from_json;
    std::string out;
    std::string sign_key;
    bool force = false;
  };
  auto o = std::make_shared<Options>();
  CLI::App* cmd = app.add_subcommand(
      "evidence",
      "Write a run's evidence bundle: a .tar.gz with the run (JSON), the HTML acceptance "
      "record, JUnit XML, the profile and MANIFEST.sha256 (`sha256sum -c`), signed with "
      "--sign-key when given (`openssl dgst -sha256 -verify`).");
  controlplane::AddControlFlags(cmd, &o->coordinator, &o->tls);
  auto* run = cmd->add_option("--run", o->run, "A stored run's id (see `nodeprobe runs`)")
                  ->check(controlplane::NameCheck());
  auto* from = cmd->add_option("--from-json", o->from_json,
                               "A run saved by `nodeprobe report --format json` (no coordinator)");
  run->excludes(from);
  cmd->add_option("--out", o->out,
                  "The bundle to write (FILE.tar.gz; - for standard output); an existing file "
                  "is kept unless --force")
      ->required();
  cmd->add_flag("--force", o->force, "Replace --out when it exists (a regular file only)");
  cmd->add_option("--sign-key", o->sign_key,
                  "PEM private key that signs MANIFEST.sha256 (MANIFEST.sha256.sig)");
  return [cmd, o]() -> int {
    if (!cmd->parsed()) return -1;
    // Said before any work: a bad --out is known at once.
    if (absl::Status target = CheckOutputTarget(o->out, o->force, "--out"); !target.ok()) {
      return controlplane::StatusExit(target);
    }
    v1::StageRun stage_run;
    if (!o->from_json.empty()) {
      absl::StatusOr<v1::StageRun> read = ReadRunJson(o->from_json);
      if (!read.ok()) return controlplane::StatusExit(read.status());
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
    absl::Status written = WriteEvidenceBundle(std::move(stage_run), o->out, o->sign_key, o->force);
    if (!written.ok()) {
      return controlplane::StatusExit(written);
    }
    std::cerr << "nodeprobe: wrote " << (o->out == "-" ? "the bundle to standard output" : o->out)
              << "\n";
    return controlplane::kExitOk;
  };
}

}  // namespace nodeprobe::cli
