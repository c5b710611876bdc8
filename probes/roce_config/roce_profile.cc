// File: roce_profile.cc
// Declares `roce:` (np_profile_section in this folder's CMakeLists):
// compiled into the profile library, so it uses only what that links.
#include "probes/roce_config/roce_profile.h"

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "probes/framework/profile.h"
#include "probes/framework/profile_section.h"
#include "probes/nccl/nccl_profile.h"

namespace nodeprobe {
namespace {

absl::StatusOr<int> WholeNumber(const ProfileReader& r, const YAML::Node& v,
                                const std::string& name, int max, const char* what) {
  absl::StatusOr<double> n = r.Number(v, name);
  if (!n.ok()) return n.status();
  if (*n < 0 || *n > max || *n != static_cast<int>(*n)) {
    return r.Error(v, absl::StrCat(name, " must be ", what, ", 0 .. ", max));
  }
  return static_cast<int>(*n);
}

absl::Status ReadKey(const ProfileReader& r, const std::string& key, const YAML::Node& v,
                     RoceDesign& into) {
  const std::string name = absl::StrCat(RoceDesign::kSection, ".", key);
  if (key == "tos" || key == "rdma_priority") {
    const bool tos = key == "tos";
    absl::StatusOr<int> n = WholeNumber(r, v, name, tos ? 255 : 7,
                                        tos ? "an IP ToS byte (DSCP << 2 | ECN)" : "a priority");
    if (!n.ok()) return n.status();
    (tos ? into.tos : into.rdma_priority) = *n;
  } else if (key == "trust") {
    absl::StatusOr<std::string> s = r.OneOf(v, name, {"dscp", "pcp"});
    if (!s.ok()) return s.status();
    into.trust = *s;
  } else {  // lossless, ecn
    absl::StatusOr<bool> b = r.Bool(v, name);
    if (!b.ok()) return b.status();
    (key == "lossless" ? into.lossless : into.ecn) = *b;
  }
  return absl::OkStatus();
}

}  // namespace

ProfileSection RoceProfileSection() {
  return DeclareSection<RoceDesign>(
      {{"roce.tos", "0 .. 255", "not judged (NCCL_IB_TC of nccl.env, when set, is the class)",
        "the ToS RDMA traffic carries: rdma_cm's default RoCE ToS and the device's traffic "
        "class must say it, and RDMA transfers send with it"},
       {"roce.rdma_priority", "0 .. 7", "derived from the ToS through the DSCP map",
        "the priority RDMA traffic rides"},
       {"roce.trust", "dscp | pcp", "not judged",
        "what the NIC classifies by: dscp (an APP table of DSCP -> priority) or pcp"},
       {"roce.lossless", "true | false", "not judged",
        "PFC on the RDMA priority (true) and on no other priority: PFC elsewhere is a "
        "finding (PFC scope)"},
       {"roce.ecn", "true | false", "not judged",
        "ECN on the RDMA priority for both roles (roce_np marks CNPs, roce_rp reacts)"}},
      ReadKey);
}

std::optional<int> DesignedTos(const Profile& profile, std::string* source) {
  // NCCL_IB_TC first: it is what NCCL stamps, so what must be lossless.
  int v = 0;
  if (auto tc = profile.Section<NcclRules>().env.find("NCCL_IB_TC");
      tc != profile.Section<NcclRules>().env.end() && absl::SimpleAtoi(tc->second, &v) && v >= 0 &&
      v < 256) {
    if (source) *source = "NCCL_IB_TC in nccl.env";
    return v;
  }
  if (std::optional<int> tos = profile.Section<RoceDesign>().tos) {
    if (source) *source = "roce.tos";
    return tos;
  }
  return std::nullopt;
}

}  // namespace nodeprobe
