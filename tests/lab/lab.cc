#include "tests/lab/lab.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/clock.h"

namespace nodeprobe::lab {
namespace {

// Runs a shell command; on failure the error carries its output.
absl::Status Shell(const std::string& command) {
  std::string full = absl::StrCat(command, " 2>&1");
  FILE* p = popen(full.c_str(), "r");
  if (p == nullptr) return absl::InternalError("popen failed");
  std::string out;
  char buf[512];
  while (fgets(buf, sizeof(buf), p) != nullptr) out += buf;
  int rc = pclose(p);
  if (rc != 0) {
    return absl::InternalError(absl::StrCat("`", command, "` failed: ", out));
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status Lab::Available() {
  if (geteuid() != 0) return absl::FailedPreconditionError("the lab needs root");
  std::string ns = absl::StrCat("npprobe", getpid());
  absl::Status s = Shell(absl::StrCat("ip netns add ", ns));
  if (!s.ok()) return absl::FailedPreconditionError(absl::StrCat("ip netns: ", s.message()));
  (void)Shell(absl::StrCat("ip netns del ", ns));
  return absl::OkStatus();
}

Lab::Lab() : prefix_(absl::StrCat("np", getpid(), "-")) {
  char tmpl[] = "/tmp/nodeprobe-lab-XXXXXX";
  dir_ = mkdtemp(tmpl) ? tmpl : "/tmp";
  RemoveStaleNamespaces();
}

void Lab::RemoveStaleNamespaces() {
  // A test process that crashed cannot tear down its lab; its namespaces
  // ("np<pid>-<host>") are removed here once that pid is gone.
  FILE* p = popen("ip netns list 2>/dev/null", "r");
  if (p == nullptr) return;
  std::vector<std::string> stale;
  char line[256];
  while (fgets(line, sizeof(line), p) != nullptr) {
    std::string name(line);
    name = name.substr(0, name.find_first_of(" \n"));
    int pid = 0;
    size_t dash = name.find('-');
    if (name.rfind("np", 0) != 0 || dash == std::string::npos ||
        !absl::SimpleAtoi(name.substr(2, dash - 2), &pid)) {
      continue;
    }
    if (kill(pid, 0) != 0 && errno == ESRCH) stale.push_back(name);
  }
  pclose(p);
  for (const std::string& ns : stale) {
    (void)Shell(absl::StrCat("ip netns pids ", ns, " | xargs -r kill -9"));
    (void)Shell(absl::StrCat("ip netns del ", ns));
  }
}

Lab::~Lab() {
  for (pid_t pid : pids_) {
    kill(pid, SIGKILL);
    waitpid(pid, nullptr, 0);
  }
  for (const std::string& host : hosts_) {
    // Anything still running inside (started by a test's shell) goes too.
    (void)Shell(absl::StrCat("ip netns pids ", Namespace(host), " | xargs -r kill -9"));
    (void)Shell(absl::StrCat("ip netns del ", Namespace(host)));
  }
  std::error_code ec;
  std::filesystem::remove_all(dir_, ec);
}

std::string Lab::Namespace(const std::string& host) const { return prefix_ + host; }

absl::Status Lab::AddHost(const std::string& name) {
  absl::Status s = Shell(absl::StrCat("ip netns add ", Namespace(name)));
  if (!s.ok()) return s;
  hosts_.push_back(name);
  return Exec(name, "ip link set lo up");
}

absl::Status Lab::Exec(const std::string& host, const std::string& command) {
  return Shell(absl::StrCat("ip netns exec ", Namespace(host), " sh -c '", command, "'"));
}

absl::Status Lab::Link(const std::string& a, const std::string& a_cidr,
                       const std::string& b, const std::string& b_cidr, int mtu) {
  const std::string ia = Iface(a, b), ib = Iface(b, a);
  absl::Status s = Shell(absl::StrCat("ip link add ", ia, " netns ", Namespace(a),
                                      " mtu ", mtu, " type veth peer name ", ib,
                                      " netns ", Namespace(b), " mtu ", mtu));
  if (s.ok()) s = Exec(a, absl::StrCat("ip addr add ", a_cidr, " dev ", ia, " && ip link set dev ", ia, " up"));
  if (s.ok()) s = Exec(b, absl::StrCat("ip addr add ", b_cidr, " dev ", ib, " && ip link set dev ", ib, " up"));
  return s;
}

absl::Status Lab::EnableForwarding(const std::string& host) {
  return Exec(host, "sysctl -qw net.ipv4.ip_forward=1");
}

absl::Status Lab::Shape(const std::string& host, const std::string& iface, int mbit) {
  // burst must cover at least rate/HZ; 1 MiB does for rates up to ~8 Gbit
  // at HZ=1000 and is < 1% of a multi-second run at 1 Gbit.
  return Exec(host, absl::StrCat("tc qdisc replace dev ", iface, " root tbf rate ",
                                 mbit, "mbit burst 1mb latency 100ms"));
}

absl::Status Lab::SetLinkUp(const std::string& host, const std::string& iface, bool up) {
  return Exec(host, absl::StrCat("ip link set dev ", iface, up ? " up" : " down"));
}

absl::StatusOr<pid_t> Lab::Spawn(const std::string& host,
                                 const std::vector<std::string>& argv,
                                 const std::string& log_name) {
  const std::string log = absl::StrCat(dir_, "/", log_name);
  std::vector<std::string> full = {"ip", "netns", "exec", Namespace(host)};
  full.insert(full.end(), argv.begin(), argv.end());
  pid_t pid = fork();
  if (pid < 0) return absl::InternalError("fork failed");
  if (pid == 0) {
    int fd = open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    dup2(fd, 1);
    dup2(fd, 2);
    int null = open("/dev/null", O_RDONLY);
    dup2(null, 0);
    std::vector<char*> args;
    for (std::string& a : full) args.push_back(a.data());
    args.push_back(nullptr);
    execvp(args[0], args.data());
    _exit(127);
  }
  pids_.push_back(pid);
  return pid;
}

std::string Lab::ReadLog(const std::string& log_name) const {
  std::stringstream s;
  s << std::ifstream(absl::StrCat(dir_, "/", log_name)).rdbuf();
  return s.str();
}

absl::StatusOr<std::string> Lab::WaitForLog(const std::string& log_name,
                                            const std::string& needle,
                                            absl::Duration timeout) {
  absl::Time deadline = absl::Now() + timeout;
  while (absl::Now() < deadline) {
    std::istringstream lines(ReadLog(log_name));
    for (std::string line; std::getline(lines, line);) {
      if (line.find(needle) != std::string::npos) return line;
    }
    usleep(20000);
  }
  return absl::DeadlineExceededError(absl::StrCat(
      "no '", needle, "' in ", log_name, " after ", absl::FormatDuration(timeout),
      ": ", ReadLog(log_name)));
}

absl::StatusOr<int> Lab::Wait(pid_t pid, absl::Duration timeout) {
  absl::Time deadline = absl::Now() + timeout;
  while (absl::Now() < deadline) {
    int status = 0;
    pid_t r = waitpid(pid, &status, WNOHANG);
    if (r == pid) {
      pids_.erase(std::remove(pids_.begin(), pids_.end(), pid), pids_.end());
      return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    }
    usleep(20000);
  }
  kill(pid, SIGKILL);
  return absl::DeadlineExceededError(
      absl::StrCat("process ", pid, " still running after ", absl::FormatDuration(timeout)));
}

}  // namespace nodeprobe::lab
