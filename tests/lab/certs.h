// File: certs.h
// A throwaway CA and certificates for mutual-TLS tests, made with the
// openssl command line (Debian's openssl package).
#pragma once

#include <string>
#include <vector>

#include "absl/status/status.h"

namespace nodeprobe::lab {

// Writes DIR/ca.pem, and for each name DIR/NAME.pem + DIR/NAME.key with
// CN=NAME and SANs DNS:NAME plus the given IP addresses.
absl::Status MakeCertificates(const std::string& dir, const std::vector<std::string>& names,
                              const std::vector<std::string>& ips);

// One more certificate from DIR's CA: DIR/FILE.pem + DIR/FILE.key with
// CN=cn and the subjectAltName given as openssl writes it
// ("email:gpu-x,URI:gpu-x,IP:10.0.0.1").
absl::Status MakeCertificate(const std::string& dir, const std::string& file,
                             const std::string& cn, const std::string& san);

}  // namespace nodeprobe::lab
