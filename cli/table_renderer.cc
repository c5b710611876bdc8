#include "cli/table_renderer.h"

#include <algorithm>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "cli/safe_text.h"
#include "probes/framework/coverage.h"
#include "probes/framework/result_util.h"

namespace nodeprobe::cli {
namespace {

std::string Colored(v1::Verdict v, bool color) {
  std::string name(VerdictName(v));
  if (!color) return name;
  const char* code = "";
  switch (v) {
    case v1::PASS: code = "32"; break;
    case v1::WARN: code = "33"; break;
    case v1::FAIL: code = "31;1"; break;
    case v1::ERROR: code = "35"; break;
    default: code = "2"; break;
  }
  return absl::StrCat("\033[", code, "m", name, "\033[0m");
}

// Pads to `width` characters (at least one space).
std::string Pad(const std::string& text, size_t width) {
  return text + std::string(width > text.size() ? width - text.size() : 1, ' ');
}

// Left-aligned columns sized to their widest cell.
std::string Table(const std::vector<std::vector<std::string>>& rows,
                  const std::string& indent) {
  std::vector<size_t> widths;
  for (const auto& row : rows) {
    widths.resize(std::max(widths.size(), row.size()));
    for (size_t i = 0; i < row.size(); ++i) {
      widths[i] = std::max(widths[i], row[i].size());
    }
  }
  std::string out;
  for (const auto& row : rows) {
    std::string line = indent;
    for (size_t i = 0; i < row.size(); ++i) {
      line += i + 1 == row.size() ? row[i] : Pad(row[i], widths[i] + 2);
    }
    absl::StrAppend(&out, line, "\n");
  }
  return out;
}

std::string Summary(const v1::ProbeResult& r) {
  if (!r.reason().empty()) return r.reason();
  if (r.has_inventory()) {
    int present = 0;
    for (const auto& c : r.inventory().components()) present += c.present();
    return absl::StrCat(r.inventory().components_size(), " components, ",
                        present, " present");
  }
  if (r.has_rdma_devices()) {
    int ports = 0;
    for (const auto& d : r.rdma_devices().devices()) ports += d.ports_size();
    return absl::StrCat(r.rdma_devices().devices_size(), " devices, ", ports,
                        " ports, ", r.findings_size(), " findings");
  }
  if (r.has_storage()) {
    return absl::StrCat(r.storage().paths_size(), " paths, ", r.findings_size(), " findings");
  }
  if (r.has_topology()) {
    return absl::StrCat(r.topology().gpus_size(), " GPUs, ",
                        r.topology().nics_size(), " NICs, ",
                        r.findings_size(), " findings");
  }
  return absl::StrCat(r.findings_size(), " findings");
}

std::string RenderInventory(const v1::Inventory& inv) {
  std::vector<std::vector<std::string>> rows = {
      {"COMPONENT", "DEVICE", "VERSION", "DETAIL"}};
  for (const v1::Component& c : inv.components()) {
    rows.push_back({c.name(), c.device().empty() ? "-" : c.device(),
                    c.present() ? (c.version().empty() ? "?" : c.version())
                                : "absent",
                    c.detail()});
  }
  return Table(rows, "  ");
}

std::string RenderRdma(const v1::RdmaDevices& rdma) {
  std::vector<std::vector<std::string>> rows = {
      {"PORT", "STATE", "PHYS", "LINK", "RATE", "MTU", "ROCEv2 GIDS"}};
  for (const v1::RdmaDevice& d : rdma.devices()) {
    for (const v1::RdmaPort& p : d.ports()) {
      std::vector<std::string> v2;
      for (const v1::GidEntry& g : p.gids()) {
        if (g.type() == "RoCE v2") {
          v2.push_back(absl::StrCat(g.index(), ":", g.family()));
        }
      }
      rows.push_back(
          {absl::StrCat(d.name(), ":", p.port()), p.state(), p.phys_state(),
           p.link_layer(), p.rate().empty() ? "?" : p.rate(),
           p.active_mtu() ? absl::StrCat(p.active_mtu()) : "-",
           p.link_layer() == "Ethernet"
               ? (v2.empty() ? "none" : absl::StrJoin(v2, " "))
               : "n/a"});
    }
  }
  return Table(rows, "  ");
}

// The storage probe's figures per path; the metadata column is the worst
// operation's p99.
std::string RenderStorage(const v1::StorageReport& storage) {
  std::vector<std::vector<std::string>> rows = {
      {"PATH", "FS", "WRITE Gb/s", "CHECKPOINT s", "READ Gb/s", "RANDOM Gb/s", "META p99 ms"}};
  std::string notes;
  for (const v1::StoragePath& p : storage.paths()) {
    if (!p.error().empty()) {
      rows.push_back(
          {p.path(), p.filesystem().empty() ? "?" : p.filesystem(), "-", "-", "-", "-", "-"});
      continue;
    }
    double meta = 0;
    for (const v1::StorageMetadataOp& m : p.metadata()) meta = std::max(meta, m.p99_ms());
    rows.push_back({p.path(), p.filesystem(), absl::StrFormat("%.2f", p.write_gbps()),
                    absl::StrFormat("%.2f", p.checkpoint_s()),
                    absl::StrFormat("%.2f", p.read_seq_gbps()),
                    absl::StrFormat("%.2f", p.read_random_gbps()),
                    p.metadata_size() ? absl::StrFormat("%.2f", meta) : "-"});
    absl::StrAppend(&notes, "    ", p.path(), ": ", p.writers(), " writers x ",
                    p.shard_bytes() >> 20, " MiB, ", p.io_mode(), "; ", p.cache(), "\n");
    absl::StrAppend(&notes, "    ", p.path(), ": GPUDirect Storage ",
                    p.gds_read_gbps() > 0 ? absl::StrFormat("%.2f Gb/s, ", p.gds_read_gbps()) : "",
                    p.gds(), "\n");
  }
  return absl::StrCat(Table(rows, "  "), notes);
}

// Like `nvidia-smi topo -m`: GPUs down, NICs across, then affinity.
std::string RenderTopology(const v1::Topology& topo) {
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> header = {""};
  for (const v1::TopologyDevice& n : topo.nics()) header.push_back(n.label());
  header.push_back("CPU Affinity");
  header.push_back("NUMA");
  header.push_back("Rail");
  rows.push_back(header);
  for (int i = 0; i < topo.gpus_size(); ++i) {
    const v1::TopologyDevice& g = topo.gpus(i);
    std::vector<std::string> row = {g.label()};
    for (const std::string& p : topo.matrix(i).paths()) row.push_back(p);
    row.push_back(g.cpuset().empty() ? "-" : g.cpuset());
    row.push_back(g.numa_node() < 0 ? "N/A" : absl::StrCat(g.numa_node()));
    std::string rail = "none";
    for (const v1::GpuRail& r : topo.rails()) {
      if (r.gpu() != g.label()) continue;
      rail = absl::StrCat(absl::StrJoin(r.nics(), ","), " ", r.path(),
                          r.gdr_by_default() ? " GDR" : "");
    }
    row.push_back(rail);
    rows.push_back(row);
  }
  std::string out = Table(rows, "  ");
  // The legends as nvidia-smi prints them: GPUs by bus id (NVML order),
  // NICs by RDMA device.
  absl::StrAppend(&out, "\n  GPU Legend:\n");
  for (const v1::TopologyDevice& g : topo.gpus()) {
    absl::StrAppend(&out, "    ", g.label(), ": ", g.pci_address(), " ", g.model(), "\n");
  }
  absl::StrAppend(&out, "\n  NIC Legend:\n");
  for (const v1::TopologyDevice& n : topo.nics()) {
    std::vector<std::string> names(n.rdma_devices().begin(), n.rdma_devices().end());
    names.insert(names.end(), n.netdevs().begin(), n.netdevs().end());
    absl::StrAppend(&out, "    ", n.label(), ": ", absl::StrJoin(names, " "), " ",
                    n.pci_address(), " NUMA ",
                    n.numa_node() < 0 ? "N/A" : absl::StrCat(n.numa_node()), "\n");
  }
  absl::StrAppend(&out,
                  "  Legend: PIX = at most one PCIe switch; PXB = several "
                  "switches; PHB = through a host bridge;\n"
                  "          NODE = across host bridges in a NUMA node; SYS = "
                  "across NUMA nodes; GDR = NCCL uses GPUDirect RDMA by default\n");
  return out;
}

}  // namespace

std::string RenderStageTable(const v1::StageReport& report, bool color) {
  std::string out = absl::StrCat(
      "nodeprobe ", StageName(report.stage()), " on ", report.node(),
      ": ", Colored(report.verdict(), color), " — ", CoverageLine(CoverageOf(report)), "\n\n");
  std::vector<std::vector<std::string>> rows = {{"PROBE", "VERDICT", "SUMMARY"}};
  for (const v1::ProbeResult& r : report.results()) {
    rows.push_back({r.probe(), std::string(VerdictName(r.verdict())), Summary(r)});
  }
  absl::StrAppend(&out, Table(rows, ""));

  for (const v1::ProbeResult& r : report.results()) {
    std::string body;
    if (r.has_inventory()) absl::StrAppend(&body, RenderInventory(r.inventory()));
    if (r.has_topology() && r.topology().gpus_size() > 0) {
      absl::StrAppend(&body, RenderTopology(r.topology()));
    }
    if (r.has_rdma_devices() && r.rdma_devices().devices_size() > 0) {
      absl::StrAppend(&body, RenderRdma(r.rdma_devices()));
    }
    if (r.has_storage()) absl::StrAppend(&body, RenderStorage(r.storage()));
    for (const v1::Finding& f : r.findings()) {
      const std::string severity =
          f.severity() == v1::PASS ? "INFO" : Colored(f.severity(), color);
      absl::StrAppend(&body, "  ", severity, " ", f.code(),
                      f.device().empty() ? "" : absl::StrCat(" [", EscapeControls(f.device()), "]"),
                      ": ", EscapeControls(f.message()), "\n");
      if (const std::string note = ExceptionNote(f); !note.empty()) {
        absl::StrAppend(&body, "       ", EscapeControls(note), "\n");
      }
      if (!f.remediation().empty()) {
        absl::StrAppend(&body, "       fix: ", f.remediation(), "\n");
      }
    }
    if (body.empty()) continue;
    absl::StrAppend(&out, "\n", r.probe(), " (", Colored(r.verdict(), color),
                    ")\n", body);
  }
  return TerminalSafe(out);
}

std::string RenderFindings(const v1::ProbeResult& r) {
  std::string out;
  for (const v1::Finding& f : r.findings()) {
    absl::StrAppend(&out, " ", VerdictName(f.severity()), " ", f.code(), ": ",
                    EscapeControls(f.message()), "\n   fix: ", f.remediation(), "\n");
  }
  return out;
}

std::string RenderVerdictAndFindings(const v1::ProbeResult& r) {
  return absl::StrCat(" verdict ", VerdictName(r.verdict()), r.reason().empty() ? "" : ": ",
                      r.reason(), "\n", RenderFindings(r));
}

}  // namespace nodeprobe::cli
