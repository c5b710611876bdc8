#include "agent/link_flap.h"

#include <google/protobuf/util/time_util.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/clock.h"
#include "platform/child_process.h"
#include "platform/netlink_links.h"
#include "platform/route.h"
#include "probes/framework/framework_findings.h"
#include "probes/framework/result_util.h"

namespace nodeprobe::agent {
namespace {

v1::ProbeResult Refused(const std::string& why) {
  return ErrorResult("link-flap", findings::kFailureRefused.code, why);
}

// Polls the link every 20 ms until it is `up` or `until` passes.
bool WaitFor(const std::string& netdev, bool up, absl::Time until, absl::Time* seen) {
  while (true) {
    absl::StatusOr<bool> now = platform::LinkIsUp(netdev);
    if (now.ok() && *now == up) {
      *seen = absl::Now();
      return true;
    }
    if (absl::Now() >= until) return false;
    absl::SleepFor(absl::Milliseconds(20));
  }
}

// This network namespace's inode: markers of lab agents in other
// namespaces (one filesystem) are not ours to act on.
std::string NetnsId() {
  struct stat st {};
  if (stat("/proc/self/ns/net", &st) != 0) return "0";
  return absl::StrCat(st.st_ino);
}

std::string MarkerPath(const std::string& netdev) {
  return absl::StrCat(FlapMarkerDir(), "/flapping/", NetnsId(), "-", netdev);
}

}  // namespace

std::string FlapMarkerDir() {
  for (const char* var : {"NODEPROBE_RUNTIME_DIR", "RUNTIME_DIRECTORY"}) {
    const char* v = getenv(var);
    if (v && *v) return v;
  }
  return "/run/nodeprobe";
}

std::vector<std::string> RestoreLinksLeftDown() {
  std::vector<std::string> done;
  const std::string dir = FlapMarkerDir() + "/flapping";
  const std::string prefix = NetnsId() + "-";
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind(prefix, 0) != 0) continue;
    const std::string netdev = name.substr(prefix.size());
    std::ifstream in(entry.path());
    pid_t pid = 0;
    in >> pid;
    if (pid > 0 && kill(pid, 0) == 0) continue;  // its flapper is still at work
    const absl::Status up = platform::SetLinkUp(netdev, true);
    done.push_back(up.ok() ? absl::StrCat(netdev, " was left down by a failure test; put up")
                           : absl::StrCat(netdev, " was left down by a failure test and could "
                                                  "not be put up: ", up.message()));
    if (up.ok() || absl::IsNotFound(up)) std::filesystem::remove(entry.path(), ec);
  }
  return done;
}

int LinkFlapMain(const std::string& netdev, double down_seconds) {
  // Detached from the agent; a hang-up or terminal signal must not stop it
  // between down and up.
  signal(SIGHUP, SIG_IGN);
  signal(SIGINT, SIG_IGN);
  signal(SIGTERM, SIG_IGN);
  std::error_code ec;
  std::filesystem::create_directories(FlapMarkerDir() + "/flapping", ec);
  const std::string marker = MarkerPath(netdev);
  {
    std::ofstream out(marker, std::ios::trunc);
    out << getpid() << "\n";
  }
  // The routes through the link go with it: they are put back after.
  const absl::Status s = platform::KeepingRoutes(netdev, [&] {
    if (absl::Status down = platform::SetLinkUp(netdev, false); !down.ok()) return down;
    absl::SleepFor(absl::Seconds(down_seconds));
    absl::Status up;
    for (int attempt = 0; attempt < 50; ++attempt) {
      up = platform::SetLinkUp(netdev, true);
      if (up.ok()) break;
      absl::SleepFor(absl::Milliseconds(100));
    }
    return up;
  });
  if (platform::LinkIsUp(netdev).value_or(false)) std::filesystem::remove(marker, ec);
  return s.ok() ? 0 : 1;
}

namespace {

// The interface a flap takes down: the named rail's, or the one routing to
// the peer; never loopback, one that is down already, or a non-rail
// ("" with `why` set when refused).
std::string FlapTarget(const v1::FlapLink& request, const std::vector<std::string>& rail_netdevs,
                       std::string* why) {
  std::string netdev = request.netdev();
  if (!netdev.empty() &&
      std::find(rail_netdevs.begin(), rail_netdevs.end(), netdev) == rail_netdevs.end()) {
    *why = absl::StrCat("'", netdev,
                        "' is not one of this node's rails (name a rail's interface, or none for "
                        "the one routing to the peer)");
    return "";
  }
  if (netdev.empty()) {
    absl::StatusOr<platform::Egress> egress = platform::EgressTo(request.peer_host());
    if (!egress.ok()) {
      *why = absl::StrCat("no route to ", request.peer_host(), ": ", egress.status().message());
      return "";
    }
    netdev = egress->netdev;
  }
  if (netdev.empty() || netdev == "lo") {
    *why = absl::StrCat("the path to ", request.peer_host(),
                        " is loopback: a failure test needs a link between two nodes");
    return "";
  }
  absl::StatusOr<bool> up = platform::LinkIsUp(netdev);
  if (!up.ok() || !*up) {
    *why = absl::StrCat(netdev, up.ok() ? " is already down" : " cannot be read: ",
                        up.ok() ? "" : up.status().message(),
                        ": bring it up before a failure test");
    return "";
  }
  return netdev;
}

// The flap's outcome judged: never seen down, not back up (FAIL: the node
// is left without its link), or down and up again as asked.
void JudgeFlap(const std::string& netdev, bool went_down, bool back, absl::Time asked,
               absl::Time down_at, absl::Time up_at, v1::ProbeResult* r) {
  if (!went_down) {
    AddFinding(r, findings::kFailureRefused.code, netdev,
               absl::StrCat(netdev, " was never seen down within 2 s of asking"));
  }
  if (!back) {
    AddFinding(r, findings::kFailureNotRestored.code, netdev,
               absl::StrCat(netdev,
                            " is still down after the failure test: bring it up by hand (ip link "
                            "set ",
                            netdev, " up)"));
  }
  r->set_verdict(r->findings_size() == 0 ? v1::PASS : back ? v1::ERROR : v1::FAIL);
  if (went_down && back) {
    r->set_reason(absl::StrFormat("%s down %.2f s after asking, up again after %.2f s (%s)",
                                  netdev, absl::ToDoubleSeconds(down_at - asked),
                                  absl::ToDoubleSeconds(up_at - down_at),
                                  r->link_flap().restored_by()));
  }
}

}  // namespace

v1::ProbeResult FlapLink(const v1::FlapLink& request, bool allowed,
                         const std::vector<std::string>& rail_netdevs,
                         const std::string& self_exe, absl::Time deadline) {
  if (!allowed) {
    return Refused(
        "this agent does not take its links down on a coordinator's request "
        "(it was not started with --allow-disruptive)");
  }
  const double seconds = request.down_seconds();
  if (!(seconds >= 0.1 && seconds <= 60)) {
    return Refused(absl::StrFormat(
        "a link down for %g s is outside 0.1-60 s (the profile's failure.link_down_s)", seconds));
  }
  std::string why;
  const std::string netdev = FlapTarget(request, rail_netdevs, &why);
  if (netdev.empty()) return Refused(why);
  v1::ProbeResult r;
  r.set_probe("link-flap");
  v1::LinkFlapReport* report = r.mutable_link_flap();
  report->set_netdev(netdev);
  report->set_down_seconds(seconds);
  const absl::Time asked = absl::Now();
  *report->mutable_asked_at() = StampOf(asked);
  absl::Status started =
      platform::StartDetached(self_exe, {"link-flap", "--netdev", netdev, "--down-seconds",
                                         absl::StrFormat("%.3f", seconds)});
  if (!started.ok()) {
    return ErrorResult("link-flap", findings::kFailureRefused.code,
                       absl::StrCat("the flapper did not start: ", started.message()));
  }
  absl::Time down_at, up_at;
  const bool went_down =
      WaitFor(netdev, false, std::min(deadline, asked + absl::Seconds(2)), &down_at);
  if (went_down) *report->mutable_down_at() = StampOf(down_at);
  const absl::Time give_up = std::min(deadline, asked + absl::Seconds(seconds + 3));
  bool back = WaitFor(netdev, true, give_up, &up_at);
  report->set_restored_by("flapper");
  if (!back) {
    // The flapper is gone or stuck: put the link back from here.
    (void)platform::SetLinkUp(netdev, true);
    back = WaitFor(netdev, true, absl::Now() + absl::Seconds(2), &up_at);
    report->set_restored_by("agent");
  }
  if (back) *report->mutable_up_at() = StampOf(up_at);
  report->set_restored(back);
  JudgeFlap(netdev, went_down, back, asked, down_at, up_at, &r);
  return r;
}

}  // namespace nodeprobe::agent
