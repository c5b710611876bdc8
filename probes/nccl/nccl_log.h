// File: nccl_log.h
// Reads what NCCL did from its NCCL_DEBUG=INFO output: a log of our own
// collective run, or one captured from any training job. Real logs are
// messy (MPI "[1,3]<stdout>:" and Ray "(RayWorkerWrapper ...)" prefixes,
// ANSI colours, "[repeated 4x across cluster]" suffixes, lines of two
// processes spliced together); a line that matches nothing is skipped, never
// an error. Built on the real logs in tests/fixtures/nccl/.
//
// Bounded whatever the input: lines past kMaxLineBytes are cut, and every
// list keeps at most a fixed number of distinct entries, so a hostile or
// runaway log costs time linear in its size and a small, fixed memory.
#pragma once

#include <istream>
#include <map>
#include <set>
#include <string>
#include <string_view>

#include "nodeprobe/v1/nccl.pb.h"
#include "probes/nccl/nccl_tests_output.h"

namespace nodeprobe::nccl {

// Distinct NCCL versions a report keeps (with their hosts); past it the
// report is truncated and a count of versions is a lower bound.
inline constexpr size_t kMaxNcclVersions = 64;

struct LineEvent;

inline constexpr size_t kMaxLineBytes = 64 << 10;

// Incremental: AddText() (any chunks; then Flush()), AddStream() or
// AddLine(), then Report().
class NcclLogParser {
 public:
  void AddLine(std::string_view line);
  // Text in pieces of any size; a line split across pieces is joined.
  void AddText(std::string_view text);
  // The last line when the text did not end with a newline.
  void Flush();
  // Reads `in` to its end (AddText, then Flush).
  void AddStream(std::istream& in);
  // What was read so far; the senders' GPUs resolved to PCI addresses
  // (newer NCCL names them by device number in channel lines and by bus id
  // only in the "Init COMPLETE" lines, which come later).
  v1::NcclLogReport Report() const;

 private:
  void AddMessage(const std::string& host, uint32_t pid, std::string_view message, bool warn);
  // AddMessage's kinds of line: "NET/IB : Using" / "NET/Socket : Using"
  // device lists; a communicator's rank line (true when it was one).
  bool AddNetDevices(std::string_view message);
  bool AddRankLine(const std::string& host, uint32_t pid, std::string_view message);
  // One warning or error line, counted with the others of its shape.
  void AddEvent(struct LineEvent e, const std::string& host, uint32_t pid, std::string_view line);
  void AddChannel(const std::string& host, std::string_view from_gpu, bool send,
                  std::string_view via);
  // True the first time `key` is seen while its list (now `size` long) has
  // room; a full list sets `truncated`. Keeps every dedupe O(log n).
  bool First(const std::string& key, int size);
  // A device of NCCL's "Using" list not yet seen, or nullptr.
  v1::NcclNetDevice* AddDevice(const std::string& network, int index, const std::string& name);
  void AddUnique(google::protobuf::RepeatedPtrField<std::string>* list, const char* kind,
                 const std::string& value);
  v1::NcclLogReport report_;
  std::set<std::string> seen_;
  std::map<std::string, int> transport_index_;  // key -> index in transports
  std::string partial_;  // AddText: the line read so far
  bool skipping_ = false;  // AddText: the rest of an over-long line
  bool after_cr_ = false;  // AddText: the last piece ended in CR
  std::map<std::string, int> event_index_;  // event key -> index in events
  // Garbled host name -> the host it is a garbled copy of.
  std::map<std::string, std::string> GarbledHosts() const;
  std::map<std::string, int> host_lines_;  // host -> lines that named it
  // NCCL version (without "+cuda...") -> the hosts that printed it.
  std::map<std::string, std::set<std::string>> version_hosts_;
  std::map<std::string, int> version_more_hosts_;
  // host + "/" + pid -> (rank, nranks) of its largest communicator.
  std::map<std::string, std::pair<int, int>> process_rank_;
  // host + "/" + device number -> PCI address, from "Init COMPLETE" lines.
  std::map<std::string, std::string> device_bus_;
  NcclTestsParser tests_;
};

v1::NcclLogReport ParseNcclLog(std::string_view text);

// NCCL's int64 bus id ("101c0", "7000", "100000": domain << 20 | bus << 12
// | device << 4 | function, printed in hex) as a PCI address
// ("0000:10:1c.0"); "" when it is not hex.
std::string NcclBusIdToPci(std::string_view hex);

}  // namespace nodeprobe::nccl
