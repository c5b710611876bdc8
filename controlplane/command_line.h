// File: command_line.h
// What the command lines of both binaries (nodeprobe, nodeprobe-agent)
// share: the parse with its exit codes, and the flags of every command that
// talks to the coordinator (where it is, the TLS files to reach it with).
#pragma once

#include <optional>
#include <string>

#include "controlplane/tls_files.h"

// Headers name CLI11's types only: its definitions cost seconds of every
// translation unit that includes it (the global validators it defines are
// compiled each time), so only the .cc files that declare flags do.
namespace CLI {
class App;
class Validator;
}  // namespace CLI

namespace nodeprobe::controlplane {

// Parses ARGV into APP. An exit code when the program is done: 0 after
// --help or --version, 2 after a parse error (one line on stderr naming
// PROGRAM, e.g. "nodeprobe"); nullopt when the chosen command should run.
std::optional<int> ParseCommandLine(CLI::App& app, int argc, char** argv,
                                    const std::string& program);

// A flag's check that its value (each value, for a list) is a valid node
// name or run id (platform/identifiers.h): a one-line error naming the flag.
CLI::Validator NameCheck();

// A --timeout's check: a finite number of seconds, 0 < N <= 86400; the
// error says so in those words (not a 309-digit range).
CLI::Validator SecondsCheck();

// Adds --coordinator and the TLS flags to a command.
void AddControlFlags(CLI::App* cmd, std::string* coordinator, TlsFiles* tls);

}  // namespace nodeprobe::controlplane
