// File: tls_files.h
// The files a party presents and checks in mutual TLS, as the flags give
// them: a plain struct, so command lines name it without pulling in gRPC
// (credentials.h turns it into credentials).
#pragma once

#include <string>

namespace nodeprobe::controlplane {

struct TlsFiles {
  std::string cert;  // PEM certificate (chain)
  std::string key;   // PEM private key
  std::string ca;    // PEM CA bundle that signs the other parties
  bool insecure = false;
};

}  // namespace nodeprobe::controlplane
