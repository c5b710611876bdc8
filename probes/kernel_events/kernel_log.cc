#include "probes/kernel_events/kernel_log.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <vector>

#include <google/protobuf/struct.pb.h>
#include <google/protobuf/util/json_util.h>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "absl/time/time.h"
#include "platform/host_text.h"

namespace nodeprobe::kernel {
namespace {

bool Hex(absl::string_view s, size_t at, size_t n) {
  if (at + n > s.size()) return false;
  for (size_t i = at; i < at + n; ++i) {
    if (!std::isxdigit(static_cast<unsigned char>(s[i]))) return false;
  }
  return true;
}

// The first "0000:cb:00" or "0000:cb:00.0" in `s` (position, length), or
// npos: how drivers name a PCI function.
std::pair<size_t, size_t> FindPciAddress(absl::string_view s) {
  for (size_t i = 0; i + 10 <= s.size(); ++i) {
    if (Hex(s, i, 4) && s[i + 4] == ':' && Hex(s, i + 5, 2) && s[i + 7] == ':' &&
        Hex(s, i + 8, 2) && (i == 0 || !std::isxdigit(static_cast<unsigned char>(s[i - 1])))) {
      const bool fn = i + 12 <= s.size() && s[i + 10] == '.' &&
                      std::isdigit(static_cast<unsigned char>(s[i + 11]));
      return {i, fn ? 12 : 10};
    }
  }
  return {absl::string_view::npos, 0};
}

std::string PciAddress(absl::string_view s) {
  auto [at, n] = FindPciAddress(s);
  return at == absl::string_view::npos ? "" : std::string(s.substr(at, n));
}

// A GPU as the NVIDIA driver's Xid lines name it: domain:bus:device, no
// function ("0000:09:00"), so its other lines count for the same GPU.
std::string GpuAddress(absl::string_view s) { return PciAddress(s).substr(0, 10); }

// The timestamp the log wrote before the message: a bracketed one
// ("[ 219.47]", "[Fri Aug 30 11:43:09 2024]"), else the text before
// "kernel:" or the driver's name (syslog, journal, dmesg --decode).
std::string When(absl::string_view before) {
  before = absl::StripAsciiWhitespace(before);
  absl::ConsumePrefix(&before, "> ");
  if (before.size() > 3 && before[0] == '<' && before[2] == '>') before.remove_prefix(3);
  const size_t open = before.find('[');
  const size_t close = before.find(']', open == absl::string_view::npos ? 0 : open);
  if (open != absl::string_view::npos && close != absl::string_view::npos) {
    return std::string(absl::StripAsciiWhitespace(before.substr(open + 1, close - open - 1)));
  }
  if (size_t k = before.find("kernel:"); k != absl::string_view::npos) before = before.substr(0, k);
  absl::ConsumePrefix(&before, "line ");    // gpud's diagnose output
  if (absl::StartsWith(before, "kern ")) {  // dmesg --decode: "kern  :warn  : TIME"
    if (size_t c = before.rfind(" : "); c != absl::string_view::npos) before = before.substr(c + 3);
  }
  before = absl::StripAsciiWhitespace(before);
  // An ISO timestamp is one word; what follows it is the driver's name.
  if (before.size() > 10 && before[4] == '-' && before[7] == '-') {
    before = before.substr(0, before.find(' '));
  }
  return std::string(before);
}

// "name=value, " at the front of `rest`: the value, consumed.
std::string Field(absl::string_view* rest, absl::string_view name) {
  if (!absl::ConsumePrefix(rest, name)) return "";
  const size_t end = rest->find(", ");
  std::string v(rest->substr(0, end));
  rest->remove_prefix(end == absl::string_view::npos ? rest->size() : end + 2);
  absl::StripAsciiWhitespace(&v);
  return v == "'<unknown>'" || v == "<unknown>" ? "" : v;
}

// "NVRM: Xid (PCI:0000:cb:00): 109, pid=..., name=..., text" and SXid.
bool ParseXid(absl::string_view line, absl::string_view anchor, const char* kind,
              v1::KernelEvent* e) {
  const size_t at = line.find(anchor);
  if (at == absl::string_view::npos) return false;
  absl::string_view rest = line.substr(at + anchor.size());
  const size_t close = rest.find("):");
  if (close == absl::string_view::npos) return false;
  absl::string_view dev = rest.substr(0, close);
  absl::ConsumePrefix(&dev, "PCI:");
  rest.remove_prefix(close + 2);
  rest = absl::StripLeadingAsciiWhitespace(rest);
  // A code that is not a small non-negative number (negative, past
  // INT_MAX: a corrupted or forged line) is still an event, of code -1
  // (unknown to the catalog, which says so), never dropped.
  const bool negative = absl::ConsumePrefix(&rest, "-");
  size_t digits = 0;
  while (digits < rest.size() && std::isdigit(static_cast<unsigned char>(rest[digits]))) ++digits;
  if (digits == 0) return false;
  int code = 0;
  std::string odd;
  if (negative || !absl::SimpleAtoi(rest.substr(0, digits), &code)) {
    odd = absl::StrCat("code ", negative ? "-" : "", rest.substr(0, digits), " out of range; ");
    code = -1;
  }
  rest.remove_prefix(digits);
  absl::ConsumePrefix(&rest, ",");
  rest = absl::StripLeadingAsciiWhitespace(rest);
  const std::string pid = Field(&rest, "pid=");
  const std::string name = Field(&rest, "name=");
  e->set_kind(kind);
  e->set_device(std::string(dev));
  e->set_code(code);
  if (!pid.empty() || !name.empty()) e->set_process(absl::StrCat("pid=", pid, " ", name));
  e->set_text(absl::StrCat(odd, absl::StripAsciiWhitespace(rest)));
  e->set_when(When(line.substr(0, at)));
  return true;
}

// "DEV: ... PCIe Bus Error: severity=Corrected, type=Physical Layer, ...".
bool ParseAer(absl::string_view line, v1::KernelEvent* e) {
  const size_t at = line.find("PCIe Bus Error: severity=");
  if (at == absl::string_view::npos) return false;
  absl::string_view rest = line.substr(at + 25);
  const std::string severity(rest.substr(0, rest.find(',')));
  e->set_kind("aer");
  e->set_device(PciAddress(line.substr(0, at)));
  e->set_severity(severity);
  // Corrected and Correctable (older kernels) are the same class.
  e->set_code(absl::StartsWith(severity, "Correct")                                         ? 0
              : absl::StrContains(severity, "Fatal") && !absl::StrContains(severity, "Non") ? 2
                                                                                            : 1);
  e->set_text(std::string(absl::StripAsciiWhitespace(rest)));
  e->set_when(When(line.substr(0, FindPciAddress(line).first)));
  return true;
}

// "DEV: [AER:]    [ 0] RxErr   (First)": one error bit of the AER line above.
bool ParseAerBit(absl::string_view line, v1::KernelEvent* e) {
  auto [at, n] = FindPciAddress(line);
  if (at == absl::string_view::npos) return false;
  absl::string_view rest = line.substr(at + n);
  absl::ConsumePrefix(&rest, ":");
  rest = absl::StripLeadingAsciiWhitespace(rest);
  absl::ConsumePrefix(&rest, "AER:");
  rest = absl::StripLeadingAsciiWhitespace(rest);
  if (!absl::ConsumePrefix(&rest, "[")) return false;
  const size_t close = rest.find(']');
  if (close == absl::string_view::npos || close > 3) return false;
  int bit = 0;
  if (!absl::SimpleAtoi(absl::StripAsciiWhitespace(rest.substr(0, close)), &bit)) return false;
  absl::string_view name = absl::StripAsciiWhitespace(rest.substr(close + 1));
  absl::ConsumeSuffix(&name, "(First)");
  e->set_kind("aer_bit");
  e->set_device(std::string(line.substr(at, n)));
  e->set_text(std::string(absl::StripAsciiWhitespace(name)));
  return !e->text().empty();
}

// A module event that needs a look: anything but a cable being plugged in
// (unplugged, power budget exceeded, an unrecognized or bad cable, high
// temperature).
bool ModuleTrouble(absl::string_view text) {
  return !absl::StrContains(absl::AsciiStrToLower(text), "cable plugged");
}

// mlx5's "mlx5_core 0000:41:00.0 enp65s0f0np0: Link up" and "Port module
// event: module 0, Cable plugged" (code 1 when ModuleTrouble).
bool ParseNicEvent(absl::string_view line, v1::KernelEvent* e) {
  const size_t at = line.find("mlx5_core ");
  if (at == absl::string_view::npos) return false;
  absl::string_view rest = line.substr(at + 10);
  for (const auto& [suffix, kind] :
       {std::pair{": Link up", "link_up"}, std::pair{": Link down", "link_down"}}) {
    absl::string_view r = absl::StripTrailingAsciiWhitespace(rest);
    if (absl::ConsumeSuffix(&r, suffix)) {
      const size_t space = r.rfind(' ');
      e->set_kind(kind);
      e->set_device(std::string(space == absl::string_view::npos ? r : r.substr(space + 1)));
      e->set_when(When(line.substr(0, at)));
      return true;
    }
  }
  // "Port module event: module 0, ..." and "Port module event[error]: ...".
  const size_t module = rest.find("Port module event");
  if (module == absl::string_view::npos) return false;
  const size_t colon = rest.find(": ", module);
  if (colon == absl::string_view::npos) return false;
  e->set_kind("module");
  e->set_device(PciAddress(rest));
  e->set_text(std::string(absl::StripAsciiWhitespace(rest.substr(colon + 2))));
  e->set_code(ModuleTrouble(e->text()) ? 1 : 0);
  e->set_when(When(line.substr(0, at)));
  return true;
}

}  // namespace

std::optional<std::string> FromJournalJson(absl::string_view line) {
  constexpr char kObjectStart = 0x7b;  // an opening brace (kept out of the source's brace count)
  if (line.empty() || line.front() != kObjectStart || !absl::StrContains(line, "\"MESSAGE\"")) {
    return std::nullopt;
  }
  google::protobuf::Struct entry;
  if (!google::protobuf::util::JsonStringToMessage(std::string(line), &entry).ok()) {
    return std::nullopt;
  }
  const auto& f = entry.fields();
  auto transport = f.find("_TRANSPORT");
  if (transport != f.end() && transport->second.string_value() != "kernel") return "";
  auto message = f.find("MESSAGE");
  if (message == f.end()) return std::nullopt;
  std::string text;
  if (message->second.has_list_value()) {  // bytes that are not UTF-8
    for (const google::protobuf::Value& b : message->second.list_value().values()) {
      text.push_back(static_cast<char>(static_cast<int>(b.number_value()) & 0xff));
    }
  } else {
    text = message->second.string_value();
  }
  // The kernel's clock (microseconds since boot), as dmesg prints it.
  auto mono = f.find("__MONOTONIC_TIMESTAMP");
  double us = 0;
  if (mono != f.end() && absl::SimpleAtod(mono->second.string_value(), &us)) {
    return absl::StrFormat("[%12.6f] %s", us / 1e6, text);
  }
  return text;
}

std::string Normalized(absl::string_view raw) {
  // dmesg --color=always; Debian's abseil has its own string_view.
  std::string out = platform::WithoutColour(std::string_view(raw.data(), raw.size()));
  std::replace(out.begin(), out.end(), '\t', ' ');  // "NVRM:<TAB>Xid"
  return out;
}

std::string SyslogTag(absl::string_view line) {
  absl::string_view s = line;
  if (s.size() > 3 && s[0] == '<') {  // "<6>" priority
    const size_t close = s.find('>');
    if (close != absl::string_view::npos && close < 5) s.remove_prefix(close + 1);
  }
  // "Dec  2 11:38:47 host tag[pid]: message" (RFC 3164).
  static const char* const kMonths[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                        "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
  if (s.size() < 16 || s[3] != ' ' ||
      std::find(std::begin(kMonths), std::end(kMonths), s.substr(0, 3)) == std::end(kMonths)) {
    return "";
  }
  std::vector<absl::string_view> words = absl::StrSplit(s, ' ', absl::SkipEmpty());
  if (words.size() < 5 || words[2].size() != 8 || words[2][2] != ':' || words[2][5] != ':') {
    return "";
  }
  absl::string_view tag = words[4];
  if (!absl::ConsumeSuffix(&tag, ":")) return "";
  if (const size_t bracket = tag.find('['); bracket != absl::string_view::npos) {
    tag = tag.substr(0, bracket);
  }
  return std::string(tag);
}

v1::KernelEvent ParseKernelLine(absl::string_view raw) {
  // Every reader of kernel lines (this one, the agent's watch) gets them
  // without colour and with tabs as spaces.
  std::string normalized;
  absl::string_view line = raw;
  if (raw.find_first_of("\x1b\t") != absl::string_view::npos) {
    normalized = Normalized(raw);
    line = normalized;
  }
  v1::KernelEvent e;
  if (ParseXid(line, "NVRM: Xid (", "xid", &e) || ParseXid(line, "SXid (", "sxid", &e) ||
      ParseAer(line, &e) || ParseNicEvent(line, &e)) {
    return e;
  }
  if (absl::StrContains(line, "NVRM:") && absl::StrContains(line, "fallen off the bus")) {
    e.set_kind("fell_off_bus");
    e.set_device(GpuAddress(line));
    e.set_when(When(line.substr(0, line.find("NVRM:"))));
    return e;
  }
  // The driver's wording varies in case ("Reset required", "Reset Required").
  if (absl::StrContains(line, "NVRM:") &&
      absl::StrContains(absl::AsciiStrToLower(line), "reset required")) {
    e.set_kind("reset_required");
    e.set_device(GpuAddress(line));
    e.set_text(std::string(absl::StripAsciiWhitespace(line.substr(line.find("NVRM:") + 5))));
    return e;
  }
  if (ParseAerBit(line, &e)) return e;
  return v1::KernelEvent();
}

std::map<std::string, uint64_t> ParseAerCounters(absl::string_view text) {
  std::map<std::string, uint64_t> out;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    line = absl::StripAsciiWhitespace(line);
    const size_t space = line.rfind(' ');
    uint64_t n = 0;
    if (space == absl::string_view::npos || !absl::SimpleAtoi(line.substr(space + 1), &n)) continue;
    out[std::string(absl::StripAsciiWhitespace(line.substr(0, space)))] = n;
  }
  return out;
}

void KernelLogReader::AddLine(absl::string_view raw) {
  report_.set_lines(report_.lines() + 1);
  absl::ConsumeSuffix(&raw, "\r");
  // Plain words for the syslog and journal shapes below (ParseKernelLine
  // normalizes what it is given itself).
  std::string line = raw.find_first_of("\x1b\t") == absl::string_view::npos
                         ? std::string(raw)
                         : Normalized(raw);
  // journalctl -o json: the kernel's MESSAGE (a string, or an array of
  // bytes when it is not UTF-8), a program's lines left out.
  if (std::optional<std::string> journal = FromJournalJson(line)) {
    if (journal->empty()) {
      report_.set_user_space_lines(report_.user_space_lines() + 1);
      return;
    }
    line = *std::move(journal);
  }
  // A program's syslog line quoting a fault is not the kernel's.
  if (const std::string tag = SyslogTag(line); !tag.empty() && tag != "kernel") {
    report_.set_user_space_lines(report_.user_space_lines() + 1);
    return;
  }
  // An Xid cut before its code ("NVRM: Xid (PCI:0000:3b:00): " and the
  // rest on a continuation line): the next line's message completes it.
  if (!xid_head_.empty()) {
    std::string rest = line;
    if (const size_t close = rest.find("] "); rest.rfind("[", 0) == 0 && close != std::string::npos) {
      rest = rest.substr(close + 2);  // the continuation's own timestamp
    }
    line = absl::StrCat(xid_head_, " ", absl::StripLeadingAsciiWhitespace(rest));
    xid_head_.clear();
  }
  v1::KernelEvent e = ParseKernelLine(line);
  if (e.kind().empty()) {
    const size_t at = line.find("Xid (");
    if (at != std::string::npos && absl::StripTrailingAsciiWhitespace(line).back() == ':' &&
        line.size() < 4096) {
      xid_head_ = std::string(absl::StripTrailingAsciiWhitespace(line));
    }
    return;
  }
  e.set_line(report_.lines());
  Record(std::move(e));
}

std::optional<double> WhenSeconds(absl::string_view when) {
  double s = 0;
  if (absl::SimpleAtod(when, &s)) {
    if (std::isfinite(s) && s >= 0) return s;
    return std::nullopt;
  }
  std::string text(when);
  absl::Time t;
  std::string err;
  if (text.size() > 10 && text[4] == '-' && text[10] == 'T') {  // ISO, "," before the fraction
    std::replace(text.begin(), text.end(), ',', '.');
    if (absl::ParseTime("%Y-%m-%dT%H:%M:%E*S%Ez", text, &t, &err)) {
      return absl::ToDoubleSeconds(t - absl::UnixEpoch());
    }
    return std::nullopt;
  }
  if (absl::ParseTime("%a %b %e %H:%M:%S %Y", text, &t, &err)) {  // dmesg -T
    return absl::ToDoubleSeconds(t - absl::UnixEpoch());
  }
  // syslog/journal: "Dec  2 11:38:47 host": the first three words.
  std::vector<absl::string_view> words = absl::StrSplit(when, ' ', absl::SkipEmpty());
  if (words.size() >= 3 &&
      absl::ParseTime("%b %e %H:%M:%S", absl::StrCat(words[0], " ", words[1], " ", words[2]), &t,
                      &err)) {
    return absl::ToDoubleSeconds(t - absl::UnixEpoch());
  }
  return std::nullopt;
}

void KernelLogReader::Record(v1::KernelEvent e) {
  if (e.kind() == "aer_bit") {
    auto open = open_aer_.find(e.device());
    if (open == open_aer_.end()) return;  // a bit line without its error line
    auto t = tallies_.find(open->second);
    if (t != tallies_.end()) ++t->second.bits[e.text()];
    if (open_aer_event_ >= 0 && report_.events(open_aer_event_).device() == e.device()) {
      report_.mutable_events(open_aer_event_)->add_bits(e.text());
    }
    return;
  }
  const Key key{e.kind(), e.device(), e.code()};
  auto t = tallies_.find(key);
  if (t == tallies_.end() && tallies_.size() < kMaxTallies) {
    Tally first;
    first.first = e;
    t = tallies_.emplace(key, std::move(first)).first;
  }
  if (t != tallies_.end()) {
    Tally& tally = t->second;
    ++tally.count;
    if (const std::optional<double> at = WhenSeconds(e.when())) {
      if (tally.first_s < 0 || *at < tally.first_s) tally.first_s = *at;
      tally.last_s = std::max(tally.last_s, *at);
    }
  }
  if (e.kind() == "aer") open_aer_[e.device()] = key;
  open_aer_event_ = -1;
  if (static_cast<size_t>(report_.events_size()) < kMaxEvents) {
    if (e.kind() == "aer") open_aer_event_ = report_.events_size();
    *report_.add_events() = std::move(e);
  } else {
    report_.set_events_dropped(report_.events_dropped() + 1);
  }
}

void KernelLogReader::AddStream(std::istream& in) {
  std::string line;
  bool cut = false;
  auto flush = [&] {
    if (cut) report_.set_lines_too_long(report_.lines_too_long() + 1);
    AddLine(line);
    line.clear();
    cut = false;
  };
  std::streambuf* sb = in.rdbuf();
  // UTF-16 with its byte-order mark (a log saved by a Windows tool): each
  // code unit below 0x80 is its ASCII character, the rest '?' (no fault
  // line needs more).
  int order = 0;  // 1 little-endian, 2 big-endian
  const int b0 = sb->sgetc();
  if (b0 == 0xff || b0 == 0xfe) {
    sb->sbumpc();
    const int b1 = sb->sgetc();
    if ((b0 == 0xff && b1 == 0xfe) || (b0 == 0xfe && b1 == 0xff)) {
      sb->sbumpc();
      order = b0 == 0xff ? 1 : 2;
    } else {
      sb->sungetc();
    }
  }
  auto next = [&]() -> int {
    const int a = sb->sbumpc();
    if (order == 0 || a == std::char_traits<char>::eof()) return a;
    const int b = sb->sbumpc();
    if (b == std::char_traits<char>::eof()) return b;
    const int unit = order == 1 ? (a | (b << 8)) : ((a << 8) | b);
    return unit < 0x80 ? unit : '?';
  };
  for (int c = next(); c != std::char_traits<char>::eof(); c = next()) {
    if (c == '\n') {
      flush();
    } else if (line.size() < kMaxLine) {
      line.push_back(static_cast<char>(c));
    } else {
      cut = true;  // the rest of an overlong line is dropped, not kept
    }
  }
  if (!line.empty()) flush();
}

}  // namespace nodeprobe::kernel
