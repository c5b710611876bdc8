// libFuzzer: what strangers send over the network. The bytes arrive on a
// socket as a transfer server's control connection would see them
// (length-prefixed ControlMessages, read until the first refusal), then
// each request goes through what the server and the agent judge it by;
// and as one path-MTU datagram.
#include <sys/socket.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "absl/time/clock.h"
#include "platform/socket.h"
#include "probes/mtu/path_mtu.h"
#include "probes/transfer/transfer_engine.h"
#include "probes/transfer/transfer_task.h"

namespace np = nodeprobe;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  (void)np::mtu::DecodeDatagram(std::string(reinterpret_cast<const char*>(data), size));
  if (size > 200000) return 0;  // a socketpair's buffer holds it all
  int sv[2];
  if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0) return 0;
  int buf = 1 << 20;
  setsockopt(sv[0], SOL_SOCKET, SO_SNDBUF, &buf, sizeof(buf));
  setsockopt(sv[1], SOL_SOCKET, SO_RCVBUF, &buf, sizeof(buf));
  (void)!write(sv[0], data, size);
  close(sv[0]);
  for (int i = 0; i < 64; ++i) {
    np::v1::ControlMessage msg;
    if (!np::platform::ReadMessage(sv[1], &msg, absl::Now() + absl::Milliseconds(50)).ok()) break;
    if (!msg.has_request()) continue;
    (void)np::transfer::SessionBytes(msg.request());
    np::v1::RunTransfer task;
    *task.mutable_request() = msg.request();
    task.set_peer_host("10.0.0.2");
    task.set_peer_port(18515);
    (void)np::transfer::ValidateTransfer(task, absl::Seconds(60));
  }
  close(sv[1]);
  return 0;
}
