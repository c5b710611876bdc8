// File: credentials.h
// Mutual TLS for every party (coordinator, agents, CLI): each presents a
// certificate signed by the fleet's CA and verifies the other's. Plaintext
// only with an explicit --insecure, and a TLS coordinator never accepts a
// plaintext client (the handshake fails).
#pragma once

#include <grpcpp/grpcpp.h>

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "controlplane/tls_files.h"

namespace nodeprobe::controlplane {

// INVALID_ARGUMENT naming the missing flag or unreadable file.
absl::StatusOr<std::shared_ptr<grpc::ServerCredentials>> ServerCredentials(const TlsFiles& f);

// The names an authenticated peer's certificate gives it: its CN and its
// DNS SANs, nothing else (an e-mail, URI or IP SAN names no node and no
// operator). Empty for an unauthenticated peer.
std::vector<std::string> PeerNames(const grpc::AuthContext* auth);
absl::StatusOr<std::shared_ptr<grpc::ChannelCredentials>> ClientCredentials(const TlsFiles& f);

// Channel with nodeprobe's limits (message size) to `address`.
absl::StatusOr<std::shared_ptr<grpc::Channel>> Dial(const std::string& address, const TlsFiles& f);

// Largest message either side accepts.
inline constexpr int kMaxMessageBytes = 16 << 20;

// The coordinator address: the flag, else $NODEPROBE_COORDINATOR, else
// `coordinator:` in /etc/nodeprobe/nodeprobe.yaml; else an error saying how
// to set one.
absl::StatusOr<std::string> ResolveCoordinator(
    const std::string& flag, const std::string& config_path = "/etc/nodeprobe/nodeprobe.yaml");

}  // namespace nodeprobe::controlplane
