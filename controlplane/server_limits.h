// File: server_limits.h
// What a nodeprobe gRPC server lends a stranger. Anyone who can reach the
// coordinator's port can open connections; without limits gRPC keeps a
// half-open or junk connection for its 120 s handshake timeout and grows
// its memory with the flood (bench/stranger_flood.sh measures it). The
// same limits serve the agent's loopback health endpoint.
#pragma once

#include <grpcpp/grpcpp.h>

#include <cstddef>

namespace nodeprobe::controlplane {

struct GrpcServerLimits {
  // Memory gRPC may hold for all connections together; past it, new
  // connections and streams are refused rather than the process growing.
  size_t memory_bytes = 256u << 20;
  // A connection that has not finished TLS + the HTTP/2 preface by then is
  // closed (gRPC's default is 120 s).
  int handshake_timeout_ms = 10'000;
  // Streams one connection may hold open: an agent holds one, a CLI a few
  // (gRPC clients open a new connection past 100).
  int max_streams_per_connection = 100;
  // A connection with no call in flight for this long is closed; agents
  // always hold their Connect stream, so only idle clients and strangers go.
  int max_idle_ms = 120'000;
  // The server pings a silent peer this often and drops it after the
  // timeout without an answer (a peer whose host vanished).
  int keepalive_time_ms = 60'000;
  int keepalive_timeout_ms = 20'000;
  // Request headers larger than this are refused.
  int max_metadata_bytes = 16 << 10;
};

// Sets the limits (and nodeprobe's message size) on a builder, and turns off
// gRPC's default SO_REUSEPORT (one process per port).
void ApplyServerLimits(grpc::ServerBuilder* builder, const GrpcServerLimits& limits = {});

}  // namespace nodeprobe::controlplane
