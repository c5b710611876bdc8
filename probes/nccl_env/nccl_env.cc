#include "probes/nccl_env/nccl_env.h"

#include <unistd.h>

#include <algorithm>
#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/strip.h"
#include "probes/framework/result_util.h"
#include "probes/nccl_env/nccl_env_findings.h"

namespace nodeprobe::nccl_env {
namespace {

using job::Get;

bool Matches(const List& l, const Entry& e, const std::string& name, int port) {
  const bool name_ok = l.exact ? name == e.name : name.rfind(e.name, 0) == 0;
  return name_ok && (e.port < 0 || port < 0 || e.port == port);
}

void Invalid(v1::ProbeResult* r, const std::string& var, const std::string& value,
             const std::string& what) {
  AddFinding(r, findings::kNcclEnvInvalid.code, var, absl::StrCat(var, "=", value, " ", what));
}

std::string Names(const std::vector<std::string>& names) {
  return names.empty() ? "none" : absl::StrJoin(names, ", ");
}

void JudgeHca(const std::string& value, const std::vector<Device>& devices, v1::ProbeResult* r) {
  const List l = ParseList(value);
  std::vector<std::string> here;
  for (const Device& d : devices) here.push_back(d.name);
  if (l.entries.empty()) {
    AddEvidence(r, "NCCL_IB_HCA", l.exclude ? "an empty exclude list: NCCL uses no device"
                                             : "an empty list: NCCL uses every device");
    if (l.exclude) Invalid(r, "NCCL_IB_HCA", value, "excludes every RDMA device");
    return;
  }
  if (l.exclude) {
    bool left = false;
    for (const Device& d : devices) left |= Selects(l, d.name);
    if (!left)
      Invalid(r, "NCCL_IB_HCA", value, "leaves no RDMA device (here: " + Names(here) + ")");
    return;
  }
  for (const Entry& e : l.entries) {
    bool device = false, active = false;
    for (const Device& d : devices) {
      if (!Matches(l, e, d.name, -1)) continue;
      device = true;
      for (const Port& p : d.ports) active |= p.active && (e.port < 0 || p.port == e.port);
    }
    std::string entry = e.port < 0 ? e.name : absl::StrCat(e.name, ":", e.port);
    // NCCL does not trim: a space in an entry is part of the name.
    if (entry.find_first_of(" \t") != std::string::npos) {
      entry = absl::StrCat("\"", entry, "\" (NCCL does not trim spaces)");
    }
    if (!device) {
      Invalid(r, "NCCL_IB_HCA", value,
              absl::StrCat("names ", entry,
                           ", which matches no RDMA device here (here: ", Names(here), ")"));
    } else if (!active) {
      Invalid(r, "NCCL_IB_HCA", value,
              absl::StrCat("selects ", entry, ", which has no ACTIVE port here"));
    }
  }
}

void JudgeIfname(const std::string& value, const std::vector<Link>& links, v1::ProbeResult* r) {
  const List l = ParseList(value);
  std::vector<std::string> up, selected;
  for (const Link& k : links) {
    if (!k.up) continue;
    up.push_back(k.name);
    if (Selects(l, k.name)) selected.push_back(k.name);
  }
  const bool spaces = value.find_first_of(" \t") != std::string::npos;
  if (selected.empty()) {
    Invalid(r, "NCCL_SOCKET_IFNAME", value,
            absl::StrCat(l.exclude ? "leaves" : "matches", " no up interface here (up: ", Names(up),
                         ")", spaces ? "; NCCL does not trim spaces from the names" : ""));
    return;
  }
  // Only loopback: ranks on other nodes cannot reach it (bootstrap, and
  // sockets as the fallback transport).
  if (std::all_of(selected.begin(), selected.end(),
                  [](const std::string& n) { return n.rfind("lo", 0) == 0; })) {
    AddFinding(r, findings::kNcclSocketLoopbackOnly.code, "NCCL_SOCKET_IFNAME",
               absl::StrCat("NCCL_SOCKET_IFNAME=", value, " leaves only loopback (",
                            Names(selected), "): a job across nodes cannot bootstrap over it"));
  }
}

void JudgeGidIndex(const job::Env& env, const std::vector<Device>& devices, v1::ProbeResult* r) {
  const std::string value = Get(env, "NCCL_IB_GID_INDEX");
  const std::string hca = Get(env, "NCCL_IB_HCA");
  // NCCL_PARAM reads it with strtoll(value, NULL, 0): hex (0x3), octal
  // (010 is 8), a numeric prefix ("3abc" is 3), no digits at all is 0; -1
  // (today's default) is automatic.
  bool exact = false;
  const std::optional<long long> parsed = job::NcclParam(env, "NCCL_IB_GID_INDEX", &exact);
  if (!parsed || *parsed < -1 || *parsed > 255) {
    Invalid(r, "NCCL_IB_GID_INDEX", value, "is not a GID index NCCL can use (-1 automatic, 0-255)");
    return;
  }
  const int index = static_cast<int>(*parsed);
  if (!exact) {
    AddEvidence(r, "NCCL_IB_GID_INDEX read as",
                absl::StrCat(index, " (NCCL reads \"", value, "\" with strtoll base 0)"));
  }
  if (index < 0) {
    AddEvidence(r, "NCCL_IB_GID_INDEX", "-1: NCCL picks the GID itself");
    return;
  }
  const List selected = ParseList(hca);
  for (const Device& d : devices) {
    if (!hca.empty() && !Selects(selected, d.name)) continue;
    for (const Port& p : d.ports) {
      if (!p.active || !p.ethernet) continue;
      std::vector<std::string> good;
      bool ok = false;
      for (const Gid& g : p.gids) {
        if (!g.roce_v2 || !g.ipv4) continue;
        good.push_back(absl::StrCat(g.index));
        ok |= g.index == index;
      }
      if (!ok) {
        Invalid(r, "NCCL_IB_GID_INDEX", value,
                absl::StrCat("is not a RoCE v2 GID with an IPv4 address on ", d.name, ":", p.port,
                             " (those here: ", Names(good), ")"));
      }
    }
  }
}

}  // namespace

// NCCL's parseStringList (misc/utils.cc), byte for byte: nothing is
// trimmed (" mlx5_1" is a name with a space, which no device has); an
// entry ends at ',' or ':'; after ':' the port is atoi() of the rest, and
// everything up to the next ',' is skipped ("mlx5_0:1:1" is port 1); empty
// entries are dropped. The '^' and '=' come first, in that order, as the
// callers (net_ib.cc, socket.cc) read them.
List ParseList(const std::string& raw) {
  List l;
  absl::string_view v = raw;
  if (absl::ConsumePrefix(&v, "^")) l.exclude = true;
  if (absl::ConsumePrefix(&v, "=")) l.exact = true;
  std::string name;
  for (size_t i = 0; i <= v.size(); ++i) {
    const char c = i < v.size() ? v[i] : '\0';
    if (c == ':') {
      if (!name.empty()) l.entries.push_back({name, atoi(std::string(v.substr(i + 1)).c_str())});
      name.clear();
      while (i < v.size() && v[i] != ',') ++i;
    } else if (c == ',' || c == '\0') {
      if (!name.empty()) l.entries.push_back({name, -1});
      name.clear();
    } else {
      name += c;
    }
  }
  return l;
}

// NCCL's matchIfList: an empty list matches every name.
bool Selects(const List& l, const std::string& name, int port) {
  bool any = l.entries.empty();
  for (const Entry& e : l.entries) any |= Matches(l, e, name, port);
  return l.exclude ? !any : any;
}

void Judge(const job::Env& env, const std::vector<Device>& devices, const std::vector<Link>& links,
           v1::ProbeResult* r) {
  for (const auto& [key, value] : env) {
    if (key.rfind("NCCL_", 0) == 0) AddEvidence(r, "env." + key, value);
  }
  const bool ib_off = Get(env, "NCCL_IB_DISABLE") == "1";
  if (ib_off && absl::AsciiStrToLower(Get(env, "NCCL_NET")) == "ib") {
    Invalid(r, "NCCL_NET", Get(env, "NCCL_NET"),
            "forces the IB transport while NCCL_IB_DISABLE=1 disables it: NCCL fails at init "
            "(\"network IB not found\")");
  }
  if (const std::string v = Get(env, "NCCL_IB_HCA"); !v.empty() && !ib_off) JudgeHca(v, devices, r);
  if (const std::string v = Get(env, "NCCL_SOCKET_IFNAME"); !v.empty()) JudgeIfname(v, links, r);
  if (!Get(env, "NCCL_IB_GID_INDEX").empty() && !ib_off) JudgeGidIndex(env, devices, r);
  // NCCL_BUFFSIZE is per connection and channel (NCCL_PARAM, strtoll base
  // 0): past a GiB NCCL cannot allocate it for every peer and channel.
  if (const std::string v = Get(env, "NCCL_BUFFSIZE"); !v.empty()) {
    const std::optional<long long> b = job::NcclParam(env, "NCCL_BUFFSIZE");
    if (!b || *b <= 0 || *b > (1ll << 30)) {
      Invalid(r, "NCCL_BUFFSIZE", v,
              "is not a buffer size NCCL can allocate per connection and channel (1 B .. 1 GiB; "
              "the default is 4 MiB)");
    }
  }
  if (const std::string v = Get(env, "NCCL_TOPO_FILE");
      !v.empty() && access(v.c_str(), R_OK) != 0) {
    Invalid(r, "NCCL_TOPO_FILE", v, "is not a readable file here (mount it into the container)");
  }
  // ncclTopoGetLevel: a name of topoPathTypeStr up to SYS (exact, upper
  // case), or anything starting with a digit (strtol, clamped to the last
  // old-style level); else NCCL ignores it and keeps its default.
  static const char* const kLevels[] = {"LOC", "NVL", "NVB", "C2C", "PIX",
                                        "PXB", "PXN", "P2C", "PHB", "SYS"};
  for (const char* var : {"NCCL_NET_GDR_LEVEL", "NCCL_P2P_LEVEL"}) {
    const std::string v = Get(env, var);
    if (v.empty() || (v[0] >= '0' && v[0] <= '9') ||
        std::find(std::begin(kLevels), std::end(kLevels), v) != std::end(kLevels)) {
      continue;
    }
    AddFinding(
        r, findings::kNcclEnvIgnored.code, var,
        absl::StrCat(var, "=", v, " is not a level NCCL knows (", absl::StrJoin(kLevels, ", "),
                     " or a number): NCCL ignores it and keeps its default"));
  }
}

}  // namespace nodeprobe::nccl_env
