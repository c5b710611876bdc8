// File: preflight_command.h
// `nodeprobe preflight`: the pre-flight stage (`run --stage preflight`)
// from where the workload runs (a container, a VM guest, a Slurm prolog):
// no daemon, no coordinator, no root; seconds, not minutes.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>

namespace nodeprobe::cli {

std::function<int()> AddPreflightCommand(CLI::App& app);

}  // namespace nodeprobe::cli
