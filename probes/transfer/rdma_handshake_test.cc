// The order of the control messages around an RDMA bandwidth run, on a
// socketpair with the loops replaced: what the server's half may do before
// the client's Go, and what each side learns of the other's figures.
#include "probes/transfer/rdma_handshake.h"

#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <thread>

#include "absl/time/clock.h"
#include "gtest/gtest.h"
#include "platform/socket.h"

namespace nodeprobe::transfer {
namespace {

const Timeouts kTimeouts{absl::Seconds(2), absl::Seconds(1)};

class ControlPair : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, fds_), 0); }
  void TearDown() override {
    if (fds_[0] >= 0) close(fds_[0]);
    if (fds_[1] >= 0) close(fds_[1]);
  }
  int client() const { return fds_[0]; }
  int server() const { return fds_[1]; }
  void CloseClient() {
    close(fds_[0]);
    fds_[0] = -1;
  }

 private:
  int fds_[2] = {-1, -1};
};

v1::TransferDone Figures(uint64_t bytes, int64_t first, int64_t last, double peak) {
  v1::TransferDone d;
  d.set_bytes(bytes);
  d.set_first_ns(first);
  d.set_last_ns(last);
  d.set_peak_gbps(peak);
  return d;
}

TEST_F(ControlPair, TheServersHalfStartsOnlyAfterTheClientsGo) {
  std::atomic<bool> go_sent{false};
  std::atomic<bool> loop_ran{false};
  std::atomic<bool> loop_ran_before_go{false};
  bool served = false;
  std::thread srv([&] {
    served = ServeBidirectionalHalf(server(), kTimeouts, [&] {
      loop_ran_before_go = !go_sent.load();
      loop_ran = true;
      return Figures(4096, 100, 1'000'000'100, 7.5);
    });
  });
  // The client's QP is still on its way to RTS: the server must wait.
  absl::SleepFor(absl::Milliseconds(200));
  EXPECT_FALSE(loop_ran.load());
  go_sent = true;
  ASSERT_TRUE(SendGo(client(), kTimeouts).ok());
  absl::StatusOr<v1::TransferDone> theirs =
      FinishClient(client(), Figures(8192, 0, 0, 0), /*bidirectional=*/true, kTimeouts);
  srv.join();
  EXPECT_TRUE(served);
  EXPECT_TRUE(loop_ran.load());
  EXPECT_FALSE(loop_ran_before_go.load());
  ASSERT_TRUE(theirs.ok()) << theirs.status();
  EXPECT_EQ(theirs->bytes(), 4096u);
  EXPECT_EQ(theirs->first_ns(), 100);
  EXPECT_EQ(theirs->last_ns(), 1'000'000'100);
  EXPECT_DOUBLE_EQ(theirs->peak_gbps(), 7.5);
}

TEST_F(ControlPair, TheServerAnswersOnlyAfterTheClientsDone) {
  // The client's Done is what tells the server its half may report: the
  // client's figures reach the server first, then the server's come back.
  std::thread srv([&] {
    ServeBidirectionalHalf(server(), kTimeouts, [] { return Figures(1, 0, 1, 0); });
  });
  ASSERT_TRUE(SendGo(client(), kTimeouts).ok());
  // Nothing comes back before our Done.
  v1::ControlMessage early;
  absl::Status s = platform::ReadMessage(client(), &early, absl::Now() + absl::Milliseconds(200));
  EXPECT_FALSE(s.ok());
  absl::StatusOr<v1::TransferDone> theirs =
      FinishClient(client(), Figures(2, 0, 1, 0), true, kTimeouts);
  srv.join();
  ASSERT_TRUE(theirs.ok()) << theirs.status();
  EXPECT_EQ(theirs->bytes(), 1u);
}

TEST_F(ControlPair, ADoneInsteadOfAGoNeverStartsTheServersHalf) {
  // Anything but a Go (here a Done with an error) is no leave to send: the
  // server sends nothing toward a QP that may not receive. (A client whose
  // QP never reached RTS just closes: the next test.)
  std::atomic<bool> loop_ran{false};
  bool served = true;
  std::thread srv([&] {
    served = ServeBidirectionalHalf(server(), kTimeouts, [&] {
      loop_ran = true;
      return v1::TransferDone();
    });
  });
  v1::TransferDone failed;
  failed.set_error("modify QP to RTR: Invalid argument");
  absl::StatusOr<v1::TransferDone> theirs = FinishClient(client(), failed, true, kTimeouts);
  srv.join();
  EXPECT_FALSE(served);
  EXPECT_FALSE(loop_ran.load());
  // A client with its own error does not wait for the server's half.
  ASSERT_TRUE(theirs.ok());
  EXPECT_EQ(theirs->bytes(), 0u);
}

TEST_F(ControlPair, AClientThatVanishesEndsTheServersWaitAtOnce) {
  std::atomic<bool> loop_ran{false};
  const absl::Time start = absl::Now();
  std::thread srv([&] {
    ServeBidirectionalHalf(server(), kTimeouts, [&] {
      loop_ran = true;
      return v1::TransferDone();
    });
  });
  CloseClient();
  srv.join();
  EXPECT_FALSE(loop_ran.load());
  EXPECT_LT(absl::Now() - start, kTimeouts.setup);
}

TEST_F(ControlPair, AServerHalfThatFailedIsTheClientsError) {
  std::thread srv([&] {
    ServeBidirectionalHalf(server(), kTimeouts, [] {
      v1::TransferDone d;
      d.set_error("work completion: retry exceeded");
      return d;
    });
  });
  ASSERT_TRUE(SendGo(client(), kTimeouts).ok());
  absl::StatusOr<v1::TransferDone> theirs =
      FinishClient(client(), Figures(2, 0, 1, 0), true, kTimeouts);
  srv.join();
  ASSERT_FALSE(theirs.ok());
  EXPECT_NE(theirs.status().message().find("server: work completion: retry exceeded"),
            std::string::npos)
      << theirs.status();
}

// One way: the client sends its Done, the server answers with its
// counters (ServeOneWayEnd), and the client gets them.
TEST_F(ControlPair, OneWayRunsSendDoneAndGetTheServersCounters) {
  bool answered = false;
  std::thread srv([&] {
    ServeOneWayEnd(server(), absl::Now() + kTimeouts.setup, [&](v1::TransferDone* d) {
      v1::CounterDelta* c = d->add_counters();
      c->set_side("server");
      c->set_counter("port_rcv_errors");
      c->set_delta(3);
    });
    answered = true;
  });
  absl::StatusOr<v1::TransferDone> theirs =
      FinishClient(client(), Figures(64, 0, 1, 0), /*bidirectional=*/false, kTimeouts);
  srv.join();
  ASSERT_TRUE(theirs.ok()) << theirs.status();
  ASSERT_EQ(theirs->counters_size(), 1);
  EXPECT_EQ(theirs->counters(0).delta(), 3u);
  EXPECT_TRUE(answered);
}

// An older server reads the Done and closes: the run keeps its figures,
// only the server's counters are missing, and that is said.
TEST_F(ControlPair, AnOlderServerThatClosesCostsOnlyItsCounters) {
  std::thread srv([&] {
    v1::ControlMessage got;
    EXPECT_TRUE(platform::ReadMessage(server(), &got, absl::Now() + kTimeouts.setup).ok());
    EXPECT_EQ(got.done().bytes(), 64u);
    shutdown(server(), SHUT_RDWR);
  });
  const absl::Time start = absl::Now();
  absl::StatusOr<v1::TransferDone> theirs =
      FinishClient(client(), Figures(64, 0, 1, 0), /*bidirectional=*/false, kTimeouts);
  srv.join();
  ASSERT_TRUE(theirs.ok()) << theirs.status();
  EXPECT_LT(absl::Now() - start, kTimeouts.setup);
  EXPECT_NE(theirs->counters_unread().find("server: no counters"), std::string::npos)
      << theirs->counters_unread();
}

}  // namespace
}  // namespace nodeprobe::transfer
