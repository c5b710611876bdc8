#include "tests/lab/certs.h"

#include <stdlib.h>

#include <fstream>

#include "absl/strings/str_cat.h"

namespace nodeprobe::lab {
namespace {

absl::Status Run(const std::string& cmd) {
  std::string full = absl::StrCat(cmd, " >/dev/null 2>&1");
  if (system(full.c_str()) != 0) return absl::InternalError(absl::StrCat("failed: ", cmd));
  return absl::OkStatus();
}

}  // namespace

absl::Status MakeCertificates(const std::string& dir, const std::vector<std::string>& names,
                              const std::vector<std::string>& ips) {
  absl::Status s = Run(absl::StrCat(
      "openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=nodeprobe-test-ca -keyout ",
      dir, "/ca.key -out ", dir, "/ca.pem"));
  for (const std::string& name : names) {
    if (!s.ok()) return s;
    std::string san = absl::StrCat("DNS:", name);
    for (const std::string& ip : ips) absl::StrAppend(&san, ",IP:", ip);
    s = MakeCertificate(dir, name, name, san);
  }
  return s;
}

absl::Status MakeCertificate(const std::string& dir, const std::string& file,
                             const std::string& cn, const std::string& san) {
  std::ofstream(absl::StrCat(dir, "/", file, ".ext")) << "subjectAltName=" << san << "\n";
  absl::Status s = Run(absl::StrCat("openssl req -newkey rsa:2048 -nodes -subj /CN=", cn,
                                    " -keyout ", dir, "/", file, ".key -out ", dir, "/", file,
                                    ".csr"));
  if (!s.ok()) return s;
  return Run(absl::StrCat("openssl x509 -req -in ", dir, "/", file, ".csr -CA ", dir,
                          "/ca.pem -CAkey ", dir, "/ca.key -CAcreateserial -days 2 -out ", dir,
                          "/", file, ".pem -extfile ", dir, "/", file, ".ext"));
}

}  // namespace nodeprobe::lab
