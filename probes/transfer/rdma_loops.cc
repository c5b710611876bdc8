#include "probes/transfer/rdma_loops.h"

#include <algorithm>

#include "absl/status/status.h"
#include "probes/transfer/transfer_stats.h"

namespace nodeprobe::transfer {

platform::RemoteQp SecondHalf(platform::RemoteQp r, size_t size) {
  r.addr += size;
  return r;
}

namespace {

// The latency loop's waits are bare spins, as perftest's: the clock is
// read only once every kSpinsPerClockRead spins (tens of microseconds),
// to give up after the idle timeout.
constexpr uint32_t kSpinsPerClockRead = 1u << 16;

class IdleWatch {
 public:
  explicit IdleWatch(absl::Duration idle) : idle_ns_(absl::ToInt64Nanoseconds(idle)) {}
  // Called on every spin; true when the wait has lasted past the idle
  // timeout (measured from the first clock read of this wait).
  bool Expired() {
    if (++spins_ != kSpinsPerClockRead) return false;
    spins_ = 0;
    const int64_t now = NowNs();
    if (since_ == 0) since_ = now;
    return now - since_ > idle_ns_;
  }

 private:
  int64_t idle_ns_;
  uint32_t spins_ = 0;
  int64_t since_ = 0;
};

}  // namespace

absl::Status AwaitSendCompletion(platform::VerbsQp& qp, absl::Duration idle) {
  IdleWatch watch(idle);
  while (true) {
    absl::StatusOr<bool> got = qp.PollOne();
    if (!got.ok()) return got.status();
    if (*got) return absl::OkStatus();
    if (watch.Expired()) {
      return absl::DeadlineExceededError("no completion for the latency write (peer gone?)");
    }
  }
}

absl::Status PingPong(platform::VerbsQp& qp, const platform::RemoteQp& remote, size_t size,
                      uint64_t count, bool initiator, absl::Duration idle,
                      std::vector<int64_t>* rtts, uint64_t warmup) {
  volatile uint8_t* send_tag = qp.buffer() + size - 1;
  volatile uint8_t* recv_tag = qp.buffer() + 2 * size - 1;
  const platform::RemoteQp target = SecondHalf(remote, size);
  auto tag_of = [](uint64_t n) { return static_cast<uint8_t>(n % 255 + 1); };  // never 0
  int64_t previous_post = 0;
  if (rtts != nullptr) rtts->reserve(count);  // before the loop: nothing allocated in it
  for (uint64_t n = 0; n < count; ++n) {
    if (!(initiator && n == 0)) {
      IdleWatch watch(idle);
      const uint8_t want = tag_of(initiator ? n - 1 : n);
      while (*recv_tag != want) {
        if (watch.Expired()) {
          return absl::DeadlineExceededError("the peer stopped answering the ping-pong");
        }
      }
    }
    if (initiator) {
      const int64_t now = NowNs();
      if (n > warmup && rtts != nullptr) rtts->push_back(now - previous_post);
      previous_post = now;
    }
    *send_tag = tag_of(n);
    absl::Status s = qp.Post(IBV_WR_RDMA_WRITE, target, size, n, /*signaled=*/true);
    if (s.ok()) s = AwaitSendCompletion(qp, idle);
    if (!s.ok()) return s;
  }
  if (initiator && count > 0) {
    // The responder's answer to the last post: perftest's initiator waits
    // for it too (not timed), so neither side tears down a QP with a write
    // of the other still in flight.
    IdleWatch watch(idle);
    while (*recv_tag != tag_of(count - 1)) {
      if (watch.Expired()) return absl::DeadlineExceededError("no answer to the last ping");
    }
  }
  return absl::OkStatus();
}

void BwLoop(platform::VerbsQp& qp, const platform::RemoteQp& remote, ibv_wr_opcode opcode,
            size_t size, uint32_t tx_depth, double duration_s, absl::Duration idle,
            BwOutcome* out) {
  std::vector<uint64_t> ids;
  ids.reserve(platform::VerbsQp::kMaxPoll);
  uint64_t posted = 0, completed = 0;
  bool last_signaled = true;
  tx_depth = std::max<uint32_t>(tx_depth, 1);
  const uint32_t cq_mod = CqModeration(size, tx_depth);
  const int64_t start = NowNs();
  const int64_t end = start + static_cast<int64_t>(duration_s * 1e9);
  int64_t last_progress = start;
  const int64_t idle_ns = absl::ToInt64Nanoseconds(idle);
  while (true) {
    const int64_t now = NowNs();
    while (posted - completed < tx_depth && now < end) {
      const bool signaled = (posted + 1) % cq_mod == 0;
      if (out->record.TimesPost(posted)) out->record.Posted(posted, NowNs());
      out->status = qp.Post(opcode, remote, size, posted, signaled);
      if (!out->status.ok()) return;
      ++posted;
      last_signaled = signaled;
    }
    if (now >= end && !last_signaled && posted - completed < tx_depth) {
      // The tail after the last signaled request would never report: one
      // more, signaled, closes the run (perftest signals its last too).
      if (out->record.TimesPost(posted)) out->record.Posted(posted, NowNs());
      out->status = qp.Post(opcode, remote, size, posted, true);
      if (!out->status.ok()) return;
      ++posted;
      last_signaled = true;
    }
    ids.clear();
    absl::StatusOr<int> n = qp.Poll(platform::VerbsQp::kMaxPoll, &ids);
    if (!n.ok()) {
      out->status = n.status();
      return;
    }
    const int64_t polled = NowNs();
    // Each completion of the batch, stamped with the poll's time (perftest
    // stamps each wc as it walks the batch: the same instant to within ns).
    for (uint64_t id : ids) {
      out->record.Completed(id + 1, polled);
      completed = std::max(completed, id + 1);
    }
    if (!ids.empty()) last_progress = polled;
    if (polled >= end && completed == posted && last_signaled) return;
    if (polled - last_progress > idle_ns) {
      out->status = absl::DeadlineExceededError("no RDMA completion within the idle timeout");
      return;
    }
  }
}

}  // namespace nodeprobe::transfer
