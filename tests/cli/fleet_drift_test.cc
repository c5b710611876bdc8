// Version drift through a real coordinator: three fake agents (bench's
// fake_fleet, one process) register, one with another NVIDIA driver; `fleet`
// shows the drift, and so does a run's acceptance record (the version
// matrix of `report --format html`). Loopback only; everything started here
// is stopped by its PID.
#include <google/protobuf/util/json_util.h>
#include <signal.h>
#include <unistd.h>

#include <optional>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "gtest/gtest.h"
#include "nodeprobe/v1/service.pb.h"
#include "platform/child_process.h"
#include "tests/testing/fixtures.h"
#include "tests/testing/loopback_ports.h"
#include "tests/testing/run_binary.h"
#include "tests/testing/xml_query.h"

namespace nodeprobe {
namespace {

TEST(FleetDriftTest, OneNodeOnAnotherDriverIsDriftInFleetAndInTheRecord) {
  testing::TempDir dir;
  const uint16_t port = testing::FreeLoopbackPort();
  const std::string address = absl::StrCat("127.0.0.1:", port);
  absl::StatusOr<platform::ChildProcess> coordinator = platform::ChildProcess::Start(
      NODEPROBE_BINARY, {"coordinator", "--listen", address, "--db", dir.path() + "/runs.db",
                         "--insecure", "--metrics-listen", ""});
  ASSERT_TRUE(coordinator.ok()) << coordinator.status();
  ASSERT_TRUE(testing::WaitForLoopbackListener(port, absl::Seconds(20)))
      << coordinator->stderr_tail();
  setenv("FAKE_FLEET_DRIVERS", "550.54.15,550.54.15,535.161.08", 1);
  absl::StatusOr<platform::ChildProcess> fleet = platform::ChildProcess::Start(
      FAKE_FLEET_BINARY, {address, "3", "hold:60", std::to_string(coordinator->pid()),
                          dir.path() + "/runs.db"});
  unsetenv("FAKE_FLEET_DRIVERS");
  ASSERT_TRUE(fleet.ok()) << fleet.status();
  const absl::Time until = absl::Now() + absl::Seconds(30);
  while (!absl::StrContains(*fleet->buffer(), "registered 3 of 3") && !fleet->eof() &&
         absl::Now() < until) {
    (void)fleet->ReadMore(until);
  }
  ASSERT_TRUE(absl::StrContains(*fleet->buffer(), "registered 3 of 3")) << *fleet->buffer();
  const std::vector<std::string> control = {"--coordinator", address, "--insecure"};
  auto with = [&](std::vector<std::string> args) {
    args.insert(args.end(), control.begin(), control.end());
    return testing::RunBinary(NODEPROBE_BINARY, args);
  };

  // fleet: the driver row, fake10002 off the majority.
  testing::CommandResult r = with({"fleet", "--format", "json"});
  EXPECT_EQ(r.exit_code, 0) << r.err;  // drift from the majority is shown, not failed
  v1::FleetView view;
  ASSERT_TRUE(google::protobuf::util::JsonStringToMessage(r.out, &view).ok()) << r.out << r.err;
  const v1::VersionRow* driver = nullptr;
  for (const v1::VersionRow& row : view.versions()) {
    if (row.component() == "nvidia_driver") driver = &row;
  }
  ASSERT_NE(driver, nullptr) << r.out;
  EXPECT_EQ(driver->majority(), "550.54.15");
  ASSERT_EQ(driver->drifted_size(), 1);
  EXPECT_EQ(driver->drifted(0), "fake10002");

  // The record of a run over them: the same cell marked.
  r = with({"run", "--stage", "single-node", "--nodes", "fake10000,fake10001,fake10002",
            "--format", "json", "--timeout", "30"});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  v1::StageRun run;
  ASSERT_TRUE(google::protobuf::util::JsonStringToMessage(r.out, &run).ok()) << r.out << r.err;
  r = with({"report", "--run", run.run_id(), "--format", "html"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  testing::XmlQuery d = testing::XmlQuery::Html(r.out);
  ASSERT_TRUE(d.ok());
  const std::string matrix = "//section[h2[starts-with(., 'Version matrix')]]";
  EXPECT_EQ(d.String(matrix + "/h2/span"), "WARN");
  EXPECT_EQ(d.Number("count(" + matrix + "//td[@class='drift'])"), 1);
  EXPECT_EQ(d.String(matrix + "//td[@class='drift']"), "535.161.08");

  kill(fleet->pid(), SIGKILL);
  kill(coordinator->pid(), SIGTERM);
}

}  // namespace
}  // namespace nodeprobe
