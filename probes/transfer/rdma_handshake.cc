// File: rdma_handshake.cc
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
  if (!bidirectional || !s.ok() || !mine.error().empty()) {
    if (!s.ok()) return s;
    return v1::TransferDone();
  }
  // The server's half ran for the same duration; it answers once it has
  // our Done, so the wait covers its last idle timeout too.
  v1::ControlMessage theirs;
  s = platform::ReadMessage(control, &theirs, absl::Now() + t.setup + t.idle);
  if (!s.ok()) return s;
  if (!theirs.has_done()) return absl::UnavailableError("server: no result for its half");
  if (!theirs.done().error().empty()) {
    return absl::UnavailableError(absl::StrCat("server: ", theirs.done().error()));
  }
  return theirs.done();
}

bool ServeBidirectionalHalf(int control, const Timeouts& t,
                            const std::function<v1::TransferDone()>& loop) {
  v1::ControlMessage go;
  if (!platform::ReadMessage(control, &go, absl::Now() + t.setup).ok() || !go.has_go()) {
    return false;
  }
  v1::ControlMessage mine;
  *mine.mutable_done() = loop();
  v1::ControlMessage done;
  (void)platform::ReadMessage(control, &done, absl::Now() + t.setup + t.idle);
  (void)platform::WriteMessage(control, mine, absl::Now() + t.setup);
  return true;
}

}  // namespace nodeprobe::transfer
