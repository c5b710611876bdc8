#include "cli/log_input.h"

#include <sys/stat.h>

#include <fstream>
#include <iostream>

#include "absl/strings/str_cat.h"

namespace nodeprobe::cli {

absl::StatusOr<Profile> LoadProfileWarning(const std::string& path) {
  if (path.empty()) return Profile();
  absl::StatusOr<Profile> p = LoadProfile(path);
  if (p.ok()) {
    for (const std::string& w : p->warnings) std::cerr << "nodeprobe: warning: " << w << "\n";
  }
  return p;
}

absl::Status ReadLogInput(const std::string& file, const std::string& example,
                          const std::function<void(std::istream&)>& read) {
  if (file == "-") {
    read(std::cin);
    return absl::OkStatus();
  }
  struct stat st;
  if (stat(file.c_str(), &st) != 0 || S_ISDIR(st.st_mode)) {
    return absl::InvalidArgumentError(
        absl::StrCat(file, ": not a readable file (pass a log file, or - for stdin", example, ")"));
  }
  std::ifstream in(file, std::ios::binary);
  if (!in) return absl::InvalidArgumentError(absl::StrCat(file, ": cannot be read"));
  read(in);
  return absl::OkStatus();
}

}  // namespace nodeprobe::cli
