// File: json_output.h
// JSON is protobuf's JSON mapping of the result model: proto field names
// kept, enums as names, fields printed even when they hold defaults (a
// component with present=false must say so).
#pragma once

#include <functional>
#include <string>

#include <google/protobuf/message.h>

#include "absl/status/statusor.h"

namespace nodeprobe::cli {

absl::StatusOr<std::string> ToJson(const google::protobuf::Message& message);

// Prints `message` as JSON when format is "json", else render(); returns
// false when JSON could not be produced.
bool PrintAs(const std::string& format, const google::protobuf::Message& message,
             const std::function<std::string()>& render);

}  // namespace nodeprobe::cli
