// File: main.cc
// The `nodeprobe` command. Its flags and dispatch are in nodeprobe_main.cc,
// compiled with the other files that declare flags (CLI11 once for all).
#include "cli/nodeprobe_main.h"

int main(int argc, char** argv) { return nodeprobe::cli::NodeprobeMain(argc, argv); }
