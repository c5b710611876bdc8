// File: nodeprobe_main.h
// The `nodeprobe` command's main(): every subcommand, its flags, dispatch.
#pragma once

namespace nodeprobe::cli {

// Parses ARGV, runs the chosen command and returns its exit code.
int NodeprobeMain(int argc, char** argv);

}  // namespace nodeprobe::cli
