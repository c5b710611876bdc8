// RDMA netlink's netns mode: the reply decoded from a message built as the
// kernel builds it, the mode names as `rdma system` prints them (the
// spiderpool capture), and the live query's failure on a kernel without
// ib_core.
#include "platform/rdma_netlink.h"

#include <netlink/attr.h>
#include <netlink/msg.h>
#include <rdma/rdma_netlink.h>

#include <fstream>
#include <memory>
#include <sstream>

#include "gtest/gtest.h"
#include "tests/testing/fixtures.h"

namespace nodeprobe::platform {
namespace {

std::string Reply(int mode) {
  std::unique_ptr<nl_msg, void (*)(nl_msg*)> msg(
      nlmsg_alloc_simple(RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, RDMA_NLDEV_CMD_SYS_GET), 0), nlmsg_free);
  if (mode >= 0) nla_put_u8(msg.get(), RDMA_NLDEV_SYS_ATTR_NETNS_MODE, static_cast<uint8_t>(mode));
  nla_put_u8(msg.get(), RDMA_NLDEV_SYS_ATTR_COPY_ON_FORK, 1);
  const nlmsghdr* h = nlmsg_hdr(msg.get());
  return std::string(reinterpret_cast<const char*>(h), h->nlmsg_len);
}

TEST(RdmaNetlinkTest, TheReplysModeIsRead) {
  EXPECT_EQ(ParseRdmaSysReply(Reply(0)).value_or("?"), "exclusive");
  EXPECT_EQ(ParseRdmaSysReply(Reply(1)).value_or("?"), "shared");
  EXPECT_EQ(ParseRdmaSysReply(Reply(-1)).status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(ParseRdmaSysReply("abc").status().code(), absl::StatusCode::kDataLoss);
  std::string cut = Reply(1);
  EXPECT_FALSE(ParseRdmaSysReply(cut.substr(0, cut.size() - 4)).ok());
}

TEST(RdmaNetlinkTest, ModeNamesAreRdmaSystemsWords) {
  std::ifstream in(
      testing::FixturePath("pod-rdma/spiderpool-rdma-system-netns-shared-to-exclusive.txt"));
  std::stringstream text;
  text << in.rdbuf();
  // "options ib_core netns_mode=0" makes `rdma system` say "netns exclusive".
  EXPECT_NE(text.str().find("netns_mode=0"), std::string::npos);
  EXPECT_NE(text.str().find("netns " + NetnsModeName(0) + " copy-on-fork"), std::string::npos);
  EXPECT_NE(text.str().find("netns " + NetnsModeName(1) + " copy-on-fork"), std::string::npos);
}

TEST(RdmaNetlinkTest, TheLiveQueryAnswersOrSaysWhyNot) {
  absl::StatusOr<std::string> mode = ReadRdmaNetnsMode();
  if (mode.ok()) {
    EXPECT_TRUE(*mode == "shared" || *mode == "exclusive") << *mode;
  } else {
    EXPECT_NE(mode.status().message().find("RDMA netlink"), std::string::npos) << mode.status();
  }
}

}  // namespace
}  // namespace nodeprobe::platform
