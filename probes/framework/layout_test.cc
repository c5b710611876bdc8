// The README's layout is the tree: every top-level folder is named in its
// "## Layout" block, so a new folder cannot land undocumented. Probes are
// not listed there (`nodeprobe probes` lists them): a new probe is its
// folder and its Register() line, nothing else. And no product function
// runs over 80 lines: one split by the steps its comments name reads, and
// reviews, better.
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

// The product's functions (not tests, benches, hwtests or the build): a
// definition is a line at indent 0-4 ending in '{' whose statement, with the
// lines continuing it, has a '(' and is not a control statement, type or
// initializer; it runs to the brace that closes it.
std::vector<std::string> LongFunctions(size_t max_lines) {
  namespace fs = std::filesystem;
  static const std::regex opens(R"(^ {0,4}\S.*\{\s*$)");
  static const std::regex not_function(
      R"(^\s*(if|for|while|switch|else|namespace|struct|class|enum|return|do|case|try|union|extern)\b|^\s*(//|#|\}|\)))");
  std::vector<std::string> out;
  for (const char* layer :
       {"platform", "probes", "controlplane", "tasks", "agent", "coordinator", "cli"}) {
    for (const auto& e :
         fs::recursive_directory_iterator(std::string(NODEPROBE_SOURCE_DIR) + "/" + layer)) {
      const std::string path = e.path().string();
      if (e.path().extension() != ".cc" || path.find("_test.cc") != std::string::npos) continue;
      std::ifstream in(path);
      std::vector<std::string> lines;
      for (std::string l; std::getline(in, l);) lines.push_back(l);
      for (size_t i = 0; i < lines.size(); ++i) {
        if (!std::regex_match(lines[i], opens) || std::regex_search(lines[i], not_function)) {
          continue;
        }
        std::string sig = lines[i];
        size_t k = i;
        while (k > 0 && i - k < 5 && !lines[k - 1].empty() &&
               lines[k - 1].find_first_of(";{}:", lines[k - 1].size() - 1) == std::string::npos &&
               lines[k - 1].find("//") == std::string::npos && lines[k - 1][0] != '#') {
          sig = lines[--k] + sig;
        }
        const std::string head = sig.substr(0, sig.find('('));
        if (sig.find('(') == std::string::npos || head.find(" = ") != std::string::npos ||
            head.find('[') != std::string::npos) {
          continue;
        }
        int depth = 0;
        size_t end = i;
        for (; end < lines.size(); ++end) {
          depth += std::count(lines[end].begin(), lines[end].end(), '{') -
                   std::count(lines[end].begin(), lines[end].end(), '}');
          if (depth <= 0) break;
        }
        if (end - k + 1 > max_lines) {
          out.push_back(path.substr(std::string(NODEPROBE_SOURCE_DIR).size() + 1) + ":" +
                        std::to_string(i + 1) + " (" + std::to_string(end - k + 1) + " lines)");
        }
        i = end;
      }
    }
  }
  return out;
}

TEST(LayoutTest, NoProductFunctionRunsOverEightyLines) {
  // Tables are data, not steps: the finding table is one list.
  const std::vector<std::string> allowed = {"probes/framework/finding_codes.cc"};
  std::vector<std::string> found;
  for (const std::string& f : LongFunctions(80)) {
    if (std::none_of(allowed.begin(), allowed.end(),
                     [&](const std::string& a) { return f.rfind(a, 0) == 0; })) {
      found.push_back(f);
    }
  }
  EXPECT_TRUE(found.empty()) << "split by the steps its comments name: " << found.front();
  // The scan sees functions at all: some run over 60 lines.
  EXPECT_FALSE(LongFunctions(60).empty());
}

// One way to do each of these, in the one file that says the rule: a
// percentile, a median or a robust spread computed anywhere else could
// judge the same samples differently; a GPU recognised by its own class
// test could be a GPU to one probe and nothing to another; a program run
// by hand could outlive its deadline.
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

}  // namespace
}  // namespace nodeprobe
