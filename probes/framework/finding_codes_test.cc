// The finding-code table is complete and each code is declared once, by the
// folder that raises it: call sites name its constant (findings::kX.code),
// never the string; every other UPPER_SNAKE string literal in the product's
// sources is one of the few other constants listed here (environment
// variables, os-release keys, kernel words).
#include "probes/framework/finding_codes.h"

#include <cctype>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <vector>

#include "gtest/gtest.h"
#include "probes/framework/profile.h"

namespace nodeprobe {
namespace {

TEST(FindingCodesTest, EveryCodeTheSourcesEmitIsListed) {
  const std::set<std::string> not_codes = {
      "NODEPROBE_COORDINATOR",
      "XDG_DATA_HOME",
      "NO_COLOR",  // environment
      "NODEPROBE_FORCE_NO_DMABUF",
      "NODEPROBE_FORCE_NO_IOVA2",
      "NODEPROBE_NVML_LIBRARY",
      "NODEPROBE_CUDA_LIBRARY",
      "NODEPROBE_CUBLAS_LIBRARY",
      "PRETTY_NAME",
      "VERSION_ID",    // os-release keys
      "ACTIVE_DEFER",  // an IB port state
      "HWLOC_FSROOT",
      "NCCL_TOPO_FILE",
      "NCCL_NET_GDR_LEVEL",  // environment
      "NCCL_DEBUG_FILE",
      "NODEPROBE_CUDART_LIBRARY",
      "NODEPROBE_NCCL_LIBRARY",
      "NODEPROBE_RUNTIME_DIR",
      "RUNTIME_DIRECTORY",
      "NODEPROBE_OPERATORS",  // environment
      "NODEPROBE_LLDPD_SOCKET",
      "SLURMD_NODENAME",
      // NVIDIA's Xid resolution buckets (probes/kernel_events/xid_catalog.cc)
      "RESTART_APP",
      "RESET_GPU",
      "RESTART_BM",
      "CONTACT_SUPPORT",
      // The kernel's AER sysfs totals (probes/kernel_events/aer_counters.cc)
      "TOTAL_ERR_COR",
      "TOTAL_ERR_NONFATAL",
      "TOTAL_ERR_FATAL",
      "O_DIRECT",  // the storage probe's I/O mode
      // The job's environment, as pre-flight reads it (probes/common/job_view.cc)
      "SLURM_STEP_GPUS",
      "SLURM_GPUS_ON_NODE",
      "CUDA_VISIBLE_DEVICES",
      "NVIDIA_VISIBLE_DEVICES",
      // The job's label for the coordinator (cli/preflight_upload.cc)
      "SLURM_JOB_ID",
      "SLURM_STEP_ID",
      "KUBERNETES_SERVICE_HOST",
      // Where the counter baselines live (probes/fault_counters)
      "NODEPROBE_STATE_DIR",
      "STATE_DIRECTORY",
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
        // Named by its constant (the string only where it is declared).
        EXPECT_FALSE(IsKnownFindingCode(code))
            << code << " in " << path << ": name its constant (findings::k...code)";
        EXPECT_TRUE(IsKnownFindingCode(code) || not_codes.count(code) ||
                    IsSettableNcclVariable(code))  // NCCL_* we may set
            << code << " in " << path
            << " is not a declared finding code: declare it in the folder's *_findings.h";
      }
    }
  }
  EXPECT_GT(files, 50);
}

// Each code declared once: two folders declaring one code would print two
// rows and let AddFinding pick either.
TEST(FindingCodesTest, EachCodeIsDeclaredOnce) {
  std::set<std::string> seen;
  const std::vector<FindingCode> declared = DeclaredFindingCodes();
  for (const FindingCode& c : declared) {
    EXPECT_TRUE(seen.insert(c.code).second) << c.code << " is declared twice";
  }
  EXPECT_GT(declared.size(), 150u);
  EXPECT_EQ(declared.size(), FindingCodes().size());
}

TEST(FindingCodesTest, EveryCodeHasItsSeverityOwnerMeaningAndRemediation) {
  std::set<std::string> seen;
  for (const FindingCode& c : FindingCodes()) {
    EXPECT_TRUE(seen.insert(c.code).second) << c.code;
    EXPECT_GT(std::string(c.meaning).size(), 10u) << c.code;
    EXPECT_GT(std::string(c.remediation).size(), 10u) << c.code;
    EXPECT_FALSE(std::string(c.owner).empty()) << c.code;
    // A fixed severity, or the rule a call site follows: never both, never neither.
    EXPECT_EQ(c.severity == kVaries, !std::string(c.severity_rule).empty()) << c.code;
  }
  EXPECT_EQ(FindFindingCode("RDMA_RATE_BELOW_EXPECTED")->severity, v1::FAIL);
  EXPECT_EQ(FindFindingCode("NOT_A_CODE"), nullptr);
}

// The arguments of the call whose "(" is at OPEN, split at top-level commas
// (strings and nested brackets kept whole, comments left out).
std::vector<std::string> CallArguments(const std::string& s, size_t open) {
  std::vector<std::string> args;
  std::string cur;
  int depth = 0;
  for (size_t i = open; i < s.size(); ++i) {
    const char ch = s[i];
    if (ch == '/' && i + 1 < s.size() && s[i + 1] == '/') {  // a comment: to its line's end
      i = s.find('\n', i);
      if (i == std::string::npos) break;
      continue;
    }
    if (ch == '"' || ch == '\'') {
      const size_t start = i;
      for (++i; i < s.size() && s[i] != ch; ++i) {
        if (s[i] == '\\') ++i;
      }
      cur += s.substr(start, i - start + 1);
      continue;
    }
    if (ch == '(' || ch == '[' || ch == '{') {
      if (depth++ == 0) continue;
    } else if (ch == ')' || ch == ']' || ch == '}') {
      if (--depth == 0) {
        args.push_back(cur);
        return args;
      }
    } else if (ch == ',' && depth == 1) {
      args.push_back(cur);
      cur.clear();
      continue;
    }
    cur += ch;
  }
  return args;
}

// The finding table is the one place severity and remediation are typed:
// no product source sets a remediation, and each AddFinding call passes a
// severity exactly when the table leaves it to the call site.
TEST(FindingCodesTest, CallSitesTakeSeverityAndRemediationFromTheTable) {
  const std::regex call("\\b(AddFinding|ErrorResult)\\(");
  const std::regex named_code("^\\s*findings::(k\\w+)\\.code\\s*$");
  // The constant's name is its code in CamelCase.
  std::map<std::string, const FindingCode*> by_constant;
  for (const FindingCode& c : FindingCodes()) {
    std::string name = "k";
    bool upper = true;
    for (const char* p = c.code; *p; ++p) {
      if (*p == '_') {
        upper = true;
        continue;
      }
      name += upper ? *p : static_cast<char>(std::tolower(*p));
      upper = false;
    }
    by_constant[name] = &c;
  }
  const std::regex typed_remediation("set_remediation\\((?!\\w+(->|\\.)remediation\\))");
  int calls = 0;
  for (const char* dir : {"agent", "cli", "coordinator", "platform", "probes", "tasks"}) {
    for (const auto& e : std::filesystem::recursive_directory_iterator(
             std::string(NODEPROBE_SOURCE_DIR) + "/" + dir)) {
      const std::string path = e.path().string();
      if (e.path().extension() != ".cc" || path.find("_test.cc") != std::string::npos) continue;
      std::stringstream text;
      text << std::ifstream(path).rdbuf();
      const std::string s = text.str();
      // Only a FindingCode's remediation is ever copied (`code->remediation`).
      EXPECT_FALSE(std::regex_search(s, typed_remediation))
          << path << " types a remediation: put it in the finding table";
      for (std::sregex_iterator it(s.begin(), s.end(), call), end; it != end; ++it) {
        const size_t open = it->position() + it->length() - 1;
        // Declarations and definitions name a type before the function.
        const size_t line = s.rfind('\n', it->position());
        const std::string before = s.substr(line + 1, it->position() - line - 1);
        if (before.find("v1::") != std::string::npos && before.find("=") == std::string::npos &&
            before.find("return") == std::string::npos) {
          continue;
        }
        const std::vector<std::string> args = CallArguments(s, open);
        const bool error_result = (*it)[1] == "ErrorResult";
        ++calls;
        EXPECT_EQ(args.size(), error_result       ? 3u
                               : args.size() == 5 ? 5u
                                                  : 4u)
            << path << ": " << s.substr(it->position(), 80);
        std::smatch m;
        if (error_result || args.size() < 2 || !std::regex_match(args[1], m, named_code)) continue;
        ASSERT_TRUE(by_constant.count(m[1].str())) << m[1] << " in " << path;
        const FindingCode* code = by_constant.at(m[1].str());
        EXPECT_EQ(args.size() == 5, code->severity == kVaries)
            << path << ": " << code->code
            << (code->severity == kVaries ? " varies: pass the severity its rule gives"
                                          : " has a fixed severity in the table: do not pass one");
      }
    }
  }
  EXPECT_GT(calls, 100);
}

TEST(FindingCodesTest, ClosestCodeForATypo) {
  EXPECT_EQ(ClosestFindingCode("RDMA_PORT_DWON"), "RDMA_PORT_DOWN");
  EXPECT_EQ(ClosestFindingCode("pcie_link_width_degraded"), "PCIE_LINK_WIDTH_DEGRADED");
  EXPECT_FALSE(IsKnownFindingCode("RDMA_PORT_DWON"));
}

}  // namespace
}  // namespace nodeprobe
