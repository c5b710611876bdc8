// File: control_flags.cc
#include "cli/control_flags.h"

namespace nodeprobe::cli {

void AddControlFlags(CLI::App* cmd, std::string* coordinator, coordinator::TlsFiles* tls) {
  cmd->add_option("--coordinator", *coordinator,
                  "Coordinator HOST:PORT (else $NODEPROBE_COORDINATOR, else "
                  "/etc/nodeprobe/nodeprobe.yaml)");
  cmd->add_option("--tls-cert", tls->cert, "This party's certificate (PEM)");
  cmd->add_option("--tls-key", tls->key, "This party's private key (PEM)");
  cmd->add_option("--tls-ca", tls->ca, "CA bundle that signs the other parties (PEM)");
  cmd->add_flag("--insecure", tls->insecure, "Plaintext, no authentication (labs only)");
}

}  // namespace nodeprobe::cli
