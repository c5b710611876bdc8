#include "coordinator/rank_tasks.h"

#include <atomic>
#include <thread>

#include "absl/strings/str_format.h"
#include "absl/time/clock.h"
#include "coordinator/agent_tasks.h"

namespace nodeprobe::coordinator {

std::vector<RankReply> AwaitRanks(const std::vector<RankTask>& ranks, absl::Time deadline,
                                  absl::Duration grace,
                                  const std::function<bool(const v1::TaskResult&)>& finished) {
  const size_t n = ranks.size();
  std::vector<RankReply> replies(n);
  std::atomic<int64_t> failed_at{0};
  std::vector<std::atomic<bool>> done(n);
  std::vector<std::thread> waits;
  for (size_t r = 0; r < n; ++r) {
    if (!ranks[r].sent) {
      failed_at = absl::ToUnixNanos(absl::Now());
      done[r] = true;
      continue;
    }
    waits.emplace_back([&, r] {
      RankReply& a = replies[r];
      absl::StatusOr<v1::AgentMessage> m = ranks[r].node->Await(ranks[r].task_id, deadline);
      if (m.ok() && m->has_result()) {
        a.result = m->result();
      } else {
        a.lost = m.ok() ? "answered with something that is not a result"
                        : std::string(m.status().message());
      }
      if (!a.result.has_value() || !finished(*a.result)) {
        int64_t none = 0;
        failed_at.compare_exchange_strong(none, absl::ToUnixNanos(absl::Now()));
      }
      done[r] = true;
    });
  }
  std::vector<bool> cancelled(n, false);
  while (true) {
    bool all = true;
    for (size_t r = 0; r < n; ++r) all &= done[r].load();
    if (all) break;
    const int64_t f = failed_at.load();
    if (f != 0 && absl::Now() > absl::FromUnixNanos(f) + grace) {
      for (size_t r = 0; r < n; ++r) {
        if (!done[r] && !cancelled[r]) {
          Cancel(*ranks[r].node, ranks[r].task_id);
          cancelled[r] = true;
        }
      }
    }
    absl::SleepFor(absl::Milliseconds(100));
  }
  for (std::thread& t : waits) t.join();
  for (size_t r = 0; r < n; ++r) {
    RankReply& a = replies[r];
    if (cancelled[r] && !(a.result.has_value() && finished(*a.result))) {
      a.result.reset();
      a.lost = absl::StrFormat(
          "stopped by the coordinator: another rank had failed and this one had not answered "
          "within %.0f s",
          absl::ToDoubleSeconds(grace));
    }
  }
  return replies;
}

}  // namespace nodeprobe::coordinator
