#include "probes/framework/probe_argument.h"

#include <gtest/gtest.h>

namespace nodeprobe {
namespace {

std::string EvenOnly(std::string_view value) {
  return value.size() % 2 == 0 ? "" : "needs an even length (pad it)";
}

constexpr ProbeArgument kCount = {.name = "count", .flag = "--count", .min = 1, .max = 8};
constexpr ProbeArgument kWord = {.name = "word", .flag = "--word", .check = &EvenOnly};

TEST(ProbeArgumentTest, AWholeNumberIsCheckedAgainstItsBounds) {
  EXPECT_EQ(CheckArgumentValue(kCount, "8"), "");
  EXPECT_EQ(CheckArgumentValue(kCount, "0"), "must be a whole number from 1 to 8 (got '0')");
  EXPECT_NE(CheckArgumentValue(kCount, "3abc"), "");
  EXPECT_NE(CheckArgumentValue(kCount, "99999999999999999999"), "");
  EXPECT_TRUE(kCount.whole());
  EXPECT_FALSE(kWord.whole());
}

TEST(ProbeArgumentTest, TextGoesThroughItsOwnCheck) {
  EXPECT_EQ(CheckArgumentValue(kWord, "ab"), "");
  EXPECT_EQ(CheckArgumentValue(kWord, "abc"), "needs an even length (pad it)");
}

TEST(ProbeArgumentTest, AnAbsentOrForeignValueReadsAsAbsent) {
  ProbeArguments args;
  EXPECT_FALSE(args.Given(kCount));
  EXPECT_EQ(args.Whole(kCount, -1), -1);
  EXPECT_EQ(args.Text(kWord), "");
  args.Set(kCount, "9");  // out of its bounds: a sender that did not check
  EXPECT_TRUE(args.Given(kCount));
  EXPECT_EQ(args.Whole(kCount, -1), -1);
  args.Set(kCount, "4");
  EXPECT_EQ(args.Whole(kCount, -1), 4);
  args.Set(kWord, "hi");
  EXPECT_EQ(args.Text(kWord), "hi");
}

TEST(ProbeArgumentTest, TheWireMapIsReadByName) {
  google::protobuf::Map<std::string, std::string> wire;
  wire["count"] = "2";
  wire["stranger"] = "x";
  ProbeArguments args(wire);
  EXPECT_EQ(args.Whole(kCount, 0), 2);
  EXPECT_EQ(args.values().size(), 2u);
}

}  // namespace
}  // namespace nodeprobe
