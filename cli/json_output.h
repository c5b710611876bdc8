// File: json_output.h
// JSON is protobuf's JSON mapping of the result model: proto field names
// kept, enums as names, fields printed even when they hold defaults (a
// component with present=false must say so).
#pragma once

#include <functional>
#include <string>

#include <google/protobuf/message.h>

#include "absl/status/statusor.h"
#include "nodeprobe/v1/service.pb.h"

namespace nodeprobe::cli {

absl::StatusOr<std::string> ToJson(const google::protobuf::Message& message);

// The same text as ToJson(run), printed a node report at a time: protobuf's
// printer (with defaults printed) builds a tree of the whole message, about
// ten times its JSON, so a fleet's run printed whole costs hundreds of MB.
// The reports are taken out of `run` while its shell prints and put back.
absl::StatusOr<std::string> RunToJson(v1::StageRun& run);

// Prints `message` as JSON when format is "json", else render(); returns
// false when JSON could not be produced.
bool PrintAs(const std::string& format, const google::protobuf::Message& message,
             const std::function<std::string()>& render);

}  // namespace nodeprobe::cli
