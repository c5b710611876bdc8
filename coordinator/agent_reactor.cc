#include "coordinator/agent_reactor.h"

#include <algorithm>
#include <iostream>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "controlplane/credentials.h"
#include "controlplane/grpc_status.h"
#include "platform/identifiers.h"

namespace nodeprobe::coordinator {
namespace {

// The certificate's CN or a DNS SAN must be the node name the agent claims.
bool IdentityMatches(const grpc::CallbackServerContext& ctx, const std::string& node) {
  const std::vector<std::string> names = controlplane::PeerNames(ctx.auth_context().get());
  return std::find(names.begin(), names.end(), node) != names.end();
}

}  // namespace

std::string PeerIp(const std::string& peer) {
  std::string p = peer;
  if (absl::StartsWith(p, "ipv4:")) {
    p = p.substr(5);
    return p.substr(0, p.rfind(':'));
  }
  if (absl::StartsWith(p, "ipv6:[")) {
    p = p.substr(6);
    return p.substr(0, p.find(']'));
  }
  return p;
}

AgentReactor::AgentReactor(grpc::CallbackServerContext* ctx, AgentRegistry* registry,
                           bool check_identity, absl::Duration heartbeat)
    : ctx_(ctx),
      registry_(registry),
      check_identity_(check_identity),
      heartbeat_(heartbeat),
      handle_(std::make_shared<Handle>()) {
  handle_->reactor = this;
  StartRead(&in_);
}

void AgentReactor::Register() {
  const std::string node = in_.registration().node_name();
  // Names from strangers are checked before they reach the registry, a
  // run, a log line or a report (platform/identifiers.h).
  absl::Status valid = platform::CheckNodeName("node name", node);
  for (const v1::Rail& rail : in_.registration().rails()) {
    if (!valid.ok()) break;
    valid = platform::CheckRailName("rail name", rail.name());
  }
  if (!valid.ok()) {
    std::cerr << "nodeprobe coordinator: refused a registration: " << valid.message() << "\n";
    End(controlplane::ToGrpcStatus(valid));
    return;
  }
  if (check_identity_ && !IdentityMatches(*ctx_, node)) {
    End(grpc::Status(grpc::StatusCode::PERMISSION_DENIED,
                     absl::StrCat("certificate does not name node '", node,
                                  "' (its CN or a DNS SAN must equal --node-name)")));
    return;
  }
  // Who this is beyond the name it gives: its certificate, or (plaintext)
  // its address.
  std::string identity = PeerIp(ctx_->peer());
  if (const auto auth = ctx_->auth_context(); auth && auth->IsPeerAuthenticated()) {
    for (const grpc::string_ref& pem : auth->FindPropertyValues(GRPC_X509_PEM_CERT_PROPERTY_NAME)) {
      identity.assign(pem.data(), pem.size());
    }
  }
  std::shared_ptr<Handle> handle = handle_;
  session_ = std::make_shared<AgentSession>(
      node, PeerIp(ctx_->peer()), in_.registration(),
      [handle](const v1::CoordinatorMessage& msg) {
        platform::MutexLock l(&handle->mu);
        return handle->reactor != nullptr && handle->reactor->Enqueue(msg);
      },
      [handle] {
        platform::MutexLock l(&handle->mu);
        if (handle->reactor != nullptr) handle->reactor->End(grpc::Status::CANCELLED);
      },
      std::move(identity));
  if (absl::Status added = registry_->Add(session_); !added.ok()) {
    std::cerr << "nodeprobe coordinator: refused a registration: " << added.message() << "\n";
    session_.reset();
    End(controlplane::ToGrpcStatus(added));
    return;
  }
  v1::CoordinatorMessage ack;
  ack.mutable_ack()->set_node_name(node);
  ack.mutable_ack()->set_heartbeat_interval_s(absl::ToDoubleSeconds(heartbeat_));
  Enqueue(ack);
  StartRead(&in_);
}

void AgentReactor::OnReadDone(bool ok) {
  if (!ok) {  // the agent closed its side, or the stream broke
    if (session_) session_->Lose();
    End(grpc::Status::OK);
    return;
  }
  if (!session_) {
    if (!in_.has_registration() || in_.registration().node_name().empty()) {
      End(grpc::Status(grpc::StatusCode::INVALID_ARGUMENT,
                       "the first message on Connect must be a registration with a node name"));
      return;
    }
    Register();
    return;
  }
  session_->Heartbeat();
  if (in_.has_result()) {
    session_->Deliver(in_.result().task_id(), in_);
  } else if (in_.has_endpoint()) {
    session_->Deliver(in_.endpoint().task_id(), in_);
  }
  StartRead(&in_);
}

bool AgentReactor::Enqueue(const v1::CoordinatorMessage& msg) {
  platform::MutexLock l(&mu_);
  if (finished_) return false;
  queue_.push_back(msg);
  if (!writing_) {
    writing_ = true;
    StartWrite(&queue_.front());
  }
  return true;
}

void AgentReactor::OnWriteDone(bool ok) {
  platform::MutexLock l(&mu_);
  queue_.pop_front();
  if (!ok || finished_ || queue_.empty()) {
    writing_ = false;
    return;
  }
  StartWrite(&queue_.front());
}

void AgentReactor::End(const grpc::Status& status) {
  platform::MutexLock l(&mu_);
  if (finished_) return;
  finished_ = true;
  Finish(status);
}

void AgentReactor::OnCancel() {
  if (session_) session_->Lose();
}

void AgentReactor::OnDone() {
  {
    platform::MutexLock l(&handle_->mu);
    handle_->reactor = nullptr;
  }
  if (session_) {
    session_->Lose();
    registry_->Remove(session_);
  }
  delete this;
}

}  // namespace nodeprobe::coordinator
