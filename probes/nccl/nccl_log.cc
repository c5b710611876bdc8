// File: nccl_log.cc
// Patterns are RE2 (linear time: a hostile log cannot make a match blow
// up), each written against lines of the real logs in tests/fixtures/nccl/.
#include "probes/nccl/nccl_log.h"

#include <re2/re2.h>

#include <algorithm>
#include <cstdlib>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "platform/host_text.h"
#include "probes/nccl/nccl_log_events.h"
#include "probes/nccl/re2_text.h"

namespace nodeprobe::nccl {
namespace {

// Distinct entries kept per list (real logs of a 1000-node job stay far
// below; past it `truncated` is set).
constexpr int kMaxEntries = 4096;
constexpr int kMaxWarnings = 20;
// Distinct events kept (by kind, host, rank and message shape), and the
// length of a message kept.
constexpr int kMaxEvents = 512;
constexpr size_t kMaxEventMessage = 512;
constexpr size_t kMaxHostsPerVersion = 8;
constexpr size_t kMaxVersions = kMaxNcclVersions;

// Well-formed UTF-8 (no overlongs or surrogates checked: this only tells
// the reader that the log is in some other encoding).
bool IsUtf8(std::string_view s) {
  for (size_t i = 0; i < s.size();) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    const int n = c < 0x80 ? 0 : (c & 0xe0) == 0xc0 ? 1 : (c & 0xf0) == 0xe0 ? 2
                : (c & 0xf8) == 0xf0 ? 3 : -1;
    if (n < 0) return false;
    for (int k = 1; k <= n; ++k) {
      if (i + k >= s.size() || (static_cast<unsigned char>(s[i + k]) & 0xc0) != 0x80) return false;
    }
    i += n + 1;
  }
  return true;
}

bool StartsWith(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}
// Debian's abseil has its own string_view: convert at the call.
bool ParseHex(std::string_view s, uint64_t* out) {
  return absl::SimpleHexAtoi(absl::string_view(s.data(), s.size()), out);
}

// "host:pid:tid [dev] NCCL INFO message"; the host may follow any prefix,
// and a WARN names where NCCL raised it first ("ibvwrap.c:130 NCCL WARN",
// "register_mr_buffers:647 NCCL WARN"), since NCCL 2.30 with the function
// too ("misc/ibvwrap.cc:213 (wrap_ibv_reg_mr_iova2) NCCL WARN": debug.cc's
// "[%d] %s:%d (%s) NCCL WARN %s" when a function name is known).
const RE2& Prefixed() {
  // The host starts the line or follows a prefix's delimiter (a space,
  // "<stdout>:", a Ray prefix's ")"), not the middle of a spliced word.
  static const RE2 re(
      "(?:^|[\\s)>:\\]])([A-Za-z0-9._-]+):(\\d+):\\d+ \\[\\d+\\] "
      "(?:[\\w./-]+:\\d+ (?:\\([\\w:~<>]*\\) )?)?"
      "NCCL (INFO|WARN) (.*)");
  return re;
}
// MPI's "[1,3]<stdout>:": rank 3 of job 1.
const RE2& MpiRank() {
  static const RE2 re("^\\[\\d+,(\\d+)\\]<std(?:out|err)>:");
  return re;
}
const RE2& Bare() {
  static const RE2 re("NCCL (INFO|WARN) (.*)");
  return re;
}
// Both "NCCL version 2.21.5+cuda12.4" alone and after "NCCL INFO".
const RE2& Version() {
  static const RE2 re("NCCL version (\\d+\\.\\d+\\.\\d+[^\\s]*)");
  return re;
}
const RE2& Repeated() {
  static const RE2 re("\\s*\\[repeated \\d+x across cluster\\]\\s*$");
  return re;
}

// "NET/IB/0/GDRDMA" -> transport NET/IB, device 0, gdr; "P2P/IPC/read" ->
// P2P/IPC; "SHM/direct/direct" -> SHM; "NVLS", "CollNet/..." -> the first part.
// PXN (NCCL >= 2.12, net.cc's "via NET/%s/%d(%d)%s%s"): "NET/IB/0(8)/GDRDMA"
// is device 0 of rank 8, the proxy on the same node whose GPU the data is
// moved to over NVLink before it leaves.
struct Via {
  std::string transport;
  bool network = false;
  int device = -1;
  int proxy_rank = -1;  // -1: the sending rank's own NIC
  bool gdr = false;
};

Via ParseVia(std::string_view via) {
  static const RE2 net("^NET/([^/]+)/(\\d+)(?:\\((\\d+)\\))?(/GDRDMA)?");
  // A line cut by another process's output ("via P") names no transport.
  static const RE2 other("^(P2P/[^/]+|SHM|NVLS|CollNet)");
  Via v;
  std::string device, proxy, gdr;
  if (RE2::PartialMatch(Piece(via), net, &v.transport, &device, &proxy, &gdr)) {
    v.transport = "NET/" + v.transport;
    v.network = true;
    v.device = atoi(device.c_str());
    v.proxy_rank = proxy.empty() ? -1 : atoi(proxy.c_str());
    v.gdr = !gdr.empty();
  } else if (!RE2::PartialMatch(Piece(via), other, &v.transport)) {
    v.transport.clear();
  }
  return v;
}

// The name of NET device `index` in NCCL's list for `transport` ("IB" for
// every verbs-based and plugin transport, "Socket" for NET/Socket); "".
std::string DeviceName(const v1::NcclLogReport& r, const std::string& transport, int index) {
  const std::string list = transport == "NET/Socket" ? "Socket" : "IB";
  for (const v1::NcclNetDevice& d : r.devices()) {
    if (d.network() == list && static_cast<int>(d.index()) == index) return d.name();
  }
  return "";
}

// The GPU of `rank` on `host` by the init lines, in its largest
// communicator (a PXN proxy is a rank of the communicator that printed the
// channel; the world's is the one every rank is in); "" when not printed.
std::string RankBusId(const v1::NcclLogReport& r, const std::string& host, int rank) {
  const v1::NcclRank* best = nullptr;
  for (const v1::NcclRank& x : r.ranks()) {
    if (x.host() != host || static_cast<int>(x.rank()) != rank) continue;
    if (best == nullptr || x.nranks() > best->nranks()) best = &x;
  }
  return best == nullptr ? "" : best->bus_id();
}

}  // namespace

std::string NcclBusIdToPci(std::string_view hex) {
  uint64_t id = 0;
  if (hex.size() > 12 || !ParseHex(hex, &id)) return "";
  char out[32];
  snprintf(out, sizeof(out), "%04llx:%02llx:%02llx.%llx",
           static_cast<unsigned long long>(id >> 20),
           static_cast<unsigned long long>((id >> 12) & 0xff),
           static_cast<unsigned long long>((id >> 4) & 0xff),
           static_cast<unsigned long long>(id & 0xf));
  return out;
}

bool NcclLogParser::First(const std::string& key, int size) {
  if (seen_.count(key)) return false;
  if (size >= kMaxEntries) {
    report_.set_truncated(true);
    return false;
  }
  seen_.insert(key);
  return true;
}

void NcclLogParser::AddUnique(google::protobuf::RepeatedPtrField<std::string>* list,
                              const char* kind, const std::string& value) {
  if (First(absl::StrCat(kind, "\x1f", value), list->size())) list->Add(std::string(value));
}

void NcclLogParser::AddText(std::string_view text) {
  // Lines end at LF, CRLF or a bare CR; they are cut at kMaxLineBytes and
  // the rest of a longer line is skipped.
  while (!text.empty()) {
    if (after_cr_ && text.front() == '\n') {  // the LF of a CRLF split across pieces
      text.remove_prefix(1);
      after_cr_ = false;
      continue;
    }
    if (after_cr_) report_.set_cr_line_endings(true);  // that CR ended a line alone
    after_cr_ = false;
    const size_t nl = text.find_first_of("\r\n");
    const std::string_view part = text.substr(0, nl);
    if (!skipping_) {
      const size_t room = kMaxLineBytes - partial_.size();
      partial_.append(part.substr(0, room));
      if (part.size() > room) {
        skipping_ = true;
        report_.set_truncated(true);
      }
    }
    if (nl == std::string_view::npos) return;
    if (text[nl] == '\r') {
      if (nl + 1 < text.size() && text[nl + 1] == '\n') {
        text.remove_prefix(1);  // CRLF: one line end
      } else if (nl + 1 == text.size()) {
        after_cr_ = true;  // a LF may start the next piece
      } else {
        report_.set_cr_line_endings(true);
      }
    }
    AddLine(partial_);
    partial_.clear();
    skipping_ = false;
    text.remove_prefix(nl + 1);
  }
}

void NcclLogParser::Flush() {
  if (!partial_.empty()) AddLine(partial_);
  partial_.clear();
  skipping_ = false;
  after_cr_ = false;
}

void NcclLogParser::AddStream(std::istream& in) {
  char buf[1 << 16];
  while (in.read(buf, sizeof(buf)) || in.gcount() > 0) {
    AddText(std::string_view(buf, static_cast<size_t>(in.gcount())));
  }
  Flush();
}

void NcclLogParser::AddLine(std::string_view raw) {
  report_.set_lines(report_.lines() + 1);
  std::string line(raw.substr(0, kMaxLineBytes));
  // Colour codes of Ray and vLLM output.
  if (line.find('\x1b') != std::string::npos) line = platform::WithoutColour(line);
  if (!line.empty() && line.back() == '\r') line.pop_back();
  if (!report_.not_utf8() && !IsUtf8(line)) report_.set_not_utf8(true);
  RE2::Replace(&line, Repeated(), "");
  tests_.AddLine(line);
  std::string version;
  const bool has_version = RE2::PartialMatch(line, Version(), &version);
  if (has_version) AddUnique(report_.mutable_versions(), "version", version);
  std::string host, level;
  uint32_t pid = 0;
  re2::StringPiece message;
  const bool prefixed = RE2::PartialMatch(line, Prefixed(), &host, &pid, &level, &message);
  if (has_version) {
    // Which hosts printed which version: versions that disagree are named
    // with their hosts. Bounded like every list here.
    const std::string number = version.substr(0, version.find('+'));
    auto it = version_hosts_.find(number);
    if (it == version_hosts_.end() && version_hosts_.size() >= kMaxVersions) {
      report_.set_truncated(true);
    } else {
      std::set<std::string>& hosts = version_hosts_[number];
      if (hosts.size() < kMaxHostsPerVersion) {
        hosts.insert(prefixed && !host.empty() ? host : "?");
      } else if (!hosts.count(host)) {
        ++version_more_hosts_[number];
      }
    }
  }
  if (!prefixed) {
    host.clear();
    pid = 0;
    if (!RE2::PartialMatch(line, Bare(), &level, &message)) {
      // Not NCCL's own line: the job's words about NCCL (a watchdog
      // timeout, an error name, the launcher killing it).
      if (std::optional<LineEvent> e = ClassifyJobLine(line)) AddEvent(*std::move(e), "", 0, line);
      return;
    }
  }
  report_.set_nccl_lines(report_.nccl_lines() + 1);
  if (!host.empty()) {
    AddUnique(report_.mutable_hosts(), "host", host);
    if (host_lines_.count(host) || host_lines_.size() < kMaxEntries) ++host_lines_[host];
  }
  if (level == "WARN") {
    if (std::optional<LineEvent> e = ClassifyNcclWarning(View(message))) {
      AddEvent(*std::move(e), host, pid, line);
    }
  } else if (absl::StrContains(absl::string_view(message.data(), message.size()),
                               "Init COMPLETE")) {
    report_.set_init_complete(report_.init_complete() + 1);
  } else if (absl::StrContains(absl::string_view(message.data(), message.size()),
                               "Abort COMPLETE")) {
    report_.set_abort_complete(report_.abort_complete() + 1);
  }
  AddMessage(host, pid, View(message), level == "WARN");
}

void NcclLogParser::AddEvent(LineEvent e, const std::string& host, uint32_t pid,
                             std::string_view line) {
  int mpi_rank = -1;
  if (e.rank < 0 && RE2::PartialMatch(Piece(line), MpiRank(), &mpi_rank)) e.rank = mpi_rank;
  const std::string key =
      absl::StrCat(e.kind, "\x1f", host, "\x1f", e.rank, "\x1f", MessageShape(e.message));
  auto it = event_index_.find(key);
  if (it != event_index_.end()) {
    v1::NcclLogEvent* known = report_.mutable_events(it->second);
    known->set_count(known->count() + 1);
    return;
  }
  if (report_.events_size() >= kMaxEvents) {
    report_.set_truncated(true);
    return;
  }
  event_index_[key] = report_.events_size();
  v1::NcclLogEvent* out = report_.add_events();
  out->set_kind(e.kind);
  out->set_host(host);
  out->set_rank(e.rank);
  out->set_pid(pid);
  out->set_message(e.message.substr(0, kMaxEventMessage));
  out->set_count(1);
  out->set_line(report_.lines());
  out->set_op(e.op);
  out->set_seq(e.seq);
}

void NcclLogParser::AddMessage(const std::string& host, uint32_t pid, std::string_view message,
                               bool warn) {
  if (warn) {
    if (report_.warnings_size() < kMaxWarnings) {
      report_.add_warnings(host.empty() ? std::string(message)
                                        : host + ": " + std::string(message));
    } else {
      report_.set_truncated(true);
    }
    return;
  }
  const re2::StringPiece m = Piece(message);
  static const RE2 channel(
      "Channel \\d+(?:/\\d+)? : \\d+\\[([0-9a-fA-F]+)\\] -> \\d+\\[[0-9a-fA-F]+\\]"
      "(?: \\[(send|receive)\\])? via (\\S.*?)\\s*$");
  std::string from, direction, via;
  if (RE2::FullMatch(m, channel, &from, &direction, &via)) {
    AddChannel(host, from, direction != "receive", via);
    return;
  }
  if (AddNetDevices(message)) return;
  if (StartsWith(message, "NET/IB : No device found")) {
    report_.set_ib_no_device(true);
    return;
  }
  static const RE2 network("Using network (.+?)\\s*$");
  static const RE2 gdr_off("GPU Direct RDMA Disabled for HCA \\d+ '([^']+)'");
  static const RE2 provider("NET/OFI Selected Provider is (\\S+)");
  static const RE2 env("(NCCL_[A-Z0-9_]+) set by environment to (.*?)\\.?\\s*$");
  std::string a, b;
  if (RE2::PartialMatch(m, network, &a)) {
    AddUnique(report_.mutable_networks(), "network", a);
  } else if (RE2::PartialMatch(m, gdr_off, &a)) {
    AddUnique(report_.mutable_gdr_disabled_hcas(), "gdr-off", a);
  } else if (RE2::PartialMatch(m, provider, &a)) {
    report_.set_provider(a);
  } else if (RE2::FullMatch(m, env, &a, &b)) {
    if (report_.env_size() < kMaxEntries || report_.env().contains(a)) {
      (*report_.mutable_env())[a] = b;
    } else {
      report_.set_truncated(true);
    }
  } else {
    AddRankLine(host, pid, message);
  }
}

bool NcclLogParser::AddNetDevices(std::string_view message) {
  const re2::StringPiece m = Piece(message);
  static const RE2 ib_using("NET/IB ?: Using (.*)");
  static const RE2 socket_using("NET/Socket ?: Using (.*)");
  std::string rest;
  if (RE2::FullMatch(m, ib_using, &rest)) {
    // "[0]mlx5_0:1/IB [1]mlx5_1:1/RoCE [RO]; OOB eth0:10.0.0.1<0>"
    static const RE2 dev("\\[(\\d+)\\]([^:\\s\\[\\]]+):(\\d+)/([A-Za-z]+)");
    re2::StringPiece in(rest.data(), rest.find(';') == std::string::npos ? rest.size()
                                                                           : rest.find(';'));
    int index = 0, port = 0;
    std::string name, layer;
    while (RE2::FindAndConsume(&in, dev, &index, &name, &port, &layer)) {
      v1::NcclNetDevice* d = AddDevice("IB", index, name);
      if (d == nullptr) continue;
      d->set_port(port);
      d->set_link_layer(layer);
    }
    return true;
  }
  if (RE2::FullMatch(m, socket_using, &rest)) {
    // "[0]eth0:10.244.1.228<0>"
    static const RE2 dev("\\[(\\d+)\\]([^:\\s]+):([^<\\s]+)<\\d+>");
    re2::StringPiece in(rest);
    int index = 0;
    std::string name, address;
    while (RE2::FindAndConsume(&in, dev, &index, &name, &address)) {
      v1::NcclNetDevice* d = AddDevice("Socket", index, name);
      if (d != nullptr) d->set_address(address);
    }
    return true;
  }
  return false;
}

bool NcclLogParser::AddRankLine(const std::string& host, uint32_t pid,
                                std::string_view message) {
  const re2::StringPiece m = Piece(message);
  static const RE2 init(
      "comm 0x[0-9a-f]+ rank (\\d+) nranks (\\d+) cudaDev (\\d+)(?: nvmlDev (\\d+))? "
      "busId ([0-9a-fA-F]+)");
  int rank = 0, nranks = 0, cuda_dev = 0;
  std::string nvml_dev, bus;
  if (!RE2::PartialMatch(m, init, &rank, &nranks, &cuda_dev, &nvml_dev, &bus)) return false;
  const std::string pci = NcclBusIdToPci(bus);
  if (!First(absl::StrCat("rank\x1f", host, "\x1f", rank, "\x1f", nranks, "\x1f", pci),
             report_.ranks_size())) {
    return true;
  }
  // A process's global rank: the rank in its largest communicator.
  if (pid != 0 && process_rank_.size() < kMaxEntries) {
    auto [at, fresh] = process_rank_.try_emplace(absl::StrCat(host, "/", pid), rank, nranks);
    if (!fresh && nranks > at->second.second) at->second = {rank, nranks};
  }
  v1::NcclRank* r = report_.add_ranks();
  r->set_host(host);
  r->set_rank(rank);
  r->set_nranks(nranks);
  r->set_cuda_dev(cuda_dev);
  r->set_bus_id(pci);
  // Channel lines of this NCCL name the GPU by its NVML device number.
  if (!nvml_dev.empty() && device_bus_.size() < kMaxEntries) {
    device_bus_[absl::StrCat(host, "/", nvml_dev)] = pci;
  }
  return true;
}

void NcclLogParser::AddChannel(const std::string& host, std::string_view from_gpu, bool send,
                               std::string_view via_text) {
  const Via via = ParseVia(via_text);
  if (via.transport.empty()) return;
  const std::string key = absl::StrCat(via.transport, "\x1f", via.device, "\x1f", via.gdr);
  v1::NcclTransportUse* use = nullptr;
  if (auto it = transport_index_.find(key); it != transport_index_.end()) {
    use = report_.mutable_transports(it->second);
  } else {
    if (report_.transports_size() >= kMaxEntries) {
      report_.set_truncated(true);
      return;
    }
    transport_index_[key] = report_.transports_size();
    use = report_.add_transports();
    use->set_transport(via.transport);
    use->set_network(via.network);
    use->set_net_device(via.device);
    use->set_gdr(via.gdr);
    use->set_example(std::string(via_text));
  }
  use->set_connections(use->connections() + 1);
  if (!via.network || !send) return;
  // The sender's GPU: a bus id in older NCCL ("1[101d0]"), the device
  // number in newer ("0[0]"), resolved in Report().
  const std::string gpu(from_gpu);
  if (!First(absl::StrCat("path\x1f", host, "\x1f", gpu, "\x1f", key, "\x1f", via.proxy_rank),
             report_.net_paths_size())) {
    return;
  }
  v1::NcclNetPath* p = report_.add_net_paths();
  p->set_host(host);
  p->set_gpu_bus_id(gpu);  // raw until Report()
  p->set_net_device(via.device);
  p->set_transport(via.transport);
  p->set_gdr(via.gdr);
  if (via.proxy_rank >= 0) p->set_proxy_rank(via.proxy_rank);
}

// Lines of two processes spliced together leave host names cut at the
// front ("pseek-v2-5-0-1" of "deepseek-v2-5-0-1") or glued to the tail of
// the other line ("-1mew0", "0mew0" after a table row's last column): when
// one name ends with another, the one printed more often is the host and
// the other its garbled copy.
std::map<std::string, std::string> NcclLogParser::GarbledHosts() const {
  std::map<std::string, std::string> out;
  for (const auto& [a, a_lines] : host_lines_) {
    for (const auto& [b, b_lines] : host_lines_) {
      if (a == b || b_lines < a_lines) continue;
      const bool suffix = (a.size() < b.size() && b.compare(b.size() - a.size(), a.size(), a) == 0) ||
                          (b.size() < a.size() && a.compare(a.size() - b.size(), b.size(), b) == 0);
      if (suffix && (b_lines > a_lines || a > b)) out[a] = b;
    }
  }
  return out;
}

v1::NcclLogReport NcclLogParser::Report() const {
  v1::NcclLogReport out = report_;
  tests_.AddTo(&out);
  if (const std::map<std::string, std::string> garbled = GarbledHosts(); !garbled.empty()) {
    auto fix = [&](std::string* host) {
      if (auto it = garbled.find(*host); it != garbled.end()) *host = it->second;
    };
    out.clear_hosts();
    for (const std::string& h : report_.hosts()) {
      if (!garbled.count(h)) out.add_hosts(h);
    }
    for (v1::NcclRank& r : *out.mutable_ranks()) fix(r.mutable_host());
    for (v1::NcclNetPath& p : *out.mutable_net_paths()) fix(p.mutable_host());
    for (v1::NcclLogEvent& e : *out.mutable_events()) fix(e.mutable_host());
  }
  for (v1::NcclNetPath& p : *out.mutable_net_paths()) {
    const std::string raw = p.gpu_bus_id();
    // Bus ids are at least a bus number above 0 (>= 0x1000); device
    // numbers are small.
    uint64_t value = 0;
    const bool hex = ParseHex(raw, &value);
    if (hex && value >= 0x1000) {
      p.set_gpu_bus_id(NcclBusIdToPci(raw));
    } else if (auto it = device_bus_.find(absl::StrCat(p.host(), "/", raw));
               it != device_bus_.end()) {
      p.set_gpu_bus_id(it->second);
    } else {
      p.set_gpu_bus_id("");
    }
    p.set_device_name(DeviceName(out, p.transport(), p.net_device()));
    if (p.has_proxy_rank()) p.set_proxy_gpu_bus_id(RankBusId(out, p.host(), p.proxy_rank()));
  }
  for (v1::NcclTransportUse& t : *out.mutable_transports()) {
    if (t.network()) t.set_device_name(DeviceName(out, t.transport(), t.net_device()));
  }
  for (const auto& [version, hosts] : version_hosts_) {
    std::string named = absl::StrJoin(hosts, ", ");
    if (auto more = version_more_hosts_.find(version); more != version_more_hosts_.end()) {
      absl::StrAppend(&named, ", +", more->second, " more");
    }
    (*out.mutable_version_hosts())[version] = named;
  }
  // Events from a process whose rank its init lines gave.
  for (v1::NcclLogEvent& e : *out.mutable_events()) {
    if (e.rank() >= 0 || e.pid() == 0) continue;
    if (auto it = process_rank_.find(absl::StrCat(e.host(), "/", e.pid()));
        it != process_rank_.end()) {
      e.set_rank(it->second.first);
    }
  }
  return out;
}

v1::NcclLogReport ParseNcclLog(std::string_view text) {
  NcclLogParser parser;
  parser.AddText(text);
  parser.Flush();
  return parser.Report();
}

v1::NcclNetDevice* NcclLogParser::AddDevice(const std::string& network, int index,
                                            const std::string& name) {
  if (!First(absl::StrCat("device\x1f", network, "\x1f", index, "\x1f", name),
             report_.devices_size())) {
    return nullptr;
  }
  v1::NcclNetDevice* d = report_.add_devices();
  d->set_index(index);
  d->set_name(name);
  d->set_network(network);
  return d;
}

}  // namespace nodeprobe::nccl
