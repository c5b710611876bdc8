// The finding-code table is complete: every UPPER_SNAKE string literal in
// the product's sources is a known code or one of the few other constants
// listed here (environment variables, os-release keys, kernel words).
#include "probes/framework/finding_codes.h"
#include "probes/framework/profile.h"

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "gtest/gtest.h"

namespace nodeprobe {
namespace {

TEST(FindingCodesTest, EveryCodeTheSourcesEmitIsListed) {
  const std::set<std::string> not_codes = {
      "NODEPROBE_COORDINATOR", "XDG_DATA_HOME", "NO_COLOR",  // environment
      "NODEPROBE_FORCE_NO_DMABUF", "NODEPROBE_FORCE_NO_IOVA2", "NODEPROBE_NVML_LIBRARY",
      "PRETTY_NAME", "VERSION_ID",                           // os-release keys
      "ACTIVE_DEFER",                                        // an IB port state
      "HWLOC_FSROOT", "NCCL_TOPO_FILE", "NCCL_NET_GDR_LEVEL",  // environment
      "NCCL_DEBUG_FILE", "NODEPROBE_CUDART_LIBRARY", "NODEPROBE_NCCL_LIBRARY",
      "NODEPROBE_RUNTIME_DIR", "RUNTIME_DIRECTORY", "NODEPROBE_OPERATORS",  // environment
      "NODEPROBE_LLDPD_SOCKET", "SLURMD_NODENAME",
  };
  const std::regex literal("\"([A-Z][A-Z0-9]*(_[A-Z0-9]+)+)\"");
  int files = 0;
  for (const char* dir : {"agent", "cli", "coordinator", "platform", "probes", "tasks"}) {
    for (const auto& e :
         std::filesystem::recursive_directory_iterator(std::string(NODEPROBE_SOURCE_DIR) + "/" + dir)) {
      const std::string path = e.path().string();
      if (e.path().extension() != ".cc" || path.find("_test.cc") != std::string::npos) continue;
      ++files;
      std::stringstream text;
      text << std::ifstream(path).rdbuf();
      const std::string s = text.str();
      for (std::sregex_iterator it(s.begin(), s.end(), literal), end; it != end; ++it) {
        const std::string code = (*it)[1];
        if (path.find("finding_codes.cc") != std::string::npos) continue;
        EXPECT_TRUE(IsKnownFindingCode(code) || not_codes.count(code) ||
                    IsSettableNcclVariable(code))  // NCCL_* we may set
            << code << " in " << path << " is not in probes/framework/finding_codes.cc";
      }
    }
  }
  EXPECT_GT(files, 50);
}

TEST(FindingCodesTest, CodesAreUniqueAndExplained) {
  std::set<std::string> seen;
  for (const FindingCode& c : FindingCodes()) {
    EXPECT_TRUE(seen.insert(c.code).second) << c.code;
    EXPECT_GT(std::string(c.meaning).size(), 10u) << c.code;
  }
}

TEST(FindingCodesTest, ClosestCodeForATypo) {
  EXPECT_EQ(ClosestFindingCode("RDMA_PORT_DWON"), "RDMA_PORT_DOWN");
  EXPECT_EQ(ClosestFindingCode("pcie_link_width_degraded"), "PCIE_LINK_WIDTH_DEGRADED");
  EXPECT_FALSE(IsKnownFindingCode("RDMA_PORT_DWON"));
}

}  // namespace
}  // namespace nodeprobe
