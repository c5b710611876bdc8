// File: evidence_command.h
// `nodeprobe evidence --run ID | --from-json FILE --out FILE.tar.gz
// [--sign-key KEY.pem]`: the evidence bundle of a stored run (from the
// coordinator) or of a saved `report --format json` (offline).
#pragma once

#include <functional>

#include <CLI/CLI.hpp>

namespace nodeprobe::cli {

std::function<int()> AddEvidenceCommand(CLI::App& app);

}  // namespace nodeprobe::cli
