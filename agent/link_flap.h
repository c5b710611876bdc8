// File: link_flap.h
// The node's half of the failure stage's link-down scenario. The agent
// checks the request (only with --allow-disruptive; only an interface of
// its own rails or the one routing to the peer; never loopback; 0.1-60 s;
// the link must be up to begin with), then starts `nodeprobe link-flap`
// detached (platform::StartDetached): that process takes the link down,
// sleeps, and puts it up, whatever happens to the agent meanwhile. The
// agent watches the link through netlink and reports when it went down and
// came back; if it is still down 3 s past its time (the flapper was
// killed), the agent puts it up itself.
#pragma once

#include <string>
#include <vector>

#include "absl/time/time.h"
#include "nodeprobe/v1/result.pb.h"
#include "nodeprobe/v1/task.pb.h"

namespace nodeprobe::agent {

// The detached flapper: down, sleep, up (retried); exit 0 when it is up.
// While the link is down a marker (its pid) lies in FlapMarkerDir(), named
// by network namespace and interface, so that a flapper killed with its
// agent's cgroup (systemctl stop) is undone when the agent starts again.
int LinkFlapMain(const std::string& netdev, double down_seconds);

// $NODEPROBE_RUNTIME_DIR, else $RUNTIME_DIRECTORY (systemd), else
// /run/nodeprobe; markers go in its flapping/ folder.
std::string FlapMarkerDir();

// At agent start: every marker of this network namespace whose flapper is
// gone has its link put up again and is removed. Returns what it did, one
// line per link, for the log.
std::vector<std::string> RestoreLinksLeftDown();

// ProbeResult "link-flap" (detail.link_flap): PASS when the link went down
// and is up again at the end; FAILURE_REFUSED (ERROR) for a request this
// agent does not take; FAILURE_NOT_RESTORED (FAIL) when it stayed down.
v1::ProbeResult FlapLink(const v1::FlapLink& request, bool allowed,
                         const std::vector<std::string>& rail_netdevs,
                         const std::string& self_exe, absl::Time deadline);

}  // namespace nodeprobe::agent
