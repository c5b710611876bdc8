// File: baseline_service.h
// The Baselines service (baseline_service.proto), beside the Coordinator
// service on its port: an operator pins a class's baseline at the runs
// accepted up to one run, forgets a run or a pin, and anyone who may read
// runs reads the marks. Kept in the run store; the coordinator's judge and
// the CLI's `baseline show` / `report --trend` build every baseline
// through them.
#pragma once

#include <grpcpp/grpcpp.h>

#include "coordinator/coordinator_service.h"
#include "coordinator/run_store.h"
#include "nodeprobe/v1/baseline_service.grpc.pb.h"

namespace nodeprobe::coordinator {

class BaselineService final : public v1::Baselines::Service {
 public:
  // `auth` says who is an operator (its CheckOperator).
  BaselineService(RunStore* store, const CoordinatorService* auth) : store_(store), auth_(auth) {}

  // Refuses a run that is not accepted (not done, or FAIL/ERROR) and one
  // that was forgotten: a baseline is what an accepted campaign measured.
  grpc::Status Pin(grpc::ServerContext* ctx, const v1::PinBaselineRequest* req,
                   v1::BaselineMarks* resp) override;
  grpc::Status Forget(grpc::ServerContext* ctx, const v1::ForgetBaselineRequest* req,
                      v1::BaselineMarks* resp) override;
  grpc::Status Marks(grpc::ServerContext* ctx, const v1::BaselineMarksRequest* req,
                     v1::BaselineMarks* resp) override;

 private:
  // The marks as they now stand into `resp`, with `message`.
  grpc::Status Answer(const std::string& message, v1::BaselineMarks* resp);

  RunStore* store_;
  const CoordinatorService* auth_;
};

}  // namespace nodeprobe::coordinator
