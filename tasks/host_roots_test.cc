#include "tasks/host_roots.h"

#include <gtest/gtest.h>

namespace nodeprobe::tasks {
namespace {

TEST(HostRootsTest, EveryRootTravelsAndEmptyOnesStayLive) {
  platform::HostPaths capture;
  capture.UseCapture("/captures/node7");
  capture.dcbnl_root = "/captures/node7/dcbnl";
  const platform::HostPaths back = FromHostRoots(ToHostRoots(capture));
  EXPECT_EQ(back.sys_root, capture.sys_root);
  EXPECT_EQ(back.proc_root, capture.proc_root);
  EXPECT_EQ(back.etc_root, capture.etc_root);
  EXPECT_EQ(back.topology_xml, capture.topology_xml);
  EXPECT_EQ(back.dcbnl_root, "/captures/node7/dcbnl");
  const platform::HostPaths live = FromHostRoots(v1::HostRoots());
  EXPECT_EQ(live.sys_root, "/sys");
  EXPECT_EQ(live.proc_root, "/proc");
  EXPECT_FALSE(live.IsCaptured());
}

}  // namespace
}  // namespace nodeprobe::tasks
