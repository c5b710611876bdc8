// File: control_flags.h
// The flags every command that talks to the coordinator shares (the agent's
// own binary too): where it is and the TLS files to reach it with.
#pragma once

#include <string>

#include <CLI/CLI.hpp>

#include "coordinator/credentials.h"

namespace nodeprobe::cli {

// Adds --coordinator and the TLS flags to a command.
void AddControlFlags(CLI::App* cmd, std::string* coordinator, coordinator::TlsFiles* tls);

}  // namespace nodeprobe::cli
