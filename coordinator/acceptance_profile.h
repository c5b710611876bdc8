// File: acceptance_profile.h
// The profile's `acceptance:` section: the organisational half of the
// production gate (who owns each layer, who answers alerts, where the
// dashboards, rollback and upgrade procedures are, the known limitations
// and the service objective). The gate checklist (acceptance_gate.h) shows
// each as written, or names the key that would supply it.
//   acceptance:
//     owners: {host: ..., fabric: ..., kubernetes: ..., storage: ..., application: ...}
//     alert_owner: "oncall-fabric@example.org"
//     dashboards: ["https://grafana.example.org/d/fabric"]
//     rollback: "https://wiki.example.org/runbooks/rollback"   # or a document id
//     upgrade: "RUNBOOK-12"
//     limitations: ["rail 3 runs at 200G until the optics swap"]
//     service_objective: "all_reduce 8 GiB busbw >= 360 GB/s at p95"
#pragma once

#include <array>
#include <map>
#include <string>
#include <vector>

namespace nodeprobe {

struct Profile;

// The layers acceptance.owners names, in the order the gate lists them.
inline constexpr std::array<const char*, 5> kOwnerLayers = {"host", "fabric", "kubernetes",
                                                            "storage", "application"};

struct AcceptanceProfile {
  static constexpr char kSection[] = "acceptance";  // its top-level key
  std::map<std::string, std::string> owners;  // layer -> who answers for it
  std::string alert_owner;
  std::vector<std::string> dashboards;  // http(s) URLs
  std::string rollback;                 // a document reference or URL
  std::string upgrade;                  // a document reference or URL
  std::vector<std::string> limitations;
  std::string service_objective;
};

// The profile's acceptance section (empty when it has none).

}  // namespace nodeprobe
