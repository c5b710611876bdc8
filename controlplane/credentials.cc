#include "controlplane/credentials.h"

#include <openssl/pem.h>
#include <openssl/x509.h>
#include <yaml-cpp/yaml.h>

#include <fstream>
#include <memory>
#include <sstream>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace nodeprobe::controlplane {
namespace {

absl::StatusOr<std::string> ReadPem(const std::string& path, const char* flag) {
  if (path.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat(flag, " is required for mutual TLS (or pass --insecure in a lab)"));
  }
  std::ifstream in(path);
  if (!in) return absl::InvalidArgumentError(absl::StrCat(flag, " ", path, ": cannot read"));
  std::stringstream s;
  s << in.rdbuf();
  if (s.str().find("-----BEGIN") == std::string::npos) {
    return absl::InvalidArgumentError(absl::StrCat(flag, " ", path, ": not a PEM file"));
  }
  return s.str();
}

struct Pems {
  std::string cert, key, ca;
};

// The key must be the certificate's: gRPC otherwise fails much later with
// an unrelated message ("empty address list") and a dump of its state.
absl::Status KeyMatchesCertificate(const TlsFiles& f, const std::string& cert,
                                   const std::string& key) {
  std::unique_ptr<BIO, decltype(&BIO_free)> cb(
      BIO_new_mem_buf(cert.data(), static_cast<int>(cert.size())), &BIO_free);
  std::unique_ptr<X509, decltype(&X509_free)> x509(
      cb ? PEM_read_bio_X509(cb.get(), nullptr, nullptr, nullptr) : nullptr, &X509_free);
  if (!x509) {
    return absl::InvalidArgumentError(
        absl::StrCat("--tls-cert ", f.cert, ": not a PEM certificate"));
  }
  std::unique_ptr<BIO, decltype(&BIO_free)> kb(
      BIO_new_mem_buf(key.data(), static_cast<int>(key.size())), &BIO_free);
  std::unique_ptr<EVP_PKEY, decltype(&EVP_PKEY_free)> pkey(
      kb ? PEM_read_bio_PrivateKey(kb.get(), nullptr, nullptr, nullptr) : nullptr, &EVP_PKEY_free);
  if (!pkey) {
    return absl::InvalidArgumentError(
        absl::StrCat("--tls-key ", f.key, ": not a PEM private key (or it is encrypted)"));
  }
  if (X509_check_private_key(x509.get(), pkey.get()) != 1) {
    return absl::InvalidArgumentError(absl::StrCat("--tls-key ", f.key,
                                                   " is not the key of --tls-cert ", f.cert,
                                                   ": give the key the certificate was made for"));
  }
  return absl::OkStatus();
}

absl::StatusOr<Pems> ReadAll(const TlsFiles& f) {
  Pems p;
  auto cert = ReadPem(f.cert, "--tls-cert");
  if (!cert.ok()) return cert.status();
  auto key = ReadPem(f.key, "--tls-key");
  if (!key.ok()) return key.status();
  auto ca = ReadPem(f.ca, "--tls-ca");
  if (!ca.ok()) return ca.status();
  if (absl::Status match = KeyMatchesCertificate(f, *cert, *key); !match.ok()) return match;
  return Pems{*cert, *key, *ca};
}

}  // namespace

absl::StatusOr<std::shared_ptr<grpc::ServerCredentials>> ServerCredentials(const TlsFiles& f) {
  if (f.insecure) return grpc::InsecureServerCredentials();
  absl::StatusOr<Pems> p = ReadAll(f);
  if (!p.ok()) return p.status();
  grpc::SslServerCredentialsOptions opts(
      GRPC_SSL_REQUEST_AND_REQUIRE_CLIENT_CERTIFICATE_AND_VERIFY);
  opts.pem_root_certs = p->ca;
  opts.pem_key_cert_pairs.push_back({p->key, p->cert});
  return grpc::SslServerCredentials(opts);
}

absl::StatusOr<std::shared_ptr<grpc::ChannelCredentials>> ClientCredentials(const TlsFiles& f) {
  if (f.insecure) return grpc::InsecureChannelCredentials();
  absl::StatusOr<Pems> p = ReadAll(f);
  if (!p.ok()) return p.status();
  grpc::SslCredentialsOptions opts;
  opts.pem_root_certs = p->ca;
  opts.pem_private_key = p->key;
  opts.pem_cert_chain = p->cert;
  return grpc::SslCredentials(opts);
}

absl::StatusOr<std::shared_ptr<grpc::Channel>> Dial(const std::string& address, const TlsFiles& f) {
  auto creds = ClientCredentials(f);
  if (!creds.ok()) return creds.status();
  grpc::ChannelArguments args;
  args.SetMaxReceiveMessageSize(kMaxMessageBytes);
  args.SetMaxSendMessageSize(kMaxMessageBytes);
  return grpc::CreateCustomChannel(address, *creds, args);
}

absl::StatusOr<std::string> ResolveCoordinator(const std::string& flag,
                                               const std::string& config_path) {
  if (!flag.empty()) return flag;
  if (const char* env = getenv("NODEPROBE_COORDINATOR"); env && *env) return std::string(env);
  std::ifstream in(config_path);
  if (in) {
    try {
      YAML::Node root = YAML::Load(in);
      if (root.IsMap() && root["coordinator"] && root["coordinator"].IsScalar()) {
        return root["coordinator"].as<std::string>();
      }
    } catch (const YAML::Exception& e) {
      return absl::InvalidArgumentError(
          absl::StrCat(config_path, ":", e.mark.line + 1, ": ", e.msg));
    }
  }
  return absl::FailedPreconditionError(absl::StrCat(
      "no coordinator address: pass --coordinator HOST:PORT, set NODEPROBE_COORDINATOR, "
      "or put `coordinator: HOST:PORT` in ",
      config_path));
}

std::vector<std::string> PeerNames(const grpc::AuthContext* auth) {
  std::vector<std::string> out;
  if (auth == nullptr || !auth->IsPeerAuthenticated()) return out;
  for (const char* prop : {GRPC_X509_CN_PROPERTY_NAME, GRPC_PEER_DNS_PROPERTY_NAME}) {
    for (const grpc::string_ref& v : auth->FindPropertyValues(prop)) {
      out.emplace_back(v.data(), v.size());
    }
  }
  return out;
}

}  // namespace nodeprobe::controlplane
