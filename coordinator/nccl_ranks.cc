#include "coordinator/nccl_ranks.h"

#include <set>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "probes/nccl/nccl_profile.h"

namespace nodeprobe::coordinator {

int GpusOf(const v1::StageRun& run, const std::string& node) {
  for (const v1::StageReport& rep : run.node_reports()) {
    if (rep.node() != node) continue;
    for (const v1::ProbeResult& r : rep.results()) {
      if (r.probe() == "nccl" && r.verdict() != v1::SKIP && r.has_collective()) {
        return static_cast<int>(r.collective().nranks());
      }
    }
  }
  return 0;
}

std::map<std::string, std::string> NcclEnvFor(const v1::Registration& reg, const Profile& profile) {
  std::vector<std::string> hcas, ifnames;
  std::set<uint32_t> gids;
  bool every_roce_gid_known = true;
  for (const v1::Rail& rail : reg.rails()) {
    if (!rail.rdma_device().empty()) {
      hcas.push_back(absl::StrCat(rail.rdma_device(), ":", rail.port() ? rail.port() : 1));
    }
    if (!rail.netdev().empty()) ifnames.push_back(rail.netdev());
    if (rail.link_layer() == "Ethernet" && !rail.rdma_device().empty()) {
      if (rail.has_gid_index()) gids.insert(rail.gid_index());
      every_roce_gid_known &= rail.has_gid_index();
    }
  }
  std::map<std::string, std::string> env;
  // "=" asks NCCL for exactly these names, not every name they prefix.
  if (!hcas.empty()) env["NCCL_IB_HCA"] = "=" + absl::StrJoin(hcas, ",");
  if (!ifnames.empty()) env["NCCL_SOCKET_IFNAME"] = "=" + absl::StrJoin(ifnames, ",");
  // NCCL takes one GID index for every HCA: set only when the RoCE rails
  // agree on the one our transfers use; otherwise NCCL picks its own.
  if (gids.size() == 1 && every_roce_gid_known) {
    env["NCCL_IB_GID_INDEX"] = absl::StrCat(*gids.begin());
  }
  for (const auto& [k, v] : profile.Section<NcclRules>().env) env[k] = v;
  return env;
}

}  // namespace nodeprobe::coordinator
