// The README's layout is the tree: every top-level folder is named in its
// "## Layout" block, so a new folder cannot land undocumented. Probes are
// not listed there (`nodeprobe probes` lists them): a new probe is its
// folder and its Register() line, nothing else. And no product function
// runs over 80 lines: one split by the steps its comments name reads, and
// reviews, better.
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace nodeprobe {
namespace {

std::string LayoutBlock() {
  std::stringstream text;
  text << std::ifstream(std::string(NODEPROBE_SOURCE_DIR) + "/README.md").rdbuf();
  const std::string s = text.str();
  const size_t start = s.find("## Layout");
  if (start == std::string::npos) return "";
  const size_t end = s.find("\n## ", start + 1);
  return s.substr(start, end == std::string::npos ? std::string::npos : end - start);
}

TEST(LayoutTest, TheReadmeNamesEveryTopLevelFolder) {
  const std::string layout = LayoutBlock();
  ASSERT_FALSE(layout.empty()) << "README.md has no ## Layout section";
  namespace fs = std::filesystem;
  int folders = 0;
  for (const auto& e : fs::directory_iterator(NODEPROBE_SOURCE_DIR)) {
    const std::string name = e.path().filename().string();
    if (!e.is_directory() || name[0] == '.' || name.rfind("build", 0) == 0) continue;
    ++folders;
    EXPECT_NE(layout.find(name + "/"), std::string::npos)
        << name << "/ is not in README.md's ## Layout";
  }
  EXPECT_GT(folders, 10);
}

// Functions longer than `max_lines` in `files`, as "path:line (N lines)".
// The parser's view, not a regex on one line: universal-ctags (C++ parser,
// `end:` field) sees a definition however its signature wraps, from the
// line its name is on to its closing brace.
std::vector<std::string> LongFunctionsIn(const std::vector<std::string>& files,
                                         size_t max_lines) {
  std::string list = "/tmp/nodeprobe-layout-XXXXXX";
  const int fd = mkstemp(list.data());
  EXPECT_GE(fd, 0);
  std::ofstream(list) << [&] {
    std::string all;
    for (const std::string& f : files) all += f + "\n";
    return all;
  }();
  close(fd);
  FILE* tags = popen(("ctags --languages=C++ --c++-kinds=f --fields=+ne -o - -L " + list +
                      " 2>/dev/null").c_str(), "r");
  EXPECT_NE(tags, nullptr) << "universal-ctags is needed (scripts/setup.sh installs it)";
  std::vector<std::string> out;
  char buf[4096];
  while (tags != nullptr && fgets(buf, sizeof(buf), tags) != nullptr) {
    // name TAB file TAB pattern;" TAB kind TAB line:N ... end:M
    const std::string line = buf;
    const size_t tab1 = line.find('\t'), tab2 = line.find('\t', tab1 + 1);
    const size_t at = line.find("\tline:"), end_at = line.find("\tend:");
    if (tab2 == std::string::npos || at == std::string::npos || end_at == std::string::npos) {
      continue;
    }
    const long first = std::stol(line.substr(at + 6)), last = std::stol(line.substr(end_at + 5));
    if (last - first + 1 > static_cast<long>(max_lines)) {
      std::string path = line.substr(tab1 + 1, tab2 - tab1 - 1);
      const std::string root = std::string(NODEPROBE_SOURCE_DIR) + "/";
      if (path.rfind(root, 0) == 0) path = path.substr(root.size());
      out.push_back(path + ":" + std::to_string(first) + " " + line.substr(0, tab1) + " (" +
                    std::to_string(last - first + 1) + " lines)");
    }
  }
  if (tags != nullptr) EXPECT_EQ(pclose(tags), 0) << "ctags failed";
  unlink(list.c_str());
  return out;
}

// The product's functions (not tests, benches, hwtests or the build).
std::vector<std::string> LongFunctions(size_t max_lines) {
  namespace fs = std::filesystem;
  std::vector<std::string> files;
  for (const char* layer :
       {"platform", "probes", "controlplane", "tasks", "agent", "coordinator", "cli"}) {
    for (const auto& e :
         fs::recursive_directory_iterator(std::string(NODEPROBE_SOURCE_DIR) + "/" + layer)) {
      const std::string path = e.path().string();
      if (e.path().extension() != ".cc" || path.find("_test.cc") != std::string::npos) continue;
      files.push_back(path);
    }
  }
  return LongFunctionsIn(files, max_lines);
}

// The scan sees a function whose signature spans three lines (the regex it
// replaced saw none of the 302 such definitions).
TEST(LayoutTest, TheLengthScanSeesAWrappedSignature) {
  const std::string path = testing::TempDir() + "/wrapped.cc";
  std::ofstream f(path);
  f << "namespace x {\nabsl::StatusOr<std::vector<int>> Wrapped(\n    const std::string& a,\n"
       "    int b) {\n";
  for (int i = 0; i < 90; ++i) f << "  b += " << i << ";\n";
  f << "  return {};\n}\n}  // namespace x\n";
  f.close();
  const std::vector<std::string> found = LongFunctionsIn({path}, 80);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_NE(found[0].find("Wrapped (95 lines)"), std::string::npos) << found[0];
}

TEST(LayoutTest, NoProductFunctionRunsOverEightyLines) {
  // Tables are data, not steps: none is long today.
  const std::vector<std::string> allowed = {};
  std::vector<std::string> found;
  for (const std::string& f : LongFunctions(80)) {
    if (std::none_of(allowed.begin(), allowed.end(),
                     [&](const std::string& a) { return f.rfind(a, 0) == 0; })) {
      found.push_back(f);
    }
  }
  std::string all;
  for (const std::string& f : found) all += "\n  " + f;
  EXPECT_TRUE(found.empty()) << "split by the steps its comments name:" << all;
  // The scan sees functions at all: some run over 60 lines.
  EXPECT_FALSE(LongFunctions(60).empty());
}

// One way to do each of these, in the one file that says the rule: a
// percentile, a median or a robust spread computed anywhere else could
// judge the same samples differently; a GPU recognised by its own class
// test could be a GPU to one probe and nothing to another; a program run
// by hand could outlive its deadline; a stop loop written again could miss
// its wake-up; host roots copied by hand could lose one.
TEST(LayoutTest, EachRuleLivesInItsOneModule) {
  namespace fs = std::filesystem;
  struct Rule {
    std::regex pattern;
    const char* home;  // the only product file (or folder) that may hold it
  };
  const Rule rules[] = {
      {std::regex(R"(nth_element|1\.4826|ceil\([^)]*0\.99)"), "platform/statistics.cc"},
      {std::regex(R"(0x0302|0x030200|0x0300\b)"), "platform/pci_class.cc"},
      {std::regex(R"(ChildProcess::Start\()"), "platform/"},
      {std::regex(R"(\beventfd\()"), "platform/stop_signal.cc"},
      {std::regex(R"(set_proc_root\()"), "tasks/host_roots.cc"},
      {std::regex(R"(rfind\("nvidia", 0\))"), "platform/gpu_inventory.cc"},
  };
  std::vector<std::string> found;
  int files = 0;
  for (const char* layer :
       {"platform", "probes", "controlplane", "tasks", "agent", "coordinator", "cli"}) {
    for (const auto& e :
         fs::recursive_directory_iterator(std::string(NODEPROBE_SOURCE_DIR) + "/" + layer)) {
      const std::string path = e.path().string();
      if (e.path().extension() != ".cc" || path.find("_test.cc") != std::string::npos) continue;
      ++files;
      const std::string rel = path.substr(std::string(NODEPROBE_SOURCE_DIR).size() + 1);
      std::ifstream in(path);
      int n = 0;
      for (std::string l; std::getline(in, l);) {
        ++n;
        const std::string code = l.substr(0, l.find("//"));
        for (const Rule& r : rules) {
          if (rel.rfind(r.home, 0) != 0 && std::regex_search(code, r.pattern)) {
            found.push_back(rel + ":" + std::to_string(n) + " belongs in " + r.home);
          }
        }
      }
    }
  }
  EXPECT_GT(files, 100);
  EXPECT_TRUE(found.empty()) << found.size() << " outside their module, e.g. " << found.front();
}

// A banner says what its file is for: every header opens with its
// paragraph (what it holds, who uses it), and a "// File:" line is never
// left with nothing after it.
TEST(LayoutTest, EveryHeaderOpensWithItsParagraph) {
  namespace fs = std::filesystem;
  std::vector<std::string> bare;
  int headers = 0;
  for (const char* layer :
       {"platform", "probes", "controlplane", "tasks", "agent", "coordinator", "cli"}) {
    for (const auto& e :
         fs::recursive_directory_iterator(std::string(NODEPROBE_SOURCE_DIR) + "/" + layer)) {
      const std::string ext = e.path().extension().string();
      if (ext != ".h" && ext != ".cc") continue;
      std::ifstream in(e.path());
      std::string first, second;
      std::getline(in, first);
      std::getline(in, second);
      const bool file_line = first.rfind("// File:", 0) == 0;
      const bool paragraph = second.rfind("//", 0) == 0;
      if (ext == ".h") ++headers;
      if ((file_line && !paragraph) || (ext == ".h" && first.rfind("//", 0) != 0)) {
        bare.push_back(e.path().string());
      }
    }
  }
  EXPECT_GT(headers, 100);
  EXPECT_TRUE(bare.empty()) << bare.size() << " files, e.g. " << bare.front();
}

}  // namespace
}  // namespace nodeprobe
