#include "coordinator/baseline/node_class.h"

#include <gtest/gtest.h>

namespace nodeprobe::baseline {
namespace {

// A node's single-node report as its inventory and gpu probes write it
// (the inventory's detail line for an HCA is the probe's own format).
v1::StageReport Node(const std::string& driver, const std::string& fw) {
  v1::StageReport r;
  r.set_node("gpu01");
  v1::ProbeResult* inv = r.add_results();
  inv->set_probe("inventory");
  auto add = [&](const std::string& name, const std::string& version, const std::string& detail) {
    v1::Component* c = inv->mutable_inventory()->add_components();
    c->set_name(name);
    c->set_present(!version.empty());
    c->set_version(version);
    c->set_detail(detail);
  };
  add("nvidia_driver", driver, "open kernel module");
  add("cuda_driver", "12.4", "");
  add("nccl", "2.21.5", "");
  add("hca_firmware", fw, "pci 0000:17:00.0, board MT_0000000838, node_guid 0xa088c20300f1d3a2");
  add("hca_firmware", fw, "pci 0000:2a:00.0, board MT_0000000838, node_guid 0xa088c20300f1d3b4");
  add("hwloc", "2.9.0", "");
  v1::ProbeResult* gpu = r.add_results();
  gpu->set_probe("gpu");
  for (int i = 0; i < 8; ++i) gpu->mutable_gpu()->add_gpus()->set_name("NVIDIA H200");
  return r;
}

TEST(NodeClassTest, TheKeyIsWhatTheRunRecordsAndEqualNodesShareIt) {
  const NodeClass c = ClassOf(Node("550.54.15", "28.39.1002"), "fleet.yaml");
  EXPECT_EQ(c.Key(),
            "gpu=NVIDIA H200; nic=MT_0000000838 fw 28.39.1002; driver=550.54.15; cuda=12.4; "
            "nccl=2.21.5; profile=fleet.yaml");
  EXPECT_EQ(ClassOf(Node("550.54.15", "28.39.1002"), "fleet.yaml").Key(), c.Key());
}

TEST(NodeClassTest, AVersionChangeStartsANewClassAndSaysWhatChanged) {
  const NodeClass before = ClassOf(Node("535.161.08", "28.39.1002"), "fleet.yaml");
  const NodeClass after = ClassOf(Node("550.54.15", "28.39.1002"), "fleet.yaml");
  EXPECT_NE(before.Key(), after.Key());
  EXPECT_EQ(after.ChangesFrom(before), std::vector<std::string>{"driver 535.161.08 -> 550.54.15"});
  // Another profile is another class: its bars judged the runs.
  EXPECT_NE(ClassOf(Node("550.54.15", "28.39.1002"), "lab.yaml").Key(), after.Key());
}

TEST(NodeClassTest, ANodeWithoutGpusOrNicsHasNoneForThosePartsNotAnError) {
  v1::StageReport bare;
  bare.set_node("cpu01");
  EXPECT_EQ(ClassOf(bare, "").Key(),
            "gpu=none; nic=none; driver=none; cuda=none; nccl=none; profile=none");
}

}  // namespace
}  // namespace nodeprobe::baseline
