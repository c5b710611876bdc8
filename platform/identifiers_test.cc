#include "platform/identifiers.h"

#include <string>

#include "gtest/gtest.h"

namespace nodeprobe::platform {
namespace {

TEST(IdentifiersTest, KubernetesAndHostNamesAreNames) {
  for (const char* ok : {"gpu01", "gpu-01.rack3.example.com", "GPU_NODE7", "nid001264", "a",
                         "deepseek-v2-5-0-1", "20261205-235421-e2af"}) {
    EXPECT_TRUE(IsValidNodeName(ok)) << ok;
  }
  EXPECT_TRUE(IsValidRailName("mlx5_0:1"));
  EXPECT_FALSE(IsValidNodeName("mlx5_0:1"));
}

TEST(IdentifiersTest, WhatCouldForgeOrBreakSomethingIsRefusedWithOneLine) {
  for (const std::string& bad :
       {std::string(""), std::string("gpu\nrun x: PASS"), std::string("gpu\x1b[2J"),
        std::string("a|b"), std::string("<script>"), std::string("a\u202Eb"),
        std::string("a,b"), std::string("../../etc"), std::string("-gpu"), std::string("gpu-"),
        std::string("a..b"), std::string("caf\xe9"), std::string(254, 'a'),
        std::string(64, 'a') + ".b", std::string("a b")}) {
    EXPECT_FALSE(IsValidNodeName(bad)) << bad;
    const absl::Status s = CheckNodeName("node name", bad);
    EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
    EXPECT_EQ(std::string(s.message()).find('\n'), std::string::npos) << s.message();
    EXPECT_EQ(std::string(s.message()).find('\x1b'), std::string::npos) << s.message();
    EXPECT_NE(std::string(s.message()).find("use letters, digits"), std::string::npos);
  }
}

}  // namespace
}  // namespace nodeprobe::platform
