#include "probes/nccl/nccl_tests_output.h"

#include <re2/re2.h>

#include <algorithm>
#include <cstdlib>

#include "probes/nccl/re2_text.h"

namespace nodeprobe::nccl {
namespace {

// A figure as printed: nccl-tests prints "nan" or a negative time when a
// run went wrong; those are kept (and judged invalid), never dropped.
double D(const std::string& s) { return strtod(s.c_str(), nullptr); }
uint64_t U(const std::string& s) { return strtoull(s.c_str(), nullptr, 10); }

// "[1,0]<stdout>:" (Open MPI's --tag-output) before nccl-tests' text.
const RE2& MpiTag() {
  static const RE2 re("^\\[\\d+,\\d+\\]<std(?:out|err)>:");
  return re;
}

}  // namespace

double BusBwFactor(std::string_view collective, int ranks) {
  if (ranks < 1) return 0;
  const double n = ranks;
  if (collective == "all_reduce") return 2 * (n - 1) / n;
  if (collective == "reduce_scatter" || collective == "all_gather" || collective == "alltoall") {
    return (n - 1) / n;
  }
  if (collective == "broadcast" || collective == "reduce" || collective == "sendrecv") return 1;
  return 0;
}

v1::NcclTestsRun* NcclTestsParser::Current() {
  if (open_) return &runs_[runs_.size() - 1];
  if (runs_.size() >= kMaxRuns) {
    truncated_ = true;
    return nullptr;
  }
  open_ = true;
  v1::NcclTestsRun* run = runs_.Add();
  run->set_out_of_bounds(-1);
  return run;
}

void NcclTestsParser::Finish() {
  open_ = false;
  pending_ = false;
}

void NcclTestsParser::AddLine(std::string_view raw) {
  std::string line(raw);
  RE2::Replace(&line, MpiTag(), "");
  const re2::StringPiece l = Piece(line);
  if (AddPreamble(l)) return;
  if (open_) AddRow(l);  // numbers outside a run are not a table
}

bool NcclTestsParser::AddPreamble(const re2::StringPiece& l) {
  static const RE2 version("^# nccl-tests version (\\S+)");
  static const RE2 starting("^# Collective test starting: (\\w+?)(?:_perf)?\\s*$");
  static const RE2 nthread("^# nThread \\d+");
  static const RE2 rank("^#\\s+Rank\\s+(\\d+)\\s.*\\son\\s+\\S+\\s+device\\s+\\d+");
  static const RE2 header("^#\\s+size\\s+count\\s+type\\s+redop(.*)$");
  static const RE2 bounds("^# Out of bounds values : (\\d+)");
  static const RE2 average("^# Avg bus bandwidth\\s*: (\\S+)");
  std::string a;
  // A preamble line starts a run unless the open one has no rows yet
  // (version, "starting" and nThread lines all precede one table).
  auto begin = [&]() -> v1::NcclTestsRun* {
    if (open_ && Current()->rows_size() > 0) Finish();
    return Current();
  };
  if (RE2::PartialMatch(l, version, &a)) {
    if (v1::NcclTestsRun* run = begin()) run->set_version(a);
  } else if (RE2::PartialMatch(l, starting, &a)) {
    if (v1::NcclTestsRun* run = begin()) run->set_collective(a);
  } else if (RE2::PartialMatch(l, nthread)) {
    begin();
  } else if (RE2::PartialMatch(l, rank, &a)) {
    if (v1::NcclTestsRun* run = Current()) {
      run->set_ranks(std::max<uint32_t>(run->ranks(), static_cast<uint32_t>(U(a)) + 1));
    }
  } else if (RE2::PartialMatch(l, header, &a)) {
    if (v1::NcclTestsRun* run = Current()) run->set_error_column(a.find("#wrong") == std::string::npos);
  } else if (RE2::PartialMatch(l, bounds, &a)) {
    if (v1::NcclTestsRun* run = Current()) run->set_out_of_bounds(static_cast<int64_t>(U(a)));
  } else if (RE2::PartialMatch(l, average, &a)) {
    if (v1::NcclTestsRun* run = Current()) {
      run->set_avg_busbw_gbps(D(a));
      run->set_avg_printed(true);
    }
    Finish();
  } else {
    return false;
  }
  return true;
}

// #wrong is printed with "%6g": past 999999 it is "1.04858e+06", not an
// integer (nccl-tests common.cu), so it is read as a float.
constexpr char kWrongColumn[] = "(\\d+(?:\\.\\d+)?(?:[eE][-+]?\\d+)?|N/A)";

void NcclTestsParser::AddRow(const re2::StringPiece& l) {
  // Full rows: with a root column (2.13+), then without (older).
  // A figure: a number as printed, or what nccl-tests prints when it is
  // not one (nan, inf, a negative value): kept and judged invalid.
  static const std::string kFig = "(-?[\\d.]+(?:[eE][-+]?\\d+)?|-?nan|-?inf)";
  static const std::string kWrong = kWrongColumn;
  static const RE2 with_root("^\\s*(\\d+)\\s+(\\d+)\\s+(\\w+)\\s+(\\w+)\\s+(-?\\d+)\\s+" + kFig +
                             "\\s+" + kFig + "\\s+" + kFig + "\\s+(\\S+)\\s+" + kFig + "\\s+" +
                             kFig + "\\s+" + kFig + "\\s+" + kWrong);
  static const RE2 without_root("^\\s*(\\d+)\\s+(\\d+)\\s+(\\w+)\\s+(\\w+)\\s+" + kFig + "\\s+" +
                                kFig + "\\s+" + kFig + "\\s+(\\S+)\\s+" + kFig + "\\s+" + kFig +
                                "\\s+" + kFig + "\\s+(\\S+)");
  // A row cut by NCCL output: its head, then each half's four figures.
  static const RE2 head("^\\s*(\\d+)\\s+(\\d+)\\s+(\\w+)\\s+(\\w+)\\s+(-?\\d+)");
  static const RE2 half("^\\s*" + kFig + "\\s+" + kFig + "\\s+" + kFig + "\\s+" + kWrong);

  std::string a, b, c, d, e, f, g, h, i, j, k, m, n;
  v1::NcclTestsRun* run = Current();
  auto add = [&](const v1::NcclTestsRow& row) {
    if (run->rows_size() >= kMaxRows) {
      truncated_ = true;
      return;
    }
    *run->add_rows() = row;
  };
  v1::NcclTestsRow row;
  // Both halves' figures from the captures f..n.
  auto figures = [&](v1::NcclTestsRow* r) {
    r->set_time_us(D(f));
    r->set_algbw_gbps(D(g));
    r->set_busbw_gbps(D(h));
    r->set_wrong(i);
    r->set_in_place_time_us(D(j));
    r->set_in_place_algbw_gbps(D(k));
    r->set_in_place_busbw_gbps(D(m));
    r->set_in_place_wrong(n);
  };
  if (RE2::PartialMatch(l, with_root, &a, &b, &c, &d, &e, &f, &g, &h, &i, &j, &k, &m, &n)) {
    row.set_root(atoi(e.c_str()));
    figures(&row);
  } else if (RE2::PartialMatch(l, without_root, &a, &b, &c, &d, &f, &g, &h, &i, &j, &k, &m, &n)) {
    row.set_root(-1);
    figures(&row);
  } else if (RE2::PartialMatch(l, head, &a, &b, &c, &d, &e)) {
    row_ = v1::NcclTestsRow();
    row_.set_size(U(a));
    row_.set_count(U(b));
    row_.set_type(c);
    row_.set_redop(d);
    row_.set_root(atoi(e.c_str()));
    pending_ = true;
    pending_halves_ = 0;
    return;
  } else if (pending_ && RE2::PartialMatch(l, half, &f, &g, &h, &i)) {
    if (pending_halves_ == 0) {
      row_.set_time_us(D(f));
      row_.set_algbw_gbps(D(g));
      row_.set_busbw_gbps(D(h));
      row_.set_wrong(i);
      pending_halves_ = 1;
      return;
    }
    row_.set_in_place_time_us(D(f));
    row_.set_in_place_algbw_gbps(D(g));
    row_.set_in_place_busbw_gbps(D(h));
    row_.set_in_place_wrong(i);
    pending_ = false;
    add(row_);
    return;
  } else {
    return;
  }
  row.set_size(U(a));
  row.set_count(U(b));
  row.set_type(c);
  row.set_redop(d);
  pending_ = false;
  add(row);
}

void NcclTestsParser::AddTo(v1::NcclLogReport* report) const {
  for (const v1::NcclTestsRun& run : runs_) {
    if (run.rows_size() > 0 || run.avg_printed()) *report->add_tests() = run;
  }
  if (truncated_) report->set_truncated(true);
}

}  // namespace nodeprobe::nccl
