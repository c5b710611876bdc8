// File: rdma_cm.h
// RC connections through librdmacm on the peer's IP address: the kernel
// resolves the device, port, route and GID (routed RoCE v2 and IPoIB both
// work), and the connection's private data carries each side's buffer
// {addr, rkey}. The alternative to the out-of-band exchange, for fabrics
// with IP on the RDMA ports.
#pragma once

#include <rdma/rdma_cma.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "platform/verbs_qp.h"

namespace nodeprobe::platform {

// A connected QP and what the peer said about its buffer. Members are
// destroyed QP first, then the id, then the event channel.
struct CmConnection {
  std::unique_ptr<rdma_event_channel, void (*)(rdma_event_channel*)> channel{
      nullptr, rdma_destroy_event_channel};
  std::unique_ptr<rdma_cm_id, int (*)(rdma_cm_id*)> id{nullptr, rdma_destroy_id};
  std::unique_ptr<VerbsQp> qp;
  RemoteQp remote;
};

// options.gpu >= 0 puts this end's buffer on that GPU.
absl::StatusOr<std::unique_ptr<CmConnection>> CmConnect(const std::string& peer_ip,
                                                        uint16_t port, size_t buffer_bytes,
                                                        const QpOptions& options,
                                                        absl::Time deadline, uint8_t tos = 0);

// Keep the listener alive while connections it accepted exist: their ids
// report events on its channel.
class CmListener {
 public:
  // bind_ip: the local address clients reach; port 0 = any.
  static absl::StatusOr<std::unique_ptr<CmListener>> Listen(const std::string& bind_ip,
                                                            uint16_t port);
  uint16_t port() const;
  // `before_accept` runs on the new QP before the connection is accepted
  // (receives for SEND must be posted by then); an error refuses it.
  absl::StatusOr<std::unique_ptr<CmConnection>> Accept(
      size_t buffer_bytes, const QpOptions& options, absl::Time deadline,
      const std::function<absl::Status(VerbsQp&)>& before_accept = nullptr);

 private:
  CmListener() = default;
  std::unique_ptr<rdma_event_channel, void (*)(rdma_event_channel*)> channel_{
      nullptr, rdma_destroy_event_channel};
  std::unique_ptr<rdma_cm_id, int (*)(rdma_cm_id*)> id_{nullptr, rdma_destroy_id};
};

// The 16 bytes of private data: addr (8, little-endian), rkey (4), zero (4).
std::string EncodeCmPrivateData(uint64_t addr, uint32_t rkey);
absl::StatusOr<RemoteQp> DecodeCmPrivateData(const void* data, size_t len);

}  // namespace nodeprobe::platform
