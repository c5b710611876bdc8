// A job's pre-flight as the coordinator stores it: who may send which
// node's, what is refused, and that a forged verdict is not kept.
#include "coordinator/preflight_record.h"

#include "gtest/gtest.h"
#include "probes/framework/profile.h"
#include "probes/framework/result_util.h"
#include "probes/framework/stage_runner.h"

namespace nodeprobe::coordinator {
namespace {

// node gpu-a's pre-flight: shm FAILs (SHM_TOO_SMALL), memlock passes.
v1::RecordPreflightRequest Request(const std::string& node = "gpu-a") {
  v1::RecordPreflightRequest req;
  v1::StageReport* r = req.mutable_report();
  r->set_node(node);
  r->set_stage(v1::PREFLIGHT);
  v1::ProbeResult* shm = r->add_results();
  shm->set_probe("shm");
  AddFinding(shm, "SHM_TOO_SMALL", "", "/dev/shm has 64 MiB free, NCCL needs 182 MiB");
  v1::ProbeResult* memlock = r->add_results();
  memlock->set_probe("memlock");
  const Profile profile;
  for (v1::ProbeResult& p : *r->mutable_results()) FinalizeResult(profile, &p);
  FinalizeReport(r);
  req.set_job("slurm-4242");
  return req;
}

TEST(PreflightRecordTest, ANodesOwnCertificateRecordsItsPreflight) {
  Sender own{true, false, {"gpu-a"}};
  absl::StatusOr<v1::StageRun> run = PreflightRun(Request(), own, "preflight-1");
  ASSERT_TRUE(run.ok()) << run.status();
  EXPECT_EQ(run->stage(), v1::PREFLIGHT);
  EXPECT_EQ(run->verdict(), v1::FAIL);
  EXPECT_EQ(run->job(), "slurm-4242");
  EXPECT_EQ(run->operator_identity(), "gpu-a");
  EXPECT_EQ(run->state(), "done");
  ASSERT_EQ(run->node_reports_size(), 1);
}

TEST(PreflightRecordTest, AnotherNodesCertificateIsRefusedAnOperatorsIsNot) {
  Sender other{true, false, {"gpu-b"}};
  absl::StatusOr<v1::StageRun> run = PreflightRun(Request(), other, "preflight-1");
  EXPECT_EQ(run.status().code(), absl::StatusCode::kPermissionDenied);
  EXPECT_NE(run.status().message().find("own node only"), std::string::npos);
  Sender op{true, true, {"ops"}};
  EXPECT_TRUE(PreflightRun(Request(), op, "preflight-1").ok());
  EXPECT_TRUE(PreflightRun(Request(), Sender{}, "preflight-1").ok()) << "plaintext lab";
}

TEST(PreflightRecordTest, WhatIsNotAPreflightOrIsForgedIsRefused) {
  v1::RecordPreflightRequest req = Request();
  req.mutable_report()->set_stage(v1::SINGLE_NODE);
  EXPECT_EQ(PreflightRun(req, {}, "preflight-1").status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(PreflightRun(Request("gpu a; rm"), {}, "preflight-1").status().code(),
            absl::StatusCode::kInvalidArgument);
  req = Request();
  req.set_job(std::string("job\n", 4));
  EXPECT_EQ(PreflightRun(req, {}, "preflight-1").status().code(),
            absl::StatusCode::kInvalidArgument);
  req = Request();
  req.mutable_report()->set_verdict(v1::PASS);  // its SHM_TOO_SMALL says FAIL
  req.mutable_report()->mutable_results(0)->set_verdict(v1::PASS);
  EXPECT_EQ(PreflightRun(req, {}, "preflight-1").status().code(),
            absl::StatusCode::kFailedPrecondition);
}

}  // namespace
}  // namespace nodeprobe::coordinator
