// File: host_text.h
// Text that comes from the host (sysfs values, directory names, library
// strings) is bytes, not UTF-8. Protobuf strings must be UTF-8 and JSON
// readers reject anything else, so host text is made valid here, with
// every byte that is not part of a valid sequence written as \xNN.
#pragma once

#include <string>
#include <string_view>

namespace google::protobuf {
class Message;
}

namespace nodeprobe::platform {

// `bytes` with invalid UTF-8 (and NUL and other C0 controls but tab and
// newline) escaped as \xNN; valid text is returned unchanged.
std::string ValidUtf8(std::string_view bytes);
bool IsValidUtf8(std::string_view bytes);

// `text` without the colour codes terminals and log tools write (ESC [
// digits/';' letter: dmesg --color=always, Ray's and vLLM's prefixes), so a
// log reads as its plain words.
std::string WithoutColour(std::string_view text);

// Applies ValidUtf8 to every string field of `message`, recursively (map
// keys and values included): the last guard before a message leaves the
// process.
void MakeStringsValidUtf8(google::protobuf::Message* message);

}  // namespace nodeprobe::platform
