// File: loopback_ports.h
// Ports on 127.0.0.1 for tests that start servers of their own.
#pragma once

#include <cstdint>

#include "absl/time/time.h"

namespace nodeprobe::testing {

// A TCP port free on 127.0.0.1 a moment ago (the kernel's pick for port 0).
uint16_t FreeLoopbackPort();

// Until something accepts on 127.0.0.1:port; false at the timeout.
bool WaitForLoopbackListener(uint16_t port, absl::Duration timeout);

}  // namespace nodeprobe::testing
