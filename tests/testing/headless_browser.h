// File: headless_browser.h
// A page as Debian's chromium renders it, headless and offline: the DOM
// after its scripts ran (a test appends its own <script> that writes what
// it measured into an attribute), what the browser said on stderr, and its
// network log. Tests skip where chromium is not installed.
#pragma once

#include <string>

#include "absl/status/statusor.h"

namespace nodeprobe::testing {

bool HaveChromium();

struct RenderedPage {
  std::string dom;  // --dump-dom
  std::string log;  // its stderr: console messages land here (--enable-logging=stderr)
  std::string net_log;
};

// Renders file://`html_path` in a 1280x900 window; scratch files under `dir`.
absl::StatusOr<RenderedPage> RenderInChromium(const std::string& html_path, const std::string& dir);
// A screenshot of file://`html_path` into `png`.
absl::Status ScreenshotInChromium(const std::string& html_path, const std::string& png,
                                  const std::string& dir);

}  // namespace nodeprobe::testing
