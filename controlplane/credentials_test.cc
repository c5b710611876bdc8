#include "controlplane/credentials.h"

#include <stdlib.h>

#include "gtest/gtest.h"
#include "tests/testing/fixtures.h"

namespace nodeprobe::controlplane {
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

// A key that is not the certificate's: one line naming both files, before
// gRPC ever sees them.
TEST(CredentialsTest, AKeyThatIsNotTheCertificatesIsNamed) {
  testing::TempDir dir;
  const std::string d = dir.path();
  ASSERT_EQ(system(("openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=a -keyout " + d +
                    "/a.key -out " + d +
                    "/a.pem 2>/dev/null && openssl genpkey -algorithm RSA "
                    "-out " +
                    d + "/other.key 2>/dev/null")
                       .c_str()),
            0);
  TlsFiles good{d + "/a.pem", d + "/a.key", d + "/a.pem", false};
  EXPECT_TRUE(ClientCredentials(good).ok()) << ClientCredentials(good).status();
  TlsFiles wrong{d + "/a.pem", d + "/other.key", d + "/a.pem", false};
  for (const absl::Status& s :
       {ClientCredentials(wrong).status(), ServerCredentials(wrong).status()}) {
    EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
    EXPECT_NE(s.message().find("other.key is not the key of --tls-cert"), std::string::npos) << s;
  }
}

TEST(ResolveCoordinatorTest, FlagThenEnvThenConfigThenError) {
  testing::TempDir dir;
  const std::string config = dir.path() + "/nodeprobe.yaml";
  unsetenv("NODEPROBE_COORDINATOR");
  EXPECT_EQ(*ResolveCoordinator("a:1", config), "a:1");
  EXPECT_EQ(ResolveCoordinator("", config).status().code(), absl::StatusCode::kFailedPrecondition);
  testing::WriteFile(config, "coordinator: c:3\n");
  EXPECT_EQ(*ResolveCoordinator("", config), "c:3");
  setenv("NODEPROBE_COORDINATOR", "b:2", 1);
  EXPECT_EQ(*ResolveCoordinator("", config), "b:2");
  unsetenv("NODEPROBE_COORDINATOR");
}

}  // namespace
}  // namespace nodeprobe::controlplane
