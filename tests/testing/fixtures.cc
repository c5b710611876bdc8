#include "tests/testing/fixtures.h"

#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"

namespace nodeprobe::testing {

namespace fs = std::filesystem;

std::string FixturePath(std::string_view rel) {
  return absl::StrCat(NODEPROBE_FIXTURES_DIR, "/", std::string(rel));
}

TempDir::TempDir() {
  const char* tmp = getenv("TMPDIR");
  std::string tmpl = absl::StrCat(tmp ? tmp : "/tmp", "/nodeprobe-test-XXXXXX");
  if (mkdtemp(tmpl.data()) == nullptr) abort();
  path_ = tmpl;
}

TempDir::~TempDir() { RemoveTree(path_); }

void RemoveTree(const std::string& path) {
  std::error_code ec;
  fs::remove_all(path, ec);
}

std::string ReadFixture(std::string_view rel) {
  std::ifstream in(FixturePath(rel));
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

void WriteFile(const std::string& path, const std::string& content) {
  fs::create_directories(fs::path(path).parent_path());
  std::ofstream(path, std::ios::trunc) << content;
}

absl::Status ExpandTtar(const std::string& ttar_path, const std::string& dest) {
  std::ifstream in(ttar_path);
  if (!in) return absl::NotFoundError(absl::StrCat("cannot open ", ttar_path));
  std::string line;
  int line_no = 0;
  auto bad = [&](const std::string& what) {
    return absl::DataLossError(
        absl::StrCat(ttar_path, ":", line_no, ": ", what));
  };
  while (std::getline(in, line)) {
    ++line_no;
    absl::string_view l = line;
    if (absl::ConsumePrefix(&l, "Directory: ")) {
      fs::create_directories(fs::path(dest) / std::string(l));
    } else if (absl::ConsumePrefix(&l, "Path: ")) {
      const fs::path target = fs::path(dest) / std::string(l);
      if (!std::getline(in, line)) return bad("truncated record");
      ++line_no;
      absl::string_view kind = line;
      if (absl::ConsumePrefix(&kind, "SymlinkTo: ")) {
        fs::create_directories(target.parent_path());
        std::error_code ec;
        fs::create_symlink(std::string(kind), target, ec);
        if (ec) return bad(ec.message());
        continue;
      }
      if (!absl::ConsumePrefix(&kind, "Lines: ")) return bad("expected Lines:");
      bool no_newline = absl::ConsumeSuffix(&kind, " NoNewline");
      int count = 0;
      if (!absl::SimpleAtoi(kind, &count)) return bad("bad line count");
      std::string content;
      for (int i = 0; i < count; ++i) {
        if (!std::getline(in, line)) return bad("truncated content");
        ++line_no;
        absl::StrAppend(&content, line, (no_newline && i + 1 == count) ? "" : "\n");
      }
      WriteFile(target.string(), content);
    }
    // "Mode:" lines and the "# ttar" separators carry nothing tests need.
  }
  return absl::OkStatus();
}

absl::Status ExtractTarBz2(const std::string& archive, const std::string& dest,
                           const std::vector<std::string>& members) {
  std::string cmd = absl::StrCat("tar -xjf '", archive, "' -C '", dest, "'");
  if (!members.empty()) absl::StrAppend(&cmd, " --wildcards");
  for (const std::string& m : members) absl::StrAppend(&cmd, " '", m, "'");
  if (system(cmd.c_str()) != 0) {
    return absl::InternalError(absl::StrCat("failed: ", cmd));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<CapturedHost>> NodeExporterHost() {
  auto host = std::make_unique<CapturedHost>();
  absl::Status s =
      ExpandTtar(FixturePath("sysfs/node_exporter-sys.ttar"), host->dir.path());
  if (!s.ok()) return s;
  host->sys_root = host->dir.path() + "/sys";
  return host;
}

const std::vector<std::string> kHwlocRdmaMembers = {
    "*/sys/class/infiniband", "*/sys/class/net",
    // mlx4_0's PCI function, where class/infiniband/mlx4_0 points.
    "*/sys/devices/pci0000:80/0000:80:02.2/0000:82:00.0", "*/proc"};

absl::StatusOr<std::unique_ptr<CapturedHost>> HwlocXeonHost(
    const std::vector<std::string>& members) {
  auto host = std::make_unique<CapturedHost>();
  absl::Status s = ExtractTarBz2(
      FixturePath("sysfs/32em64t-2n8c+dax+nvme+mic+dimms.tar.bz2"),
      host->dir.path(), members);
  if (!s.ok()) return s;
  host->sys_root = host->dir.path() + "/32em64t-2n8c+1mic/sys";
  host->proc_root = host->dir.path() + "/32em64t-2n8c+1mic/proc";
  return host;
}

}  // namespace nodeprobe::testing
