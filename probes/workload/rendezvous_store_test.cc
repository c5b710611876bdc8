#include "probes/workload/rendezvous_store.h"

#include <gtest/gtest.h>

#include <thread>

#include "probes/workload/gloo_replay.h"

namespace nodeprobe::workload {
namespace {

constexpr char kSecret[] = "0123456789abcdef0123456789abcdef";

// Ranks as threads, each with its own connection to rank 0's store, as
// workers on separate nodes would have.
TEST(RendezvousStoreTest, GlooRanksMeetThroughIt) {
  absl::StatusOr<std::unique_ptr<StoreServer>> server = StoreServer::Start("127.0.0.1", kSecret);
  ASSERT_TRUE(server.ok()) << server.status();
  WorkloadShape s;
  s.tp = 2;
  s.hidden = 256;
  s.seq = 64;
  s.layers = 2;
  s.params_b = 0.001;
  s.compute_ms_per_layer = 0.1;
  s.warmup = 1;
  s.steps = 3;
  absl::StatusOr<Placement> pl = Place(s, 2, 2);
  ASSERT_TRUE(pl.ok());
  std::vector<absl::Status> results(4, absl::UnknownError("not run"));
  std::vector<std::thread> ranks;
  for (int r = 0; r < 4; ++r) {
    ranks.emplace_back([&, r] {
      auto store =
          StoreClient::Connect({"127.0.0.1", (*server)->port()}, kSecret, absl::Seconds(30));
      if (!store.ok()) {
        results[r] = store.status();
        return;
      }
      auto replay = GlooReplay::Connect(*pl, r, **store, "127.0.0.1", absl::Seconds(30));
      if (!replay.ok()) {
        results[r] = replay.status();
        return;
      }
      results[r] = (*replay)->Run(StepProgram(s, *pl, r), s.warmup, s.steps).status();
    });
  }
  for (std::thread& t : ranks) t.join();
  for (const absl::Status& st : results) EXPECT_TRUE(st.ok()) << st;
  EXPECT_EQ((*server)->refused(), 0);
}

// A stranger without the secret is cut off and sets nothing; a value over
// the limit is refused the same way.
TEST(RendezvousStoreTest, AStrangerCannotPoisonIt) {
  StoreLimits limits;
  limits.get_wait = absl::Milliseconds(300);
  limits.max_value_bytes = 1024;
  absl::StatusOr<std::unique_ptr<StoreServer>> server =
      StoreServer::Start("127.0.0.1", kSecret, limits);
  ASSERT_TRUE(server.ok());
  const platform::HostPort at{"127.0.0.1", (*server)->port()};
  auto stranger = StoreClient::Connect(at, "not-the-secret-at-all!", absl::Seconds(2));
  ASSERT_TRUE(stranger.ok());
  try {
    (*stranger)->set("rank_0", {'x'});
    (*stranger)->set("rank_0", {'y'});  // the connection is closed by now
  } catch (const std::exception&) {
  }
  auto rank = StoreClient::Connect(at, kSecret, absl::Milliseconds(800));
  ASSERT_TRUE(rank.ok());
  EXPECT_THROW((*rank)->get("rank_0"), std::runtime_error);
  try {
    (*rank)->set("big", std::vector<char>(4096, 'z'));
  } catch (const std::exception&) {
  }
  auto again = StoreClient::Connect(at, kSecret, absl::Milliseconds(800));
  ASSERT_TRUE(again.ok());
  EXPECT_THROW((*again)->get("big"), std::runtime_error);
  EXPECT_GE((*server)->refused(), 2);
  (*again)->set("ok", {'1'});
  EXPECT_EQ((*again)->get("ok"), std::vector<char>{'1'});
}

TEST(RendezvousStoreTest, AShortSecretIsRefused) {
  EXPECT_FALSE(StoreServer::Start("127.0.0.1", "short").ok());
}

}  // namespace
}  // namespace nodeprobe::workload
