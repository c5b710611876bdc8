#include "tests/testing/headless_browser.h"

#include <cstdlib>
#include <fstream>
#include <iterator>

#include "absl/strings/str_cat.h"

namespace nodeprobe::testing {
namespace {

std::string Slurp(const std::string& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// Offline and quiet: no sync, updates, extensions or first-run pages.
std::string Flags(const std::string& dir) {
  return absl::StrCat(
      " --headless --no-sandbox --disable-gpu --disable-quic --no-first-run"
      " --disable-background-networking --disable-component-update --disable-sync"
      " --disable-default-apps --disable-extensions --user-data-dir=",
      dir,
      "/chromium-profile --window-size=1280,900 --enable-logging=stderr --v=0 --log-net-log=", dir,
      "/net.json");
}

}  // namespace

bool HaveChromium() { return std::system("command -v chromium > /dev/null 2>&1") == 0; }

absl::StatusOr<RenderedPage> RenderInChromium(const std::string& html_path,
                                              const std::string& dir) {
  const std::string dom = dir + "/dom.html";
  const std::string err = dir + "/chromium.err";
  const int rc = std::system(absl::StrCat("timeout 60 chromium", Flags(dir), " --dump-dom file://",
                                          html_path, " > ", dom, " 2> ", err)
                                 .c_str());
  RenderedPage page{Slurp(dom), Slurp(err), Slurp(dir + "/net.json")};
  if (rc != 0) {
    return absl::InternalError(absl::StrCat("chromium exited with ", rc, ": ", page.log));
  }
  return page;
}

absl::Status ScreenshotInChromium(const std::string& html_path, const std::string& png,
                                  const std::string& dir) {
  const std::string err = dir + "/screenshot.err";
  if (std::system(absl::StrCat("timeout 60 chromium", Flags(dir), " --screenshot=", png, " file://",
                               html_path, " > /dev/null 2> ", err)
                      .c_str()) != 0) {
    return absl::InternalError(absl::StrCat("chromium --screenshot failed: ", Slurp(err)));
  }
  return absl::OkStatus();
}

}  // namespace nodeprobe::testing
