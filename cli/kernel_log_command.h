// File: kernel_log_command.h
// `nodeprobe kernel-log FILE|-`: the hardware events in any kernel log
// (dmesg in its formats, journal, syslog, kmsg): NVIDIA Xid/SXid with the
// code's meaning and action, GPUs off the bus, PCIe AER errors with their
// bits, NIC link flaps; a table per device and the findings. Exits like `run`.
#pragma once

#include <functional>

namespace CLI {
class App;
}  // namespace CLI

namespace nodeprobe::cli {

// Adds `kernel-log`; the callable returns its exit code, or -1 when it was
// not selected.
std::function<int()> AddKernelLogCommand(CLI::App& app);

}  // namespace nodeprobe::cli
