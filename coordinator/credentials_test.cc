#include "coordinator/credentials.h"

#include <stdlib.h>

#include "gtest/gtest.h"
#include "tests/testing/fixtures.h"

namespace nodeprobe::coordinator {
namespace {

TEST(CredentialsTest, TlsWithoutFilesNamesTheMissingFlag) {
  TlsFiles f;
  auto creds = ServerCredentials(f);
  EXPECT_EQ(creds.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(creds.status().message().find("--tls-cert"), std::string::npos);
  EXPECT_NE(creds.status().message().find("--insecure"), std::string::npos);
}

TEST(CredentialsTest, NonPemFileIsRejected) {
  testing::TempDir dir;
  testing::WriteFile(dir.path() + "/c.pem", "hello");
  TlsFiles f{dir.path() + "/c.pem", dir.path() + "/c.pem", dir.path() + "/c.pem", false};
  EXPECT_NE(ClientCredentials(f).status().message().find("not a PEM file"), std::string::npos);
}

TEST(ResolveCoordinatorTest, FlagThenEnvThenConfigThenError) {
  testing::TempDir dir;
  const std::string config = dir.path() + "/nodeprobe.yaml";
  unsetenv("NODEPROBE_COORDINATOR");
  EXPECT_EQ(*ResolveCoordinator("a:1", config), "a:1");
  EXPECT_EQ(ResolveCoordinator("", config).status().code(),
            absl::StatusCode::kFailedPrecondition);
  testing::WriteFile(config, "coordinator: c:3\n");
  EXPECT_EQ(*ResolveCoordinator("", config), "c:3");
  setenv("NODEPROBE_COORDINATOR", "b:2", 1);
  EXPECT_EQ(*ResolveCoordinator("", config), "b:2");
  unsetenv("NODEPROBE_COORDINATOR");
}

}  // namespace
}  // namespace nodeprobe::coordinator
