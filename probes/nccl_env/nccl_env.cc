// File: nccl_env.cc
#include "probes/nccl_env/nccl_env.h"

#include <unistd.h>

#include <algorithm>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "probes/framework/result_util.h"

namespace nodeprobe::nccl_env {
namespace {

using job::Get;

bool Matches(const List& l, const Entry& e, const std::string& name, int port) {
  const bool name_ok = l.exact ? name == e.name : name.rfind(e.name, 0) == 0;
  return name_ok && (e.port < 0 || port < 0 || e.port == port);
}

void Invalid(v1::ProbeResult* r, const std::string& var, const std::string& value,
             const std::string& what) {
  AddFinding(r, "NCCL_ENV_INVALID", var, absl::StrCat(var, "=", value, " ", what));
}

std::string Names(const std::vector<std::string>& names) {
  return names.empty() ? "none" : absl::StrJoin(names, ", ");
}

void JudgeHca(const std::string& value, const std::vector<Device>& devices, v1::ProbeResult* r) {
  const List l = ParseList(value);
  std::vector<std::string> here;
  for (const Device& d : devices) here.push_back(d.name);
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
    const std::string entry = e.port < 0 ? e.name : absl::StrCat(e.name, ":", e.port);
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
  std::vector<std::string> up;
  bool selected = false;
  for (const Link& k : links) {
    if (!k.up) continue;
    up.push_back(k.name);
    selected |= Selects(l, k.name);
  }
  if (!selected) {
    Invalid(r, "NCCL_SOCKET_IFNAME", value,
            absl::StrCat(l.exclude ? "leaves" : "matches", " no up interface here (up: ", Names(up),
                         ")"));
  }
}

void JudgeGidIndex(const std::string& value, const std::string& hca,
                   const std::vector<Device>& devices, v1::ProbeResult* r) {
  int index = -1;
  if (!absl::SimpleAtoi(value, &index) || index < 0 || index > 255) {
    Invalid(r, "NCCL_IB_GID_INDEX", value, "is not a GID index (0-255)");
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

List ParseList(const std::string& raw) {
  List l;
  absl::string_view v = absl::StripAsciiWhitespace(raw);
  if (absl::ConsumePrefix(&v, "^")) l.exclude = true;
  if (absl::ConsumePrefix(&v, "=")) l.exact = true;
  for (absl::string_view item : absl::StrSplit(v, ',', absl::SkipWhitespace())) {
    Entry e;
    item = absl::StripAsciiWhitespace(item);
    const size_t colon = item.rfind(':');
    int port = 0;
    if (colon != absl::string_view::npos && absl::SimpleAtoi(item.substr(colon + 1), &port)) {
      e.port = port;
      item = item.substr(0, colon);
    }
    e.name = std::string(item);
    l.entries.push_back(std::move(e));
  }
  return l;
}

bool Selects(const List& l, const std::string& name, int port) {
  bool any = false;
  for (const Entry& e : l.entries) any |= Matches(l, e, name, port);
  return l.exclude ? !any : any;
}

void Judge(const job::Env& env, const std::vector<Device>& devices, const std::vector<Link>& links,
           v1::ProbeResult* r) {
  for (const auto& [key, value] : env) {
    if (key.rfind("NCCL_", 0) == 0) AddEvidence(r, "env." + key, value);
  }
  const bool ib_off = Get(env, "NCCL_IB_DISABLE") == "1";
  if (const std::string v = Get(env, "NCCL_IB_HCA"); !v.empty() && !ib_off) JudgeHca(v, devices, r);
  if (const std::string v = Get(env, "NCCL_SOCKET_IFNAME"); !v.empty()) JudgeIfname(v, links, r);
  if (const std::string v = Get(env, "NCCL_IB_GID_INDEX"); !v.empty() && !ib_off) {
    JudgeGidIndex(v, Get(env, "NCCL_IB_HCA"), devices, r);
  }
  if (const std::string v = Get(env, "NCCL_TOPO_FILE");
      !v.empty() && access(v.c_str(), R_OK) != 0) {
    Invalid(r, "NCCL_TOPO_FILE", v, "is not a readable file here (mount it into the container)");
  }
  static const char* const kLevels[] = {"LOC", "NVL", "PIX", "PXB", "PHB", "SYS"};
  for (const char* var : {"NCCL_NET_GDR_LEVEL", "NCCL_P2P_LEVEL"}) {
    const std::string v = Get(env, var);
    int n = 0;
    if (v.empty() || (absl::SimpleAtoi(v, &n) && n >= 0 && n <= 5) ||
        std::find(std::begin(kLevels), std::end(kLevels), v) != std::end(kLevels)) {
      continue;
    }
    Invalid(r, var, v, "is not a level NCCL knows (LOC, NVL, PIX, PXB, PHB, SYS or 0-5)");
  }
}

}  // namespace nodeprobe::nccl_env
