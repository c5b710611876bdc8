#include "platform/task_process.h"

#include <google/protobuf/io/coded_stream.h>

#include "absl/strings/str_cat.h"

namespace nodeprobe::platform {
namespace {

constexpr size_t kMaxEventBytes = 64 << 20;

}  // namespace

absl::StatusOr<TaskWorker> TaskWorker::Start(const std::string& worker_exe, const v1::Task& task) {
  std::string input;
  if (!task.SerializeToString(&input)) return absl::InternalError("cannot encode the task");
  absl::StatusOr<ChildProcess> child = ChildProcess::Start(worker_exe, {"task"}, input);
  if (!child.ok()) return child.status();
  return TaskWorker(*std::move(child));
}

absl::StatusOr<v1::TaskEvent> TaskWorker::Next(absl::Time deadline) {
  while (true) {
    std::string* buf = child_.buffer();
    // A complete length-delimited event at the front of the buffer?
    google::protobuf::io::CodedInputStream in(reinterpret_cast<const uint8_t*>(buf->data()),
                                              static_cast<int>(buf->size()));
    uint32_t size = 0;
    if (in.ReadVarint32(&size)) {
      if (size > kMaxEventBytes) {
        Kill();
        return absl::UnavailableError("sent an event too large to be one of ours (killed)");
      }
      const size_t header = static_cast<size_t>(in.CurrentPosition());
      if (buf->size() >= header + size) {
        v1::TaskEvent ev;
        if (!ev.ParseFromArray(buf->data() + header, static_cast<int>(size))) {
          Kill();
          return absl::UnavailableError("sent an event that does not parse (killed)");
        }
        buf->erase(0, header + size);
        return ev;
      }
    }
    if (child_.eof()) {
      return absl::UnavailableError(
          absl::StrCat(child_.Ending(), buf->empty() ? "" : " (mid-event)"));
    }
    absl::Status s = child_.ReadMore(deadline);
    if (!s.ok()) return s;
  }
}

}  // namespace nodeprobe::platform
