// File: lab.h
// The network-namespace lab: test hosts as network namespaces joined by veth
// pairs (optionally through a router namespace), with per-link MTU and rate
// (tc tbf), links that can be taken down mid-test, and processes run inside
// a host. Everything it made is torn down in the destructor, also when a
// test fails. Needs root (CI has it); Available() says why not otherwise.
// Traffic stays inside the namespaces it creates.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace nodeprobe::lab {

class Lab {
 public:
  // OK when namespaces can be made here; otherwise why not (for GTEST_SKIP).
  static absl::Status Available();

  Lab();
  ~Lab();
  Lab(const Lab&) = delete;
  Lab& operator=(const Lab&) = delete;

  // A host: a fresh namespace with loopback up. `name` is short (a, b, r).
  absl::Status AddHost(const std::string& name);
  // A veth pair between two hosts: a's end "<a><b>" gets a_cidr
  // ("10.9.1.1/24"), b's end "<b><a>" gets b_cidr; both up with `mtu`.
  absl::Status Link(const std::string& a, const std::string& a_cidr,
                    const std::string& b, const std::string& b_cidr, int mtu = 1500);
  // Lets a host forward IPv4 (a router).
  absl::Status EnableForwarding(const std::string& host);
  // Runs a shell command inside a host; error with its output on failure.
  absl::Status Exec(const std::string& host, const std::string& command);
  // Caps the egress rate of a host's interface with tc tbf.
  absl::Status Shape(const std::string& host, const std::string& iface, int mbit);
  absl::Status SetLinkUp(const std::string& host, const std::string& iface, bool up);

  // Starts argv inside a host with stdout/stderr to files under the lab's
  // directory; returns the pid.
  absl::StatusOr<pid_t> Spawn(const std::string& host,
                              const std::vector<std::string>& argv,
                              const std::string& log_name);
  // Waits for a line containing `needle` in a log; returns that line.
  absl::StatusOr<std::string> WaitForLog(const std::string& log_name,
                                         const std::string& needle,
                                         absl::Duration timeout);
  std::string ReadLog(const std::string& log_name) const;
  // Waits for pid to exit; its exit code, or DEADLINE_EXCEEDED (the process
  // is then killed).
  absl::StatusOr<int> Wait(pid_t pid, absl::Duration timeout);

  std::string Namespace(const std::string& host) const;
  // "<a><b>": the interface on host a that leads to host b.
  static std::string Iface(const std::string& a, const std::string& b) { return a + b; }

 private:
  static void RemoveStaleNamespaces();

  std::string prefix_;
  std::string dir_;
  std::vector<std::string> hosts_;
  std::vector<pid_t> pids_;
};

}  // namespace nodeprobe::lab
