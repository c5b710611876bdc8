// The Baselines service on a real coordinator (plaintext, loopback): a pin
// only from an accepted run, the marks it keeps, forgetting a run takes its
// pin, and each refusal names the problem.
#include "coordinator/baseline_service.h"

#include "absl/strings/str_cat.h"
#include "controlplane/credentials.h"
#include "coordinator/baseline/test_runs.h"
#include "gtest/gtest.h"
#include "tests/testing/fixtures.h"

namespace nodeprobe::coordinator {
namespace {

class BaselineServiceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string db = dir_.path() + "/runs.db";
    {
      auto store = RunStore::Open(db);
      ASSERT_TRUE(store.ok()) << store.status();
      for (int day = 1; day <= 5; ++day) {
        ASSERT_TRUE((*store)->Save(baseline::TwoNodeRun(day, 390 + day)).ok());
      }
      ASSERT_TRUE((*store)->Save(baseline::TwoNodeRun(6, 120, v1::FAIL)).ok());
    }
    CoordinatorOptions o;
    o.listen = "127.0.0.1:0";
    o.db_path = db;
    o.tls.insecure = true;
    auto server = CoordinatorServer::Start(o);
    ASSERT_TRUE(server.ok()) << server.status();
    server_ = *std::move(server);
    auto channel = controlplane::Dial(absl::StrCat("127.0.0.1:", server_->port()), o.tls);
    ASSERT_TRUE(channel.ok());
    stub_ = v1::Baselines::NewStub(*channel);
  }
  grpc::Status Pin(const std::string& run, v1::BaselineMarks* out) {
    grpc::ClientContext ctx;
    v1::PinBaselineRequest req;
    req.set_run_id(run);
    return stub_->Pin(&ctx, req, out);
  }
  grpc::Status Forget(const v1::ForgetBaselineRequest& req, v1::BaselineMarks* out) {
    grpc::ClientContext ctx;
    return stub_->Forget(&ctx, req, out);
  }
  testing::TempDir dir_;
  std::unique_ptr<CoordinatorServer> server_;
  std::unique_ptr<v1::Baselines::Stub> stub_;
};

TEST_F(BaselineServiceTest, APinComesOnlyFromAnAcceptedRun) {
  v1::BaselineMarks marks;
  grpc::Status s = Pin("r-6", &marks);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_NE(s.error_message().find("run r-6 is done FAIL: only an accepted run"), std::string::npos)
      << s.error_message();
  EXPECT_EQ(Pin("nope", &marks).error_code(), grpc::StatusCode::NOT_FOUND);
  s = Pin("r-3", &marks);
  ASSERT_TRUE(s.ok()) << s.error_message();
  EXPECT_NE(marks.message().find("pinned 1 class at the runs accepted up to r-3"),
            std::string::npos)
      << marks.message();
  ASSERT_EQ(marks.pins_size(), 1);
  EXPECT_EQ(marks.pins(0).run_id(), "r-3");
  EXPECT_EQ(marks.pins(0).until_seconds(), baseline::TwoNodeRun(3, 0).started().seconds());
  EXPECT_EQ(marks.pins(0).by(), "unauthenticated (plaintext coordinator)");
}

TEST_F(BaselineServiceTest, ForgettingARunTakesItsPinAndItCannotBePinnedAgain) {
  v1::BaselineMarks marks;
  ASSERT_TRUE(Pin("r-3", &marks).ok());
  v1::ForgetBaselineRequest req;
  req.set_run_id("r-3");
  ASSERT_TRUE(Forget(req, &marks).ok());
  EXPECT_EQ(marks.pins_size(), 0);
  ASSERT_EQ(marks.forgotten_size(), 1);
  EXPECT_NE(marks.message().find("counts in no baseline"), std::string::npos);
  grpc::Status s = Pin("r-3", &marks);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_NE(s.error_message().find("was forgotten"), std::string::npos) << s.error_message();
  req.set_class_key("no such class");
  EXPECT_EQ(Forget(req, &marks).error_code(), grpc::StatusCode::NOT_FOUND);
  EXPECT_EQ(Forget(v1::ForgetBaselineRequest(), &marks).error_code(),
            grpc::StatusCode::INVALID_ARGUMENT);
  req.set_run_id("nope");
  EXPECT_EQ(Forget(req, &marks).error_code(), grpc::StatusCode::NOT_FOUND);
}

}  // namespace
}  // namespace nodeprobe::coordinator
