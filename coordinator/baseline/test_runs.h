// Stored runs for the baseline tests: what a two-node run records of its
// nodes' inventories and its pair, no more.
#pragma once

#include <string>

#include "absl/strings/str_cat.h"
#include "nodeprobe/v1/service.pb.h"

namespace nodeprobe::baseline {

// Run "r-DAY", started on `day` (days after 2025-10-09), whose pair moved
// `gbps` from gpu01 to gpu02 on rail mlx5_0 (RDMA WRITE); both nodes run
// nvidia driver `driver` (one class).
inline v1::StageRun TwoNodeRun(int day, double gbps, v1::Verdict verdict = v1::PASS,
                               const std::string& driver = "550.54.15") {
  v1::StageRun run;
  run.set_run_id(absl::StrCat("r-", day));
  run.set_state("done");
  run.set_verdict(verdict);
  run.mutable_profile()->set_source("fleet.yaml");
  run.mutable_started()->set_seconds(1'760'000'000 + 86400 * day);
  for (const char* n : {"gpu01", "gpu02"}) {
    run.add_nodes(n);
    v1::StageReport* r = run.add_node_reports();
    r->set_node(n);
    v1::Component* c = r->add_results()->mutable_inventory()->add_components();
    c->set_name("nvidia_driver");
    c->set_present(true);
    c->set_version(driver);
  }
  v1::PairResult* p = run.add_pairs();
  p->set_from_node("gpu01");
  p->set_to_node("gpu02");
  p->set_rail("mlx5_0");
  p->mutable_result()->mutable_transfer()->set_op(v1::WRITE_BW);
  p->mutable_result()->mutable_transfer()->add_results()->set_bw_avg_gbps(gbps);
  return run;
}

}  // namespace nodeprobe::baseline
