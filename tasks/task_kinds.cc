#include "tasks/task_kinds.h"

#include <algorithm>

#include "absl/strings/str_cat.h"

namespace nodeprobe::tasks {
namespace {

// Task's kinds whose field number passes `keep`, in field order.
std::vector<std::string> Kinds(bool (*keep)(int field_number)) {
  std::vector<std::string> out;
  const google::protobuf::OneofDescriptor* kind = v1::Task::descriptor()->FindOneofByName("kind");
  for (int i = 0; i < kind->field_count(); ++i) {
    if (keep(kind->field(i)->number())) out.push_back(kind->field(i)->name());
  }
  return out;
}

bool Contains(const std::vector<std::string>& kinds, const std::string& kind) {
  return std::find(kinds.begin(), kinds.end(), kind) != kinds.end();
}

}  // namespace

std::string TaskKind(const v1::Task& task) {
  if (task.kind_case() == v1::Task::KIND_NOT_SET) return "";
  return task.GetDescriptor()->FindFieldByNumber(task.kind_case())->name();
}

const std::vector<std::string>& AllTaskKinds() {
  static const std::vector<std::string> kAll = Kinds([](int) { return true; });
  return kAll;
}

const std::vector<std::string>& Protocol1Kinds() {
  // Protocol 2 began with the kernel-events question.
  static const std::vector<std::string> kOld =
      Kinds([](int n) { return n < v1::Task::kKernelEventsFieldNumber; });
  return kOld;
}

bool StateServed(v1::Registration* reg, const std::vector<std::string>& kinds) {
  for (const std::string& k : kinds) {
    if (!Contains(AllTaskKinds(), k)) return false;
  }
  reg->set_protocol(kProtocol);
  reg->clear_tasks();
  for (const std::string& k : kinds) reg->add_tasks(k);
  return true;
}

bool Serves(const v1::Registration& reg, const std::string& kind) {
  if (reg.tasks().empty()) return Contains(Protocol1Kinds(), kind);
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
