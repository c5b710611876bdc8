#include "coordinator/baseline/figures.h"

#include "absl/strings/str_cat.h"

namespace nodeprobe::baseline {
namespace {

bool IsLatency(v1::TransferOp op) { return op == v1::RR_LAT || op == v1::WRITE_LAT; }

void AddPair(const v1::PairResult& p, std::vector<Figure>* out) {
  const v1::TransferReport& t = p.result().transfer();
  if (t.results_size() == 0) return;
  const v1::TransferResult& r = t.results(t.results_size() - 1);  // the largest size
  const bool lat = IsLatency(t.op());
  const double value = lat ? r.latency().median_us() : r.bw_avg_gbps();
  if (value <= 0 || r.partial()) return;
  out->push_back({.node = p.from_node(),
                  .name = absl::StrCat(v1::TransferOp_Name(t.op()), lat ? " median us" : " gbps",
                                       " rail ", p.rail()),
                  .value = value,
                  .higher_is_better = !lat});
}

}  // namespace

bool Accepted(const v1::StageRun& run) {
  return run.state() == "done" && (run.verdict() == v1::PASS || run.verdict() == v1::WARN);
}

std::vector<Figure> FiguresOf(const v1::StageRun& run) {
  std::vector<Figure> out;
  for (const v1::PairResult& p : run.pairs()) AddPair(p, &out);
  std::vector<Figure> shared;  // every node of the run shaped these
  for (const v1::ProbeResult& c : run.collectives()) {
    for (const v1::CollectiveRow& row : c.collective().rows()) {
      if (row.busbw_gbps() <= 0) continue;
      shared.push_back({.node = "",
                        .name = absl::StrCat(row.collective(), " busbw ", row.size(), " B"),
                        .value = row.busbw_gbps()});
    }
  }
  if (run.workload().steps() > 0) {
    shared.push_back({.node = "",
                      .name = absl::StrCat("workload ", run.workload().shape(), " step p50 ms"),
                      .value = run.workload().step_p50_ms(),
                      .higher_is_better = false});
  }
  for (const std::string& node : run.nodes()) {
    for (Figure f : shared) {
      f.node = node;
      out.push_back(std::move(f));
    }
  }
  return out;
}

bool Marks::Counts(const v1::StageRun& run, const std::string& class_key) const {
  if (forgotten.count(run.run_id())) return false;
  auto pin = pinned_until.find(class_key);
  return pin == pinned_until.end() || run.started().seconds() <= pin->second;
}

const v1::BaselinePin* Marks::PinOf(const std::string& class_key) const {
  for (const v1::BaselinePin& p : said.pins()) {
    if (p.class_key() == class_key) return &p;
  }
  return nullptr;
}

Marks MarksOf(v1::BaselineMarks said) {
  Marks out;
  for (const v1::ForgottenRun& f : said.forgotten()) out.forgotten.insert(f.run_id());
  for (const v1::BaselinePin& p : said.pins()) out.pinned_until[p.class_key()] = p.until_seconds();
  out.said = std::move(said);
  return out;
}

std::set<std::string> ClassKeysOf(const v1::StageRun& run) {
  std::set<std::string> out;
  for (const v1::StageReport& r : run.node_reports()) {
    out.insert(ClassOf(r, run.profile().source()).Key());
  }
  return out;
}

std::map<std::string, ClassBaselines> BaselinesOf(const std::vector<v1::StageRun>& runs,
                                                  const Marks& marks) {
  std::map<std::string, ClassBaselines> out;
  std::map<std::pair<std::string, std::string>, std::vector<Sample>> samples;
  for (const v1::StageRun& run : runs) {
    if (!Accepted(run)) continue;
    std::map<std::string, NodeClass> classes;
    for (const v1::StageReport& r : run.node_reports()) {
      classes[r.node()] = ClassOf(r, run.profile().source());
    }
    for (const Figure& f : FiguresOf(run)) {
      auto c = classes.find(f.node);
      if (c == classes.end()) continue;  // a node without its report: no class
      const std::string key = c->second.Key();
      if (!marks.Counts(run, key)) continue;
      out[key].node_class = c->second;
      out[key].higher_is_better[f.name] = f.higher_is_better;
      samples[{key, f.name}].push_back(
          {.value = f.value, .when = run.started().seconds(), .run_id = run.run_id()});
    }
  }
  for (const auto& [k, s] : samples) out[k.first].figures[k.second] = BaselineOf(s);
  return out;
}

}  // namespace nodeprobe::baseline
