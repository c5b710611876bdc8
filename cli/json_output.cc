// File: json_output.cc
#include "cli/json_output.h"

#include <google/protobuf/util/json_util.h>

#include <iostream>
#include <memory>

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
