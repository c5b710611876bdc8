// File: nccl_tests_output.h
// The tables nccl-tests (all_reduce_perf, ...) print, read from any text:
// both column sets (2.17's "... root time algbw busbw #wrong" and the older
// "... redop time algbw busbw error"), MPI "[1,0]<stdout>:" prefixes, and
// rows that NCCL INFO output split across lines (a row's head, then each
// half's figures, each with an INFO line glued on). Built on the real
// outputs in tests/fixtures/nccl/.
#pragma once

#include <re2/stringpiece.h>

#include <string>
#include <string_view>

#include "nodeprobe/v1/nccl.pb.h"

namespace nodeprobe::nccl {

// nccl-tests' bus-bandwidth factor, busbw = algbw x factor, from its
// doc/PERFORMANCE.md: all_reduce 2(n-1)/n; reduce_scatter, all_gather and
// alltoall (n-1)/n; broadcast, reduce and sendrecv 1. 0 for an unknown
// collective or n < 1.
double BusBwFactor(std::string_view collective, int ranks);

class NcclTestsParser {
 public:
  // One line with colour codes and "[repeated ...]" already removed.
  void AddLine(std::string_view line);
  // Every run seen, added to `report`; at most kMaxRuns runs of kMaxRows rows.
  void AddTo(v1::NcclLogReport* report) const;

  static constexpr int kMaxRuns = 64;
  static constexpr int kMaxRows = 256;

 private:
  v1::NcclTestsRun* Current();
  void Finish();
  // The lines around a table (version, collective, ranks, header, bounds,
  // average): true when `l` was one.
  bool AddPreamble(const re2::StringPiece& l);
  // A table row, whole or cut in two by NCCL's own output.
  void AddRow(const re2::StringPiece& l);
  google::protobuf::RepeatedPtrField<v1::NcclTestsRun> runs_;
  bool open_ = false;        // the last run still takes rows
  bool truncated_ = false;
  // A row whose head came without its figures (split by NCCL output).
  bool pending_ = false;
  int pending_halves_ = 0;
  v1::NcclTestsRow row_;
};

}  // namespace nodeprobe::nccl
