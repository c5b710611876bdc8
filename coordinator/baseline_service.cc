#include "coordinator/baseline_service.h"

#include <iostream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/clock.h"
#include "controlplane/grpc_status.h"
#include "coordinator/baseline/figures.h"
#include "probes/framework/result_util.h"

namespace nodeprobe::coordinator {
grpc::Status BaselineService::Answer(const std::string& message, v1::BaselineMarks* resp) {
  absl::StatusOr<v1::BaselineMarks> marks = store_->GetBaselineMarks();
  if (!marks.ok()) return controlplane::ToGrpcStatus(marks.status());
  *resp = *std::move(marks);
  resp->set_message(message);
  return grpc::Status::OK;
}

grpc::Status BaselineService::Pin(grpc::ServerContext* ctx, const v1::PinBaselineRequest* req,
                                  v1::BaselineMarks* resp) {
  if (grpc::Status op = auth_->CheckOperator(*ctx); !op.ok()) return op;
  absl::StatusOr<v1::StageRun> run = store_->Get(req->run_id());
  if (!run.ok()) return controlplane::ToGrpcStatus(run.status());
  if (!baseline::Accepted(*run)) {
    return grpc::Status(
        grpc::StatusCode::FAILED_PRECONDITION,
        absl::StrCat("run ", req->run_id(), " is ", run->state(), " ", VerdictName(run->verdict()),
                     ": only an accepted run (done, PASS or WARN) can be pinned as a baseline"));
  }
  absl::StatusOr<v1::BaselineMarks> marks = store_->GetBaselineMarks();
  if (!marks.ok()) return controlplane::ToGrpcStatus(marks.status());
  if (baseline::MarksOf(*std::move(marks)).forgotten.count(req->run_id())) {
    return grpc::Status(grpc::StatusCode::FAILED_PRECONDITION,
                        absl::StrCat("run ", req->run_id(),
                                     " was forgotten: it counts in no baseline, so none is "
                                     "pinned from it"));
  }
  const std::set<std::string> classes = baseline::ClassKeysOf(*run);
  if (classes.empty()) {
    return grpc::Status(
        grpc::StatusCode::FAILED_PRECONDITION,
        absl::StrCat("run ", req->run_id(), " has no node report, so no node class to pin"));
  }
  v1::BaselinePin pin;
  pin.set_run_id(req->run_id());
  pin.set_until_seconds(run->started().seconds());
  pin.set_at_seconds(absl::ToUnixSeconds(absl::Now()));
  pin.set_by(CoordinatorService::CallerName(*ctx));
  for (const std::string& key : classes) {
    pin.set_class_key(key);
    if (absl::Status s = store_->PinBaseline(pin); !s.ok()) return controlplane::ToGrpcStatus(s);
  }
  std::cerr << "nodeprobe coordinator: baselines pinned at run " << req->run_id() << " by "
            << pin.by() << ": " << absl::StrJoin(classes, "; ") << "\n";
  return Answer(absl::StrCat("pinned ", classes.size(), classes.size() == 1 ? " class" : " classes",
                             " at the runs accepted up to ", req->run_id(), ": ",
                             absl::StrJoin(classes, "; ")),
                resp);
}

grpc::Status BaselineService::Forget(grpc::ServerContext* ctx, const v1::ForgetBaselineRequest* req,
                                     v1::BaselineMarks* resp) {
  if (grpc::Status op = auth_->CheckOperator(*ctx); !op.ok()) return op;
  const std::string who = CoordinatorService::CallerName(*ctx);
  if (req->has_class_key()) {
    if (absl::Status s = store_->Unpin(req->class_key()); !s.ok())
      return controlplane::ToGrpcStatus(s);
    std::cerr << "nodeprobe coordinator: baseline pin of " << req->class_key() << " removed by "
              << who << "\n";
    return Answer(absl::StrCat("class ", req->class_key(),
                               " is no longer pinned: its baseline is every accepted run again"),
                  resp);
  }
  if (!req->has_run_id() || req->run_id().empty()) {
    return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT,
                        "say what to forget: a run id, or a class key whose pin goes");
  }
  if (absl::StatusOr<v1::StageRun> run = store_->Get(req->run_id()); !run.ok()) {
    return controlplane::ToGrpcStatus(run.status());
  }
  v1::ForgottenRun f;
  f.set_run_id(req->run_id());
  f.set_at_seconds(absl::ToUnixSeconds(absl::Now()));
  f.set_by(who);
  if (absl::Status s = store_->ForgetRun(f); !s.ok()) return controlplane::ToGrpcStatus(s);
  std::cerr << "nodeprobe coordinator: run " << req->run_id() << " forgotten by baselines, by "
            << who << "\n";
  return Answer(
      absl::StrCat("run ", req->run_id(), " counts in no baseline from now on (it stays stored)"),
      resp);
}

grpc::Status BaselineService::Marks(grpc::ServerContext* ctx, const v1::BaselineMarksRequest*,
                                    v1::BaselineMarks* resp) {
  if (grpc::Status op = auth_->CheckOperator(*ctx); !op.ok()) return op;
  return Answer("", resp);
}

}  // namespace nodeprobe::coordinator
