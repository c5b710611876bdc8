// File: safe_text.h
// Text from elsewhere (a finding message quoting a log line, a sysfs value,
// a name in an imported record) is escaped on its way into every output
// format, so that it can neither act on a terminal (escape sequences),
// reorder what a reader sees (bidirectional overrides), forge lines or
// table cells, nor make XML ill-formed:
//   - C0 controls but tab (and newline where lines are allowed), DEL, C1
//     controls, the Unicode line/paragraph separators and every
//     bidirectional mark, embedding, override and isolate are written out
//     as \xNN or \u{NNNN};
//   - bytes that are not UTF-8 are written as \xNN.
#pragma once

#include <string>
#include <string_view>

namespace nodeprobe::cli {

std::string EscapeControls(std::string_view text, bool keep_newlines = false);

// A whole rendered screen: newlines kept, and the colour codes we write
// (ESC [ 0/2/32/33/31;1/35 m) kept; any other escape sequence is escaped.
// Text from elsewhere goes into a screen's lines through EscapeControls
// first, so that its newlines cannot make lines of their own.
std::string TerminalSafe(std::string_view text);

// A Markdown table cell: controls escaped, '|' and '\' escaped, '<', '>'
// and '&' as entities, newlines as spaces.
std::string MarkdownCell(std::string_view text);

}  // namespace nodeprobe::cli
