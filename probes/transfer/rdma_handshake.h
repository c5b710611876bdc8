// File: rdma_handshake.h
// The control-connection steps around an RDMA bandwidth run, kept apart
// from the verbs so that their order is tested without a device:
//   client                         server
//   Request (+ its QP)  ------->   QP to RTS, receives posted
//                       <-------   Ready (+ its QP)
//   QP to RTS; Go       ------->   (bidirectional only) its half starts now
//   its loop                        its loop
//   Done (its figures)  ------->
//                       <-------   Done (its half's figures)
// The server's traffic never starts before the client's Go: a packet that
// meets a QP not yet able to receive costs a retransmit timeout (~67 ms,
// -6.7 % on a 1 s run).
#pragma once

#include <functional>

#include "absl/status/statusor.h"
#include "nodeprobe/v1/transfer.pb.h"
#include "probes/transfer/transfer_engine.h"

namespace nodeprobe::transfer {

// Client: its QP is RTS; the server may start its half.
absl::Status SendGo(int control, const Timeouts& t);

// Client, after its own loop: sends its figures (`mine`), then reads the
// server's answer: its half's figures when the run is bidirectional (an
// error if they do not come), and its port counters either way. A one-way
// run's server that does not answer (an older nodeprobe closes instead)
// costs only its counters: an OK TransferDone with counters_unread set.
absl::StatusOr<v1::TransferDone> FinishClient(int control, const v1::TransferDone& mine,
                                              bool bidirectional, const Timeouts& t);

// Server, one way (and write_lat): waits until the client's Done (or
// `until`), then answers with `finish`'s Done (its counters).
void ServeOneWayEnd(int control, absl::Time until,
                    const std::function<void(v1::TransferDone*)>& finish);

// Server, bidirectional: waits for the client's Go (anything else, or the
// connection closing, ends it without running `loop`), runs `loop`, waits
// for the client's Done, then answers with its own figures, to which
// `finish` adds its counters. False when the loop did not run.
bool ServeBidirectionalHalf(int control, const Timeouts& t,
                            const std::function<v1::TransferDone()>& loop,
                            const std::function<void(v1::TransferDone*)>& finish = nullptr);

}  // namespace nodeprobe::transfer
