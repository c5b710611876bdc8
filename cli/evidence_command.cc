// File: evidence_command.cc
#include "cli/evidence_command.h"

#include <google/protobuf/util/json_util.h>

#include <fstream>
#include <iostream>
#include <iterator>
#include <memory>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "cli/control_commands.h"
#include "cli/evidence_bundle.h"
#include "cli/exit_codes.h"
#include "coordinator/credentials.h"
#include "coordinator/run_pages.h"
#include "nodeprobe/v1/service.grpc.pb.h"

namespace nodeprobe::cli {

std::function<int()> AddEvidenceCommand(CLI::App& app) {
  struct Options {
    std::string coordinator;
    coordinator::TlsFiles tls;
    std::string run;
    std::string from_json;
    std::string out;
    std::string sign_key;
  };
  auto o = std::make_shared<Options>();
  CLI::App* cmd = app.add_subcommand(
      "evidence",
      "Write a run's evidence bundle: a .tar.gz with the run (JSON), the HTML acceptance "
      "record, JUnit XML, the profile and MANIFEST.sha256 (`sha256sum -c`), signed with "
      "--sign-key when given (`openssl dgst -sha256 -verify`).");
  AddControlFlags(cmd, &o->coordinator, &o->tls);
  auto* run = cmd->add_option("--run", o->run, "A stored run's id (see `nodeprobe runs`)");
  auto* from = cmd->add_option("--from-json", o->from_json,
                               "A run saved by `nodeprobe report --format json` (no coordinator)");
  run->excludes(from);
  cmd->add_option("--out", o->out, "The bundle to write (FILE.tar.gz)")->required();
  cmd->add_option("--sign-key", o->sign_key,
                  "PEM private key that signs MANIFEST.sha256 (MANIFEST.sha256.sig)");
  return [cmd, o]() -> int {
    if (!cmd->parsed()) return -1;
    v1::StageRun stage_run;
    if (!o->from_json.empty()) {
      std::ifstream in(o->from_json);
      if (!in) return ErrorExit(absl::StrCat("--from-json ", o->from_json, ": cannot read it"), kExitUsage);
      const std::string text((std::istreambuf_iterator<char>(in)), {});
      const auto parsed = google::protobuf::util::JsonStringToMessage(text, &stage_run);
      if (!parsed.ok()) {
        return ErrorExit(absl::StrCat("--from-json ", o->from_json, ": not a run (",
                                 std::string(parsed.message()), "); save one with `nodeprobe report --run ID "
                                 "--format json`"),
                    kExitUsage);
      }
    } else if (!o->run.empty()) {
      absl::StatusOr<CoordinatorClient> client = ConnectCoordinator(o->coordinator, o->tls);
      if (!client.ok()) return ErrorExit(std::string(client.status().message()), kExitUsage);
      absl::StatusOr<v1::StageRun> fetched =
          coordinator::FetchRun(client->stub.get(), o->run, absl::Now() + absl::Seconds(60));
      if (!fetched.ok()) return RpcErrorExit(fetched.status(), client->address);
      stage_run = *std::move(fetched);
    } else {
      return ErrorExit("evidence needs --run ID (from the coordinator) or --from-json FILE", kExitUsage);
    }
    absl::Status written = WriteEvidenceBundle(stage_run, o->out, o->sign_key);
    if (!written.ok()) {
      return ErrorExit(std::string(written.message()),
                  written.code() == absl::StatusCode::kInvalidArgument ? kExitUsage
                                                                       : kExitCouldNotRun);
    }
    std::cerr << "nodeprobe: wrote " << o->out << "\n";
    return kExitOk;
  };
}

}  // namespace nodeprobe::cli
