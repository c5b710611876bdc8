#include "cli/safe_text.h"

#include <cstdint>

#include "absl/strings/str_format.h"

namespace nodeprobe::cli {
namespace {

// The next code point of `s` at `*i` (advanced past it), or -1 (advanced
// by one byte) where the bytes are not UTF-8.
int32_t NextCodePoint(std::string_view s, size_t* i) {
  const unsigned char c = static_cast<unsigned char>(s[*i]);
  const int n = c < 0x80 ? 0 : (c & 0xe0) == 0xc0 ? 1 : (c & 0xf0) == 0xe0 ? 2
              : (c & 0xf8) == 0xf0 ? 3 : -1;
  if (n < 0 || *i + n >= s.size()) {  // not a lead byte, or cut short
    ++*i;
    return -1;
  }
  int32_t cp = n == 0 ? c : n == 1 ? (c & 0x1f) : n == 2 ? (c & 0x0f) : (c & 0x07);
  for (int k = 1; k <= n; ++k) {
    const unsigned char b = static_cast<unsigned char>(s[*i + k]);
    if ((b & 0xc0) != 0x80) {
      ++*i;
      return -1;
    }
    cp = (cp << 6) | (b & 0x3f);
  }
  // Overlong forms and surrogates are not UTF-8 either.
  static const int32_t kMin[] = {0, 0x80, 0x800, 0x10000};
  if (cp < kMin[n] || (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff) {
    ++*i;
    return -1;
  }
  *i += n + 1;
  return cp;
}

bool Unsafe(int32_t cp, bool keep_newlines) {
  if (cp == '\t' || (keep_newlines && cp == '\n')) return false;
  if (cp < 0x20 || cp == 0x7f || (cp >= 0x80 && cp <= 0x9f)) return true;  // C0, DEL, C1
  if (cp == 0x061c || cp == 0x200e || cp == 0x200f) return true;            // ALM, LRM, RLM
  if (cp >= 0x2028 && cp <= 0x202e) return true;  // separators, embeddings, overrides
  if (cp >= 0x2066 && cp <= 0x2069) return true;  // isolates
  if (cp == 0xfeff || cp == 0xfffe || cp == 0xffff) return true;
  return false;
}

}  // namespace

std::string EscapeControls(std::string_view text, bool keep_newlines) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size();) {
    const size_t at = i;
    const int32_t cp = NextCodePoint(text, &i);
    if (cp < 0) {
      out += absl::StrFormat("\\x%02x", static_cast<unsigned char>(text[at]));
    } else if (Unsafe(cp, keep_newlines)) {
      out += cp < 0x80 ? absl::StrFormat("\\x%02x", cp) : absl::StrFormat("\\u{%04X}", cp);
    } else {
      out.append(text.substr(at, i - at));
    }
  }
  return out;
}

// The SGR parameters table_renderer.cc's Colored writes, and the reset.
bool OurColour(std::string_view params) {
  for (const char* ours : {"0", "2", "32", "33", "31;1", "1;31", "35"}) {
    if (params == ours) return true;
  }
  return false;
}

std::string TerminalSafe(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  size_t from = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '\x1b') continue;
    // ESC [ digits/';' m: one of the colours the renderers write, kept;
    // any other (ESC[8m conceals what follows, from a profile's text) is
    // escaped with the rest.
    size_t j = i + 1;
    if (j < text.size() && text[j] == '[') {
      ++j;
      while (j < text.size() && ((text[j] >= '0' && text[j] <= '9') || text[j] == ';')) ++j;
      if (j < text.size() && text[j] == 'm' && OurColour(text.substr(i + 2, j - i - 2))) {
        out += EscapeControls(text.substr(from, i - from), true);
        out.append(text.substr(i, j + 1 - i));
        from = j + 1;
        i = j;
      }
    }
  }
  out += EscapeControls(text.substr(from), true);
  return out;
}

std::string MarkdownCell(std::string_view text) {
  std::string out;
  for (char c : EscapeControls(text, true)) {
    switch (c) {
      case '|': out += "\\|"; break;
      case '\\': out += "\\\\"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '&': out += "&amp;"; break;
      case '\n': out += ' '; break;
      default: out += c;
    }
  }
  return out;
}

}  // namespace nodeprobe::cli
