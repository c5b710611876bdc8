#include "probes/storage/storage_judge.h"

#include "gtest/gtest.h"

namespace nodeprobe::storage {
namespace {

v1::StoragePath Measured() {
  v1::StoragePath p;
  p.set_path("/mnt/ckpt");
  p.set_writers(8);
  p.set_shard_bytes(1ull << 30);
  p.set_io_mode("O_DIRECT");
  p.set_write_gbps(40);
  p.set_checkpoint_s(1.8);
  p.set_read_seq_gbps(60);
  p.set_read_random_gbps(30);
  v1::StorageMetadataOp* m = p.add_metadata();
  m->set_op("create");
  m->set_layout("one directory");
  m->set_count(10000);
  m->set_p99_ms(4);
  return p;
}

std::vector<std::string> Codes(const v1::ProbeResult& r) {
  std::vector<std::string> codes;
  for (const v1::Finding& f : r.findings()) codes.push_back(f.code());
  return codes;
}

TEST(StorageJudgeTest, WithoutBarsNothingIsJudged) {
  v1::ProbeResult r;
  JudgeStoragePath(Measured(), StorageRules{}, &r);
  EXPECT_EQ(r.findings_size(), 0);
}

TEST(StorageJudgeTest, FiguresAtOrAboveTheBarsPass) {
  StorageRules rules;
  rules.checkpoint_write_min_gbps = 40;
  rules.checkpoint_max_s = 1.8;
  rules.read_min_gbps = 30;
  rules.metadata_p99_max_ms = 4;
  v1::ProbeResult r;
  JudgeStoragePath(Measured(), rules, &r);
  EXPECT_EQ(r.findings_size(), 0);
}

TEST(StorageJudgeTest, EachBarMissedIsItsOwnFindingWithTheFigures) {
  StorageRules rules;
  rules.checkpoint_write_min_gbps = 50;
  rules.checkpoint_max_s = 1.5;
  rules.read_min_gbps = 45;  // the random read-back misses it, in order does not
  rules.metadata_p99_max_ms = 2;
  v1::ProbeResult r;
  JudgeStoragePath(Measured(), rules, &r);
  EXPECT_EQ(Codes(r), (std::vector<std::string>{"STORAGE_WRITE_SLOW", "STORAGE_CHECKPOINT_SLOW",
                                                "STORAGE_READ_SLOW", "STORAGE_METADATA_SLOW"}));
  EXPECT_EQ(r.findings(0).device(), "/mnt/ckpt");
  EXPECT_EQ(r.findings(0).severity(), v1::FAIL);
  EXPECT_NE(r.findings(0).message().find("40.00 Gb/s (5.000 GB/s), below the profile's 50.00"),
            std::string::npos)
      << r.findings(0).message();
  EXPECT_NE(r.findings(0).message().find("8 writers x 1024 MiB, O_DIRECT"), std::string::npos);
  EXPECT_NE(r.findings(2).message().find("in random order"), std::string::npos);
  EXPECT_NE(r.findings(3).message().find("create (one directory, 10000 files): p99 4.00 ms"),
            std::string::npos)
      << r.findings(3).message();
}

TEST(StorageJudgeTest, APathNotMeasuredIsNotJudgedAgain) {
  v1::StoragePath p = Measured();
  p.set_error("no space");
  p.set_write_gbps(0);
  StorageRules rules;
  rules.checkpoint_write_min_gbps = 1;
  v1::ProbeResult r;
  JudgeStoragePath(p, rules, &r);
  EXPECT_EQ(r.findings_size(), 0);
}

}  // namespace
}  // namespace nodeprobe::storage
