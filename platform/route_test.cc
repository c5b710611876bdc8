#include "platform/route.h"

#include "gtest/gtest.h"

namespace nodeprobe::platform {
namespace {

TEST(EgressToTest, LoopbackRoutesThroughLo) {
  auto e = EgressTo("127.0.0.1");
  ASSERT_TRUE(e.ok()) << e.status();
  EXPECT_EQ(e->netdev, "lo");
  EXPECT_EQ(e->source_ip, "127.0.0.1");
}

TEST(EgressToTest, RejectsNonAddress) {
  EXPECT_EQ(EgressTo("gpu02").status().code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace nodeprobe::platform
