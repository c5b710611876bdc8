#include "platform/host_text.h"

#include "gtest/gtest.h"
#include "nodeprobe/v1/result.pb.h"

namespace nodeprobe::platform {
namespace {

TEST(HostTextTest, ValidTextIsUnchangedAndBadBytesAreEscaped) {
  EXPECT_EQ(ValidUtf8("56 Gb/sec (4X FDR)"), "56 Gb/sec (4X FDR)");
  EXPECT_EQ(ValidUtf8("Gr\xc3\xbc\xc3\x9f"), "Gr\xc3\xbc\xc3\x9f");  // valid two-byte sequences
  EXPECT_EQ(ValidUtf8("a\xff" "b"), "a\\xffb");
  EXPECT_EQ(ValidUtf8(std::string("nul\0x", 5)), "nul\\x00x");
  EXPECT_EQ(ValidUtf8("\xc0\xaf"), "\\xc0\\xaf");          // overlong '/'
  EXPECT_EQ(ValidUtf8("\xed\xa0\x80"), "\\xed\\xa0\\x80");  // a surrogate
  EXPECT_EQ(ValidUtf8("\xe2\x82"), "\\xe2\\x82");          // truncated
  EXPECT_TRUE(IsValidUtf8("tab\tand\nnewline"));
  EXPECT_FALSE(IsValidUtf8("bell\a"));
}

TEST(HostTextTest, WholeMessagesIncludingMapsBecomeSerializable) {
  v1::ProbeResult r;
  r.set_reason("bad \xff");
  (*r.mutable_evidence())["/sys/x\xfe"] = "v\x80";
  r.add_findings()->set_message("m\xc3");
  MakeStringsValidUtf8(&r);
  std::string wire;
  ASSERT_TRUE(r.SerializeToString(&wire));
  v1::ProbeResult back;
  ASSERT_TRUE(back.ParseFromString(wire));
  EXPECT_EQ(back.reason(), "bad \\xff");
  EXPECT_EQ(back.evidence().at("/sys/x\\xfe"), "v\\x80");
  EXPECT_EQ(back.findings(0).message(), "m\\xc3");
}

}  // namespace
}  // namespace nodeprobe::platform
