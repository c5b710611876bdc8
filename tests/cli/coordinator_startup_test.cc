// The coordinator's start-up errors: each a one-line message naming the
// problem and exit 3, never a crash; and one coordinator per address.
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <netinet/in.h>
#include <unistd.h>

#include <fcntl.h>

#include <fstream>
#include <sstream>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "gtest/gtest.h"
#include "tests/testing/fixtures.h"
#include "tests/testing/loopback_ports.h"
#include "tests/testing/run_binary.h"

extern char** environ;

namespace nodeprobe {
namespace {

using ::nodeprobe::testing::CommandResult;

// Under `timeout`, so a coordinator that wrongly starts ends the test in
// seconds instead of hanging it.
CommandResult Coordinator(std::vector<std::string> args) {
  std::vector<std::string> full = {"10", NODEPROBE_BINARY, "coordinator", "--metrics-listen", ""};
  full.insert(full.end(), args.begin(), args.end());
  return testing::RunBinary("/usr/bin/timeout", full);
}

// The last non-empty line of stderr (gRPC may log its own lines before).
std::string LastLine(const std::string& err) {
  std::string last, line;
  std::istringstream in(err);
  while (std::getline(in, line)) {
    if (!line.empty()) last = line;
  }
  return last;
}

TEST(CoordinatorStartupTest, EachStartupErrorIsOneLineAndExitThree) {
  testing::TempDir dir;
  testing::WriteFile(dir.path() + "/junk.db", "this is not an SQLite database, just bytes\n");
  testing::WriteFile(dir.path() + "/cert.pem", "not a certificate\n");
  struct Case {
    std::vector<std::string> args;
    const char* says;
  };
  const std::vector<Case> cases = {
      {{"--insecure", "--db", "/proc/no-such-dir/runs.db", "--listen", "127.0.0.1:0"},
       "for the run database /proc/no-such-dir/runs.db"},
      {{"--insecure", "--db", dir.path() + "/junk.db", "--listen", "127.0.0.1:0"},
       "file is not a database"},
      {{"--insecure", "--db", dir.path() + "/ok.db", "--listen", "no-such-host.invalid:1"},
       "cannot listen on no-such-host.invalid:1"},
      {{"--tls-cert", dir.path() + "/missing.pem", "--tls-key", dir.path() + "/missing.pem",
        "--tls-ca", dir.path() + "/missing.pem", "--db", dir.path() + "/ok.db"},
       "--tls-cert"},
      {{"--tls-cert", dir.path() + "/cert.pem", "--tls-key", dir.path() + "/cert.pem",
        "--tls-ca", dir.path() + "/cert.pem", "--db", dir.path() + "/ok.db"},
       "--tls-cert"},
  };
  for (const Case& c : cases) {
    CommandResult r = Coordinator(c.args);
    EXPECT_EQ(r.exit_code, 3) << c.says << "\n" << r.err;
    const std::string last = LastLine(r.err);
    EXPECT_TRUE(absl::StartsWith(last, "nodeprobe: error: ")) << r.err;
    EXPECT_TRUE(absl::StrContains(last, c.says)) << c.says << "\n" << r.err;
  }
  // A metrics address that cannot be served says which flag to change.
  CommandResult m = testing::RunBinary(
      "/usr/bin/timeout", {"10", NODEPROBE_BINARY, "coordinator", "--insecure", "--db",
                           dir.path() + "/ok.db", "--listen", "127.0.0.1:0", "--metrics-listen",
                           "no-such-host.invalid:1"});
  EXPECT_EQ(m.exit_code, 3) << m.err;
  EXPECT_TRUE(absl::StrContains(LastLine(m.err), "--metrics-listen")) << m.err;
}

TEST(CoordinatorStartupTest, ASecondCoordinatorOnTheSameAddressDoesNotStart) {
  testing::TempDir dir;
  const std::string listen = absl::StrCat("127.0.0.1:", testing::FreeLoopbackPort());
  const std::string first_db = dir.path() + "/first.db";
  std::vector<std::string> argv_s = {NODEPROBE_BINARY, "coordinator",  "--insecure",
                                     "--db",           first_db,       "--listen",
                                     listen,           "--metrics-listen", ""};
  std::vector<char*> argv;
  for (std::string& a : argv_s) argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  const std::string log = dir.path() + "/first.log";
  posix_spawn_file_actions_addopen(&fa, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
  pid_t first = 0;
  ASSERT_EQ(posix_spawn(&first, NODEPROBE_BINARY, &fa, nullptr, argv.data(), environ), 0);
  posix_spawn_file_actions_destroy(&fa);
  // Listening once it says so.
  bool up = false;
  for (int i = 0; i < 100 && !up; ++i) {
    std::ifstream in(log);
    std::string said((std::istreambuf_iterator<char>(in)), {});
    up = absl::StrContains(said, "listening on port");
    if (!up) absl::SleepFor(absl::Milliseconds(100));
  }
  EXPECT_TRUE(up);
  CommandResult second =
      Coordinator({"--insecure", "--db", dir.path() + "/second.db", "--listen", listen});
  kill(first, SIGTERM);
  int status = 0;
  waitpid(first, &status, 0);
  EXPECT_EQ(second.exit_code, 3) << second.err;  // 124 would be: it started
  EXPECT_TRUE(absl::StrContains(LastLine(second.err), "cannot listen on " + listen))
      << second.err;
}

}  // namespace
}  // namespace nodeprobe
