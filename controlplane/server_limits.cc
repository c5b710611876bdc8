#include "controlplane/server_limits.h"

#include <grpcpp/resource_quota.h>

#include "controlplane/credentials.h"

namespace nodeprobe::controlplane {

void ApplyServerLimits(grpc::ServerBuilder* builder, const GrpcServerLimits& limits) {
  grpc::ResourceQuota quota("nodeprobe-server");
  quota.Resize(limits.memory_bytes);
  builder->SetResourceQuota(quota);
  builder->SetMaxReceiveMessageSize(kMaxMessageBytes);
  builder->SetMaxSendMessageSize(kMaxMessageBytes);
  builder->AddChannelArgument(GRPC_ARG_SERVER_HANDSHAKE_TIMEOUT_MS, limits.handshake_timeout_ms);
  builder->AddChannelArgument(GRPC_ARG_MAX_CONCURRENT_STREAMS, limits.max_streams_per_connection);
  builder->AddChannelArgument(GRPC_ARG_MAX_CONNECTION_IDLE_MS, limits.max_idle_ms);
  builder->AddChannelArgument(GRPC_ARG_KEEPALIVE_TIME_MS, limits.keepalive_time_ms);
  builder->AddChannelArgument(GRPC_ARG_KEEPALIVE_TIMEOUT_MS, limits.keepalive_timeout_ms);
  builder->AddChannelArgument(GRPC_ARG_MAX_METADATA_SIZE, limits.max_metadata_bytes);
  // gRPC sets SO_REUSEPORT by default: a second coordinator (or agent health
  // endpoint) on the same address would bind too and take half of the
  // connections. One owner per port: the second fails to start.
  builder->AddChannelArgument(GRPC_ARG_ALLOW_REUSEPORT, 0);
}

}  // namespace nodeprobe::controlplane
