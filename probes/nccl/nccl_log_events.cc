// File: nccl_log_events.cc
// RE2 throughout: linear time on any line.
#include "probes/nccl/nccl_log_events.h"

#include <re2/re2.h>

#include <cctype>

#include "probes/nccl/re2_text.h"

namespace nodeprobe::nccl {
namespace {

struct Class {
  const char* kind;
  const RE2* pattern;
};

// NCCL WARN messages, first match wins (a registration failure that
// mentions a timeout is a registration failure).
const std::vector<Class>& WarnClasses() {
  static const auto* classes = new std::vector<Class>{
      {"memory_registration",
       new RE2("Unable to register memory|ibv_reg_(?:dmabuf_)?mr(?:_iova2?)? failed|"
               "[Ff]ailed to register|Couldn't register memory|[Rr]egMr failed")},
      {"shared_memory",
       new RE2("shared memory segment|failed to extend /dev/shm|posix_fallocate|/dev/shm")},
      {"transport_setup",
       new RE2("ibv_create_qp|ibv_modify_qp|Call to ibv_\\w+ failed|"
               "Got completion .*(?:status|error)|Connection (?:refused|closed|reset)|"
               "socketPollConnect|socketStartConnect|NET/IB : No device found")},
      {"timeout", new RE2("[Tt]imeout|timed out")},
      {"error",
       new RE2("nccl(?:Internal|System|Remote|UnhandledCuda|InvalidUsage|InvalidArgument)Error|"
               "Cuda failure|NCCL failure|[Uu]nhandled (?:system|cuda) error")},
  };
  return *classes;
}

int RankOf(std::string_view line) {
  static const RE2 re("\\[(?:[Rr]ank ?)(\\d+)\\]");
  int rank = -1;
  return RE2::PartialMatch(Piece(line), re, &rank) ? rank : -1;
}

}  // namespace

std::optional<LineEvent> ClassifyNcclWarning(std::string_view warn) {
  for (const Class& c : WarnClasses()) {
    if (RE2::PartialMatch(Piece(warn), *c.pattern)) {
      return LineEvent{c.kind, std::string(warn), -1, "", 0};
    }
  }
  return LineEvent{"warning", std::string(warn), -1, "", 0};
}

std::optional<LineEvent> ClassifyJobLine(std::string_view line) {
  // "[rank0]:[E806 ...] ProcessGroupNCCL.cpp:616] [Rank 0] Watchdog caught
  // collective operation timeout: WorkNCCL(SeqNum=3, OpType=ALLREDUCE, ..."
  static const RE2 watchdog(
      "(Watchdog caught collective operation timeout: WorkNCCL\\(SeqNum=(\\d+), "
      "OpType=(\\w+).*)");
  static const RE2 error(
      "(.*(?:nccl(?:Internal|System|Remote|UnhandledCuda|InvalidUsage)Error|NCCL error in:|"
      "Cuda failure|NCCL failure).*)");
  static const RE2 killed(
      "(.*(?:srun: error: .*(?:Killed|Terminated|Aborted|exited with exit code [1-9])|"
      "slurmstepd: error: \\*\\*\\* (?:STEP|JOB) .*CANCELLED|srun: Job step aborted|"
      "srun: forcing job termination|ChildFailedError|Sending process \\d+ closing signal|"
      "failed \\(exitcode: -?[1-9]|Fatal Python error: Aborted).*)");
  std::string message, op;
  uint64_t seq = 0;
  LineEvent out;
  if (RE2::PartialMatch(Piece(line), watchdog, &message, &seq, &op)) {
    out = LineEvent{"timeout", message, RankOf(line), op, seq};
  } else if (RE2::FullMatch(Piece(line), error, &message)) {
    out = LineEvent{"error", message, RankOf(line), "", 0};
  } else if (RE2::FullMatch(Piece(line), killed, &message)) {
    out = LineEvent{"job_killed", message, RankOf(line), "", 0};
  } else {
    return std::nullopt;
  }
  // "[rank3]:" starts PyTorch's lines.
  static const RE2 torch_rank("^\\[rank(\\d+)\\]:");
  int rank = -1;
  if (out.rank < 0 && RE2::PartialMatch(Piece(line), torch_rank, &rank)) out.rank = rank;
  return out;
}

std::string MessageShape(std::string_view message) {
  std::string out;
  out.reserve(message.size());
  for (size_t i = 0; i < message.size();) {
    const unsigned char c = static_cast<unsigned char>(message[i]);
    if (std::isdigit(c)) {
      // A number, or a 0x... address: one '#'.
      if (c == '0' && i + 1 < message.size() && (message[i + 1] == 'x' || message[i + 1] == 'X')) {
        i += 2;
        while (i < message.size() && std::isxdigit(static_cast<unsigned char>(message[i]))) ++i;
      } else {
        while (i < message.size() && std::isdigit(static_cast<unsigned char>(message[i]))) ++i;
      }
      out.push_back('#');
    } else {
      out.push_back(static_cast<char>(c));
      ++i;
    }
  }
  return out;
}

}  // namespace nodeprobe::nccl
