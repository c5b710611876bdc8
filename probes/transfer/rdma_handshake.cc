#include "probes/transfer/rdma_handshake.h"

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "platform/socket.h"

namespace nodeprobe::transfer {

absl::Status SendGo(int control, const Timeouts& t) {
  v1::ControlMessage go;
  go.mutable_go();
  return platform::WriteMessage(control, go, absl::Now() + t.setup);
}

absl::StatusOr<v1::TransferDone> FinishClient(int control, const v1::TransferDone& mine,
                                              bool bidirectional, const Timeouts& t) {
  v1::ControlMessage done;
  *done.mutable_done() = mine;
  absl::Status s = platform::WriteMessage(control, done, absl::Now() + t.setup);
  if (!s.ok()) return s;
  if (!mine.error().empty()) return v1::TransferDone();
  // The server's half ran for the same duration; it answers once it has
  // our Done, so the wait covers its last idle timeout too.
  v1::ControlMessage theirs;
  s = platform::ReadMessage(control, &theirs,
                            absl::Now() + t.setup + (bidirectional ? t.idle : absl::ZeroDuration()));
  if (!bidirectional) {
    v1::TransferDone answer;
    if (s.ok() && theirs.has_done()) {
      answer = theirs.done();
    } else {
      answer.set_counters_unread(absl::StrCat(
          "server: no counters after the run (",
          s.ok() ? "it answered something else" : s.message(),
          "); it may run an older nodeprobe"));
    }
    return answer;
  }
  if (!s.ok()) return s;
  if (!theirs.has_done()) return absl::UnavailableError("server: no result for its half");
  if (!theirs.done().error().empty()) {
    return absl::UnavailableError(absl::StrCat("server: ", theirs.done().error()));
  }
  return theirs.done();
}

void ServeOneWayEnd(int control, absl::Time until,
                    const std::function<void(v1::TransferDone*)>& finish) {
  v1::ControlMessage done;
  if (!platform::ReadMessage(control, &done, until).ok() || !done.has_done()) return;
  v1::ControlMessage answer;
  if (finish) finish(answer.mutable_done());
  (void)platform::WriteMessage(control, answer, absl::Now() + absl::Seconds(5));
}

bool ServeBidirectionalHalf(int control, const Timeouts& t,
                            const std::function<v1::TransferDone()>& loop,
                            const std::function<void(v1::TransferDone*)>& finish) {
  v1::ControlMessage go;
  if (!platform::ReadMessage(control, &go, absl::Now() + t.setup).ok() || !go.has_go()) {
    return false;
  }
  v1::ControlMessage mine;
  *mine.mutable_done() = loop();
  v1::ControlMessage done;
  (void)platform::ReadMessage(control, &done, absl::Now() + t.setup + t.idle);
  if (finish) finish(mine.mutable_done());
  (void)platform::WriteMessage(control, mine, absl::Now() + t.setup);
  return true;
}

}  // namespace nodeprobe::transfer
