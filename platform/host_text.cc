#include "platform/host_text.h"

#include <google/protobuf/descriptor.h>
#include <google/protobuf/message.h>
#include <google/protobuf/reflection.h>

#include "absl/strings/str_format.h"

namespace nodeprobe::platform {
namespace {

// Length of the valid UTF-8 sequence at s[i] (RFC 3629: no overlongs, no
// surrogates, nothing above U+10FFFF), or 0.
size_t SequenceLength(std::string_view s, size_t i) {
  const auto b = [&](size_t k) { return static_cast<unsigned char>(s[i + k]); };
  const unsigned char c = b(0);
  if (c < 0x80) return 1;
  size_t n = 0;
  unsigned char lo = 0x80, hi = 0xBF;
  if (c >= 0xC2 && c <= 0xDF) {
    n = 2;
  } else if (c >= 0xE0 && c <= 0xEF) {
    n = 3;
    if (c == 0xE0) lo = 0xA0;
    if (c == 0xED) hi = 0x9F;
  } else if (c >= 0xF0 && c <= 0xF4) {
    n = 4;
    if (c == 0xF0) lo = 0x90;
    if (c == 0xF4) hi = 0x8F;
  } else {
    return 0;
  }
  if (i + n > s.size()) return 0;
  if (b(1) < lo || b(1) > hi) return 0;
  for (size_t k = 2; k < n; ++k) {
    if (b(k) < 0x80 || b(k) > 0xBF) return 0;
  }
  return n;
}

bool NeedsEscape(unsigned char c) { return c < 0x20 && c != '\t' && c != '\n'; }

}  // namespace

bool IsValidUtf8(std::string_view bytes) {
  for (size_t i = 0; i < bytes.size();) {
    size_t n = SequenceLength(bytes, i);
    if (n == 0 || (n == 1 && NeedsEscape(static_cast<unsigned char>(bytes[i])))) return false;
    i += n;
  }
  return true;
}

std::string ValidUtf8(std::string_view bytes) {
  std::string out;
  out.reserve(bytes.size());
  for (size_t i = 0; i < bytes.size();) {
    size_t n = SequenceLength(bytes, i);
    const unsigned char c = static_cast<unsigned char>(bytes[i]);
    if (n == 0 || (n == 1 && NeedsEscape(c))) {
      out += absl::StrFormat("\\x%02x", c);
      ++i;
      continue;
    }
    out.append(bytes.substr(i, n));
    i += n;
  }
  return out;
}

std::string WithoutColour(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\x1b' && i + 1 < text.size() && text[i + 1] == '[') {
      size_t j = i + 2;
      while (j < text.size() && ((text[j] >= '0' && text[j] <= '9') || text[j] == ';')) ++j;
      if (j < text.size() && ((text[j] >= 'A' && text[j] <= 'Z') || (text[j] >= 'a' && text[j] <= 'z'))) {
        i = j;
        continue;
      }
    }
    out += text[i];
  }
  return out;
}

void MakeStringsValidUtf8(google::protobuf::Message* message) {
  using google::protobuf::FieldDescriptor;
  const google::protobuf::Reflection* r = message->GetReflection();
  std::vector<const FieldDescriptor*> fields;
  r->ListFields(*message, &fields);
  for (const FieldDescriptor* f : fields) {
    if (f->type() == FieldDescriptor::TYPE_STRING) {
      if (f->is_repeated()) {
        for (int i = 0; i < r->FieldSize(*message, f); ++i) {
          std::string v = r->GetRepeatedString(*message, f, i);
          if (!IsValidUtf8(v)) r->SetRepeatedString(message, f, i, ValidUtf8(v));
        }
      } else {
        std::string v = r->GetString(*message, f);
        if (!IsValidUtf8(v)) r->SetString(message, f, ValidUtf8(v));
      }
    } else if (f->type() == FieldDescriptor::TYPE_MESSAGE) {
      if (f->is_map()) {
        // Map entries through reflection are a copy that is written back;
        // rebuilding the field keeps keys unique after escaping.
        std::vector<std::unique_ptr<google::protobuf::Message>> entries;
        const int size = r->FieldSize(*message, f);
        bool dirty = false;
        for (int i = 0; i < size; ++i) {
          std::unique_ptr<google::protobuf::Message> e(r->GetRepeatedMessage(*message, f, i).New());
          e->CopyFrom(r->GetRepeatedMessage(*message, f, i));
          std::string before = e->SerializeAsString();
          MakeStringsValidUtf8(e.get());
          dirty |= e->SerializeAsString() != before;
          entries.push_back(std::move(e));
        }
        if (dirty) {
          r->ClearField(message, f);
          for (auto& e : entries) r->AddMessage(message, f)->CopyFrom(*e);
        }
      } else if (f->is_repeated()) {
        for (int i = 0; i < r->FieldSize(*message, f); ++i) {
          MakeStringsValidUtf8(r->MutableRepeatedMessage(message, f, i));
        }
      } else {
        MakeStringsValidUtf8(r->MutableMessage(message, f));
      }
    }
  }
}

}  // namespace nodeprobe::platform
