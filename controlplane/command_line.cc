#include "controlplane/command_line.h"

#include <cmath>

#include <CLI/CLI.hpp>
#include <iostream>

#include "controlplane/exit_codes.h"
#include "platform/identifiers.h"

namespace nodeprobe::controlplane {

std::optional<int> ParseCommandLine(CLI::App& app, int argc, char** argv,
                                    const std::string& program) {
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::cerr << program << ": error: " << e.what() << " (see '" << program << " --help')\n";
    return kExitUsage;
  }
  return std::nullopt;
}

CLI::Validator NameCheck() {
  return CLI::Validator(
      [](std::string& value) -> std::string {
        const absl::Status s = platform::CheckNodeName("the value", value);
        return s.ok() ? std::string() : std::string(s.message());
      },
      "NAME");
}

CLI::Validator SecondsCheck() {
  return CLI::Validator(
      [](std::string& value) -> std::string {
        double v = 0;
        return absl::SimpleAtod(value, &v) && std::isfinite(v) && v > 0 && v <= 86400
                   ? std::string()
                   : "must be a number of seconds, 0 < N <= 86400";
      },
      "SECONDS");
}

void AddControlFlags(CLI::App* cmd, std::string* coordinator, TlsFiles* tls) {
  cmd->add_option("--coordinator", *coordinator,
                  "Coordinator HOST:PORT (else $NODEPROBE_COORDINATOR, else "
                  "/etc/nodeprobe/nodeprobe.yaml)");
  cmd->add_option("--tls-cert", tls->cert, "This party's certificate (PEM)");
  cmd->add_option("--tls-key", tls->key, "This party's private key (PEM)");
  cmd->add_option("--tls-ca", tls->ca, "CA bundle that signs the other parties (PEM)");
  cmd->add_flag("--insecure", tls->insecure, "Plaintext, no authentication (labs only)");
}

}  // namespace nodeprobe::controlplane
