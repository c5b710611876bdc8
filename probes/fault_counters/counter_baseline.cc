#include "probes/fault_counters/counter_baseline.h"

#include <google/protobuf/util/json_util.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "probes/fault_counters/fault_counters_findings.h"
#include "probes/framework/result_util.h"

namespace nodeprobe::counters {
namespace {

constexpr char kSweepStateDir[] = "/var/lib/nodeprobe-sweep";
constexpr size_t kMaxBaselineBytes = 16 << 20;  // thousands of devices fit in far less

std::string Key(const std::string& bus, uint32_t link) { return absl::StrCat(bus, " link ", link); }

std::map<std::string, v1::NvLinkErrors> Links(const v1::CounterBaseline& b) {
  std::map<std::string, v1::NvLinkErrors> out;
  for (const v1::CounterBaseline::Gpu& g : b.gpus()) {
    for (const v1::NvLinkErrors& l : g.links()) out[Key(g.bus_id(), l.link())] = l;
  }
  return out;
}

}  // namespace

std::string StateDir() {
  for (const char* var : {"NODEPROBE_STATE_DIR", "STATE_DIRECTORY"}) {
    const char* v = getenv(var);
    if (v != nullptr && *v != '\0') {
      const std::string dirs(v);  // systemd lists several with ':'
      return dirs.substr(0, dirs.find(':'));
    }
  }
  return access(kSweepStateDir, W_OK) == 0 ? kSweepStateDir : "";
}

v1::CounterBaseline MakeBaseline(absl::Time taken, const std::string& boot_id,
                                 const kernel::AerSnapshot& aer, const kernel::PortSnapshot& ports,
                                 const v1::GpuReport* gpus) {
  v1::CounterBaseline b;
  *b.mutable_taken() = StampOf(taken);
  b.set_boot_id(boot_id);
  for (const auto& [device, t] : aer) {
    v1::CounterBaseline::Aer* a = b.add_aer();
    a->set_device(device);
    a->set_corrected(t.corrected);
    a->set_nonfatal(t.nonfatal);
    a->set_fatal(t.fatal);
    for (const auto& [bit, n] : t.bits) (*a->mutable_bits())[bit] = n;
  }
  for (const auto& [port, values] : ports) {
    v1::CounterBaseline::Port* p = b.add_ports();
    p->set_port(port);
    for (const auto& [name, n] : values) (*p->mutable_counters())[name] = n;
  }
  if (gpus != nullptr) {
    for (const v1::GpuInfo& g : gpus->gpus()) {
      if (g.nvlink_errors().empty()) continue;
      v1::CounterBaseline::Gpu* out = b.add_gpus();
      out->set_bus_id(g.bus_id());
      *out->mutable_links() = g.nvlink_errors();
    }
  }
  return b;
}

kernel::AerSnapshot AerOf(const v1::CounterBaseline& b) {
  kernel::AerSnapshot out;
  for (const v1::CounterBaseline::Aer& a : b.aer()) {
    kernel::AerTotals& t = out[a.device()];
    t.corrected = a.corrected();
    t.nonfatal = a.nonfatal();
    t.fatal = a.fatal();
    t.bits = std::map<std::string, uint64_t>(a.bits().begin(), a.bits().end());
  }
  return out;
}

kernel::PortSnapshot PortsOf(const v1::CounterBaseline& b) {
  kernel::PortSnapshot out;
  for (const v1::CounterBaseline::Port& p : b.ports()) {
    out[p.port()] = std::map<std::string, uint64_t>(p.counters().begin(), p.counters().end());
  }
  return out;
}

absl::StatusOr<v1::CounterBaseline> LoadBaseline(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat("no baseline at ", path));
  std::string text(kMaxBaselineBytes + 1, '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  text.resize(static_cast<size_t>(in.gcount()));
  if (text.size() > kMaxBaselineBytes) {
    return absl::DataLossError(absl::StrCat(path, " is larger than any baseline: ignored"));
  }
  v1::CounterBaseline b;
  if (!google::protobuf::util::JsonStringToMessage(text, &b).ok() || !b.has_taken()) {
    return absl::DataLossError(absl::StrCat(path, " is not a counter baseline: ignored"));
  }
  return b;
}

absl::Status SaveBaseline(const std::string& path, const v1::CounterBaseline& b) {
  std::string json;
  if (!google::protobuf::util::MessageToJsonString(b, &json).ok()) {
    return absl::InternalError("the baseline does not serialize");
  }
  const std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out << json;
    out.flush();
    if (!out) return absl::UnavailableError(absl::StrCat("cannot write ", tmp));
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::remove(tmp.c_str());
    return absl::UnavailableError(absl::StrCat("cannot replace ", path));
  }
  return absl::OkStatus();
}

void JudgeNvlinkGrowth(const v1::CounterBaseline& before, const v1::CounterBaseline& after,
                       absl::Duration elapsed, const FaultRules& rules, v1::ProbeResult* r) {
  const double hours = std::max(absl::ToDoubleHours(elapsed), 1.0 / 3600);
  const std::map<std::string, v1::NvLinkErrors> was = Links(before);
  for (const auto& [key, now] : Links(after)) {
    auto it = was.find(key);
    if (it == was.end()) continue;
    const v1::NvLinkErrors& b = it->second;
    // A counter that went back was cleared (a driver reload): a new baseline.
    if (now.replay() < b.replay() || now.recovery() < b.recovery() ||
        now.crc_flit() < b.crc_flit() || now.crc_data() < b.crc_data()) {
      continue;
    }
    const uint64_t errors = (now.replay() - b.replay()) + (now.crc_flit() - b.crc_flit()) +
                            (now.crc_data() - b.crc_data());
    const uint64_t recovered = now.recovery() - b.recovery();
    if (errors == 0 && recovered == 0) continue;
    const double per_hour = static_cast<double>(errors) / hours;
    AddMeasurement(r, "nvlink_errors_grew", static_cast<double>(errors), "count",
                   {{"link", key}, {"recovery", absl::StrCat(recovered)}});
    if (recovered == 0 && per_hour <= rules.nvlink_errors_max_per_hour) continue;
    AddFinding(r, findings::kGpuNvlinkErrors.code, key,
               absl::StrFormat("GPU %s: +%d replay, +%d CRC flit, +%d CRC data, +%d recovery "
                               "over %.1f h (%.3g errors per hour; "
                               "faults.nvlink_errors_max_per_hour is %g)",
                               key, now.replay() - b.replay(), now.crc_flit() - b.crc_flit(),
                               now.crc_data() - b.crc_data(), recovered, hours, per_hour,
                               rules.nvlink_errors_max_per_hour));
  }
}

}  // namespace nodeprobe::counters
