#include "tasks/task_kinds.h"

#include <algorithm>

#include "absl/strings/str_cat.h"

namespace nodeprobe::tasks {
namespace {

// The first field number protocol 1 did not have (kernel_events).
constexpr int kFirstProtocol2Field = v1::Task::kKernelEventsFieldNumber;

std::vector<std::string> KindsBelow(int field_number) {
  std::vector<std::string> out;
  const google::protobuf::OneofDescriptor* kind = v1::Task::descriptor()->FindOneofByName("kind");
  for (int i = 0; i < kind->field_count(); ++i) {
    if (kind->field(i)->number() < field_number) out.push_back(kind->field(i)->name());
  }
  return out;
}

}  // namespace

std::string TaskKind(const v1::Task& task) {
  if (task.kind_case() == v1::Task::KIND_NOT_SET) return "";
  return task.GetDescriptor()->FindFieldByNumber(task.kind_case())->name();
}

std::vector<std::string> AllTaskKinds() { return KindsBelow(1 << 29); }

std::vector<std::string> Protocol1Kinds() { return KindsBelow(kFirstProtocol2Field); }

bool StateServed(v1::Registration* reg, const std::vector<std::string>& kinds) {
  const std::vector<std::string> all = AllTaskKinds();
  for (const std::string& k : kinds) {
    if (std::find(all.begin(), all.end(), k) == all.end()) return false;
  }
  reg->set_protocol(kProtocol);
  reg->clear_tasks();
  for (const std::string& k : kinds) reg->add_tasks(k);
  return true;
}

bool Serves(const v1::Registration& reg, const std::string& kind) {
  if (reg.tasks().empty()) {
    const std::vector<std::string> old = Protocol1Kinds();
    return std::find(old.begin(), old.end(), kind) != old.end();
  }
  return std::find(reg.tasks().begin(), reg.tasks().end(), kind) != reg.tasks().end();
}

std::string NotServedMessage(const v1::Registration& reg, const std::string& kind) {
  return absl::StrCat(reg.node_name(), "'s agent (nodeprobe ",
                      reg.agent_version().empty() ? "of an unknown version" : reg.agent_version(),
                      ", protocol ", std::max<uint32_t>(1, reg.protocol()), ") does not serve the ",
                      kind,
                      " task, so it was not asked; upgrade the agent to this coordinator's "
                      "version to have it");
}

}  // namespace nodeprobe::tasks
