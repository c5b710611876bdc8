#include "cli/json_output.h"

#include <google/protobuf/util/json_util.h>

#include <iostream>
#include <memory>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "platform/host_text.h"

namespace nodeprobe::cli {

absl::StatusOr<std::string> ToJson(const google::protobuf::Message& message) {
  google::protobuf::util::JsonPrintOptions options;
  options.add_whitespace = true;
  options.preserve_proto_field_names = true;
  options.always_print_primitive_fields = true;
  // Host text that slipped past its reader unrepaired would make the
  // printer fail (or a reader choke): repair a copy first.
  std::unique_ptr<google::protobuf::Message> copy(message.New());
  copy->CopyFrom(message);
  platform::MakeStringsValidUtf8(copy.get());
  std::string out;
  auto status = google::protobuf::util::MessageToJsonString(*copy, &out, options);
  if (!status.ok()) {
    return absl::InternalError(std::string(status.message()));
  }
  return out;
}

absl::StatusOr<std::string> RunToJson(v1::StageRun& run) {
  google::protobuf::RepeatedPtrField<v1::StageReport> reports;
  reports.Swap(run.mutable_node_reports());
  absl::StatusOr<std::string> shell = ToJson(run);
  run.mutable_node_reports()->Swap(&reports);
  if (!shell.ok()) return shell;
  // The printer indents one space a level and prints an empty list as
  // `[]`; string values escape their quotes and newlines, so this text
  // (newline, one space, the key) is only ever the top-level field.
  const std::string empty = "\n \"node_reports\": []";
  const size_t at = shell->find(empty);
  if (at == std::string::npos || run.node_reports().empty()) return shell;
  std::string out = shell->substr(0, at);
  out += "\n \"node_reports\": [";
  for (int i = 0; i < run.node_reports_size(); ++i) {
    absl::StatusOr<std::string> one = ToJson(run.node_reports(i));
    if (!one.ok()) return one;
    out += i == 0 ? "\n" : ",\n";
    // Each line two levels in: a JSON text has no newline inside a value.
    for (absl::string_view line : absl::StrSplit(*one, '\n')) {
      if (!line.empty()) absl::StrAppend(&out, "  ", line, "\n");
    }
    out.pop_back();
  }
  out += "\n ]";
  out += shell->substr(at + empty.size());
  return out;
}

bool PrintAs(const std::string& format, const google::protobuf::Message& message,
             const std::function<std::string()>& render) {
  if (format != "json") {
    std::cout << render();
    return true;
  }
  absl::StatusOr<std::string> json = ToJson(message);
  if (!json.ok()) {
    std::cerr << "nodeprobe: error: " << json.status().message() << "\n";
    return false;
  }
  std::cout << *json;
  return true;
}

}  // namespace nodeprobe::cli
