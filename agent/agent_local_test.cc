// The agent's loopback endpoint: AgentLocal.Status and the standard gRPC
// health service, served in-process for the test.
#include <grpcpp/grpcpp.h>
#include <grpcpp/health_check_service_interface.h>

#include "agent/agent.h"
#include "gtest/gtest.h"

namespace nodeprobe::agent {
namespace {

TEST(AgentLocalTest, StatusReportsIdentityAndConnection) {
  AgentOptions o;
  o.coordinator = "127.0.0.1:1";
  o.node_name = "gpu-test";
  o.tls.insecure = true;
  Agent agent(o);  // not running: never connected
  AgentLocalService local(&agent);
  grpc::EnableDefaultHealthCheckService(true);
  grpc::ServerBuilder builder;
  int port = 0;
  builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port);
  builder.RegisterService(&local);
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  ASSERT_NE(server, nullptr);
  auto channel = grpc::CreateChannel("127.0.0.1:" + std::to_string(port),
                                     grpc::InsecureChannelCredentials());
  auto stub = v1::AgentLocal::NewStub(channel);
  grpc::ClientContext ctx;
  v1::AgentStatus status;
  grpc::Status s = stub->Status(&ctx, v1::AgentStatusRequest(), &status);
  ASSERT_TRUE(s.ok()) << s.error_message();
  EXPECT_EQ(status.node_name(), "gpu-test");
  EXPECT_EQ(status.coordinator(), "127.0.0.1:1");
  EXPECT_FALSE(status.connected());
  EXPECT_EQ(status.registrations(), 0u);
  server->Shutdown();
}

}  // namespace
}  // namespace nodeprobe::agent
