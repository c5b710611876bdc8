// File: json_output.cc
#include "cli/json_output.h"

#include <google/protobuf/util/json_util.h>

#include <iostream>

namespace nodeprobe::cli {

absl::StatusOr<std::string> ToJson(const google::protobuf::Message& message) {
  google::protobuf::util::JsonPrintOptions options;
  options.add_whitespace = true;
  options.preserve_proto_field_names = true;
  options.always_print_primitive_fields = true;
  std::string out;
  auto status = google::protobuf::util::MessageToJsonString(message, &out, options);
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
