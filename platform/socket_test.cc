#include "platform/socket.h"

#include <arpa/inet.h>

#include <thread>

#include "absl/time/clock.h"
#include "gtest/gtest.h"
#include "nodeprobe/v1/transfer.pb.h"

namespace nodeprobe::platform {
namespace {

TEST(ParseHostPortTest, ParsesIpv4Ipv6AndDefaults) {
  EXPECT_EQ(ParseHostPort("10.0.0.2:18515")->port, 18515);
  EXPECT_EQ(ParseHostPort("[fd00::2]:9")->host, "fd00::2");
  EXPECT_EQ(ParseHostPort("gpu02", 18515)->port, 18515);
  EXPECT_FALSE(ParseHostPort("gpu02").ok());
  EXPECT_FALSE(ParseHostPort("gpu02:0").ok());
  EXPECT_FALSE(ParseHostPort("gpu02:99999").ok());
  EXPECT_FALSE(ParseHostPort(":80").ok());
}

TEST(SocketTest, MessagesRoundTripAndOversizedAreRefused) {
  auto listener = Listen("127.0.0.1", 0);
  ASSERT_TRUE(listener.ok());
  uint16_t port = *LocalPort(listener->get());
  absl::Time deadline = absl::Now() + absl::Seconds(5);
  auto client = Connect({"127.0.0.1", port}, deadline);
  ASSERT_TRUE(client.ok()) << client.status();
  auto server = Accept(listener->get(), deadline);
  ASSERT_TRUE(server.ok());

  v1::ControlMessage sent;
  sent.mutable_request()->set_size(4096);
  ASSERT_TRUE(WriteMessage(client->get(), sent, deadline).ok());
  v1::ControlMessage got;
  ASSERT_TRUE(ReadMessage(server->get(), &got, deadline).ok());
  EXPECT_EQ(got.request().size(), 4096u);

  uint32_t huge = htonl(kMaxMessageBytes + 1);
  ASSERT_TRUE(SendAll(client->get(), &huge, 4, deadline).ok());
  absl::Status s = ReadMessage(server->get(), &got, deadline);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
}

// A server listening on every address (dual stack) sees an IPv4 client as
// ::ffff:127.0.0.1; the RDMA server's interface lookup needs plain IPv4
// (read as a sockaddr_in, it was 0.0.0.0 and every RDMA session refused).
TEST(SocketTest, TheLocalAddressOfAnIpv4ClientOnADualStackListenerIsIpv4) {
  auto listener = Listen("", 0);
  ASSERT_TRUE(listener.ok());
  const absl::Time deadline = absl::Now() + absl::Seconds(5);
  auto client = Connect({"127.0.0.1", *LocalPort(listener->get())}, deadline);
  ASSERT_TRUE(client.ok()) << client.status();
  auto server = Accept(listener->get(), deadline);
  ASSERT_TRUE(server.ok());
  absl::StatusOr<std::string> ip = LocalIp(server->get());
  ASSERT_TRUE(ip.ok()) << ip.status();
  EXPECT_EQ(*ip, "127.0.0.1");
  EXPECT_EQ(*LocalIp(client->get()), "127.0.0.1");
}

TEST(SocketTest, RecvTimesOutAtItsDeadline) {
  auto listener = Listen("127.0.0.1", 0);
  ASSERT_TRUE(listener.ok());
  auto client = Connect({"127.0.0.1", *LocalPort(listener->get())},
                        absl::Now() + absl::Seconds(2));
  ASSERT_TRUE(client.ok());
  char b;
  absl::Time start = absl::Now();
  absl::Status s = RecvAll(client->get(), &b, 1, absl::Now() + absl::Milliseconds(200));
  EXPECT_EQ(s.code(), absl::StatusCode::kDeadlineExceeded);
  EXPECT_LT(absl::Now() - start, absl::Seconds(2));
}

TEST(SocketTest, RefusedConnectIsUnavailable) {
  uint16_t port;
  {
    auto l = Listen("127.0.0.1", 0);
    ASSERT_TRUE(l.ok());
    port = *LocalPort(l->get());
  }
  auto c = Connect({"127.0.0.1", port}, absl::Now() + absl::Seconds(2));
  EXPECT_EQ(c.status().code(), absl::StatusCode::kUnavailable);
}

}  // namespace
}  // namespace nodeprobe::platform
