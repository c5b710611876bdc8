// File: finding_codes.cc
#include "probes/framework/finding_codes.h"

#include <algorithm>

#include "absl/strings/ascii.h"

namespace nodeprobe {
namespace {

// Levenshtein distance; no library in our dependencies offers one, and the
// table is small.
size_t EditDistance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diag = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

}  // namespace

const std::vector<FindingCode>& FindingCodes() {
  static const std::vector<FindingCode> kCodes = {
      // Running the checks
      {"PROBE_COULD_NOT_RUN", "a probe failed to run (reason in the message)"},
      {"PROBE_DEADLINE_EXCEEDED", "the stage deadline passed before the probe started"},
      {"TASK_TIMEOUT", "a task's worker passed its deadline and was killed"},
      {"TASK_FAILED", "a task's worker died or answered nothing"},
      {"UNKNOWN_TASK", "the agent does not know the task type"},
      {"AGENT_LOST", "a node's agent went away during a stage"},
      {"COORDINATOR_RESTARTED", "the coordinator restarted while the run was going"},
      {"COORDINATOR_LOST", "the coordinator stopped, or its stream broke, during the run: no node is at fault"},
      {"STORE_WRITE_FAILED", "the coordinator could not store the run completely (disk full, I/O error)"},
      {"PROFILE_INVALID", "the acceptance profile sent with a task does not parse"},
      {"SYSFS_VALUE_INVALID", "a sysfs/procfs value is unreadable or not what the kernel writes"},
      // Versions
      {"VERSION_MISMATCH", "a component's version differs from the profile's pin"},
      {"VERSION_NOT_CAPTURED", "a pinned component is not in the capture being judged"},
      // RDMA devices
      {"RDMA_PORT_DOWN", "an RDMA port is not ACTIVE"},
      {"RDMA_DRIVER_NOT_BOUND", "an RDMA-capable PCI function has no RDMA device (driver)"},
      {"RDMA_RATE_BELOW_EXPECTED", "an ACTIVE port's rate is below the profile's"},
      {"RDMA_LINK_LAYER_UNEXPECTED", "a port's link layer is not the profile's"},
      {"RDMA_COUNTERS_UNREADABLE", "a port's counters/ directory is missing or unreadable: its errors were not seen"},
      {"RDMA_ERROR_COUNTERS_NONZERO", "a port's error counters are non-zero"},
      {"RDMA_VERBS_QUERY_FAILED", "libibverbs could not query a port"},
      {"RDMA_LOOPBACK_FAILED", "a transfer through an ACTIVE port to itself failed"},
      {"IB_NO_SUBNET_MANAGER", "an InfiniBand port has no subnet manager"},
      {"ROCE_NO_V2_GID", "a RoCE port has no RoCE v2 GID with an address"},
      {"ROCE_GID_TYPE_UNKNOWN", "the kernel does not say a GID's RoCE type"},
      // PCIe and locality
      {"PCIE_LINK_SPEED_UNKNOWN", "a GPU, NIC or NVMe reports its current PCIe link speed as Unknown: no trained link"},
      {"PCIE_LINK_WIDTH_DEGRADED", "a PCIe link trained narrower than it can"},
      {"PCIE_LINK_SPEED_DEGRADED", "a PCIe link trained slower than it can"},
      {"GPU_NIC_NOT_LOCAL", "a GPU's nearest NIC is not under its PCIe switch"},
      {"GPU_NIC_NUMA_MISMATCH", "a GPU and its nearest NIC are on different NUMA nodes"},
      {"NIC_SHARED_BY_GPUS", "several GPUs share one nearest NIC"},
      {"NO_RDMA_NIC_FOR_GPU", "a GPU has no RDMA NIC at all"},
      {"NCCL_TOPO_FILE_MISMATCH", "NCCL_TOPO_FILE pairs GPUs and NICs unlike this node"},
      {"PCIE_VM_LINK_ARTIFACT", "an emulated bridge's link speed/width (virtual machine), not a fault"},
      {"GPU_INDEX_MISMATCH", "a GPU's NVML index in the topology is not its PCI-order index"},
      // GPUs (NVML)
      {"GPU_UNREADABLE", "NVML cannot open a GPU (e.g. fallen off the bus)"},
      {"GPU_ROW_REMAP_FAILED", "a GPU ran out of spare memory rows"},
      {"GPU_REMAP_PENDING", "a row remapping or page retirement waits for a GPU reset"},
      {"GPU_ECC_UNCORRECTED", "a GPU has uncorrected ECC errors"},
      {"GPU_ECC_DISABLED", "a GPU supports ECC but runs without it"},
      {"GPU_THROTTLED", "a GPU's clocks are held down by a thermal or power fault"},
      {"GPU_NVLINK_DOWN", "NVLink links of a GPU are down"},
      {"GPU_BUSY", "compute processes run on a GPU"},
      {"GPU_PCIE_BW_BELOW_EXPECTED", "host<->GPU copies are slower than the GPU's PCIe link"},
      {"GPU_COPY_FAILED", "a host<->GPU copy could not be measured"},
      // NCCL (what its debug log shows it did)
      {"NCCL_FELL_BACK_TO_SOCKETS", "NCCL carried inter-node traffic over sockets"},
      {"NCCL_GDR_OFF", "NCCL's inter-node RDMA connections ran without GPUDirect RDMA"},
      {"NCCL_HCA_MISMATCH", "NCCL sent a GPU's traffic over a NIC that is not its rail"},
      {"NCCL_LOG_EMPTY", "the log holds no NCCL debug output to judge"},
      {"NCCL_MEMORY_REGISTRATION_FAILED", "a job's NCCL could not register memory with the network"},
      {"NCCL_SHM_FAILED", "a job's NCCL could not create its shared-memory segments (/dev/shm)"},
      {"NCCL_TRANSPORT_FAILED", "a job's NCCL network transport failed to connect or to move data"},
      {"NCCL_JOB_TIMEOUT", "a collective of a job timed out (PyTorch's watchdog or NCCL's own)"},
      {"NCCL_JOB_ERROR", "NCCL or CUDA reported an error in a job (nccl*Error, an abort)"},
      {"NCCL_JOB_KILLED", "a job was killed or cancelled by its launcher"},
      {"NCCL_LOG_WARNINGS", "a job's NCCL printed WARN lines of no known class"},
      {"NCCL_TESTS_FIGURE_INVALID", "an nccl-tests table printed a figure that is not a measurement (NaN, negative) or no average"},
      {"NCCL_VERSIONS_DIFFER", "ranks of one job printed different NCCL versions"},
      {"BAR_NOT_APPLIED", "a profile bar could not be applied to the input (unnamed table, no such collective, no valid size)"},
      {"NCCL_WRONG_RESULT", "a collective computed wrong results"},
      {"NCCL_BUSBW_BELOW_EXPECTED", "a collective's bus bandwidth is below the profile's bar"},
      {"CABLING_RAIL_MISMATCH",
       "a port is cabled (LLDP) to a switch the profile's rail plan (cabling.expect) does not "
       "expect"},
      {"CABLING_NO_NEIGHBOR", "the rail plan names an interface on which lldpd heard no LLDP"},
      {"CABLING_NO_LLDPD", "the profile has a rail plan but the node's lldpd cannot be read"},
      {"NODE_BUSY",
       "an intrusive probe or stage was not run: GPU compute processes or a Slurm job are on "
       "the node (--force runs it anyway)"},
      {"NCCL_BUSBW_BELOW_PEERS",
       "a node's own collectives move less than nccl.min_fraction_of_peers of the median of "
       "the other nodes' in the run"},
      {"NCCL_BUSBW_BELOW_HARDWARE",
       "with no profile bar, a collective's bus bandwidth is below the profile's share "
       "(nccl.hardware_min_fraction) of what NVLink, PCIe or the rails carry"},
      {"NCCL_TIMEOUT", "ranks of a collective did not finish by its deadline, or were lost"},
      {"NCCL_ASYNC_ERROR", "NCCL reported an asynchronous error and the rank aborted"},
      {"NCCL_INIT_FAILED", "a rank could not create or join the NCCL communicator"},
      {"NCCL_STOPPED", "a rank was stopped because another rank of the run failed"},
      {"NCCL_NOT_RUN", "no collective across the nodes: some node ran no local NCCL"},
      // GPUDirect RDMA
      {"GDR_NOT_AVAILABLE", "neither dma-buf nor nvidia_peermem can register GPU memory"},
      {"ACS_ENABLED_ON_GPU_NIC_PATH", "ACS redirects peer-to-peer traffic between GPU and NIC"},
      {"GDR_STATE_NOT_CAPTURED", "the capture lacks what says whether GPUDirect RDMA is possible "
                                 "(sys/module, proc/): not judged"},
      {"ACS_STATE_UNKNOWN", "the ACS control of a bridge could not be read"},
      {"IOMMU_TRANSLATION_ENABLED", "the IOMMU translates DMA (costs GPUDirect bandwidth)"},
      // MTU
      {"MTU_CHAIN_MISMATCH", "MTUs differ along an interface chain"},
      {"MTU_INTERFACE_MISSING", "an interface the profile names does not exist"},
      {"MTU_BELOW_EXPECTED", "an interface's MTU is below the profile's"},
      {"ROCE_MTU_EXCEEDS_NETDEV", "the RoCE active MTU does not fit the netdev's MTU"},
      {"MTU_PATH_SMALLER_THAN_IFACE", "the path carries less than the interface sends"},
      {"MTU_PATH_BLACKHOLE", "larger packets vanish on the path without ICMP"},
      {"MTU_PATH_UNREACHABLE", "the path-MTU responder could not be reached"},
      {"MTU_PEERS_DIFFER", "the two ends' interface MTUs differ"},
      {"RDMA_MTU_MISMATCH", "the two RDMA ports' active MTUs differ"},
      {"MTU_PROBE_FAILED", "the path-MTU probe could not run"},
      {"MTU_PROBE_TIMEOUT", "the path-MTU probe passed its deadline"},
      // Transfers
      {"TRANSFER_CONNECT_FAILED", "the client could not reach the transfer server"},
      {"TRANSFER_PEER_LOST", "the peer went away during a transfer"},
      {"TRANSFER_TIMEOUT", "nothing moved within the idle deadline"},
      {"TRANSFER_REFUSED", "the server would not run the request"},
      {"TRANSFER_NO_RDMA_DEVICE", "no RDMA device routes to the peer"},
      {"TRANSFER_SERVE_FAILED", "the transfer server could not start"},
      {"TRANSFER_BELOW_EXPECTED", "a transfer missed the profile's or the hardware's bar"},
      {"TRANSFER_BELOW_PEERS", "a transfer is below the run's best pair of its kind"},
      {"MEASUREMENT_TOO_NOISY", "a run's measurements of a kind scatter more than transfer.max_spread: small gaps were not judged"},
      {"TRANSFER_ASYMMETRIC", "one direction of a rail is far below the other"},
      {"LATENCY_ABOVE_EXPECTED", "a latency is above the profile's bar"},
      {"RDMA_ERROR_COUNTERS_GREW", "a port's error counters grew during a transfer"},
      {"RDMA_CONGESTION_SIGNALS", "pauses, CNPs or ECN marks during a transfer above the profile's rate"},
      {"NETDEV_ERRORS_GREW", "an interface's error counters grew during a transfer"},
      {"NETDEV_PAUSE_FRAMES", "flow-control pauses during a transfer above the profile's rate"},
      {"RUN_CANCELLED", "the run was cancelled by an operator; what was measured before is kept"},
      {"CLOCK_READ_SLOW", "a clock read costs more than 250 ns (a clocksource the vDSO cannot read): latency figures include it"},
      {"NOTHING_MEASURED", "a run or pair produced no measurement (everything skipped)"},
      // Cluster stage (coordinator/blame.h)
      {"SUSPECT_NODE", "a node measured low with most of its partners (FAIL when its retest confirms it)"},
      {"SUSPECT_RAIL", "one rail of a node measured low with most partners, its other rails fine"},
      {"SUSPECT_LINK", "one pair measured low while both ends were fine with others"},
      {"CLUSTER_INCOMPLETE", "the stage deadline passed before every round ran"},
      // Congestion stage (coordinator/congestion_stage.h)
      {"CONGESTION_AGGREGATE_BELOW_EXPECTED", "a receiver's sum of flows under incast/all-to-all is below its bar"},
      {"CONGESTION_UNFAIR", "flows into one receiver shared it unevenly (Jain's index below the profile's)"},
      {"CONGESTION_LATENCY", "p99 latency into a receiver blew up under load"},
      // Failure stage (coordinator/failure_stage.h)
      {"FAILURE_REFUSED", "the agent would not or could not take its link down (no --allow-disruptive)"},
      {"FAILURE_NOT_RESTORED", "a link taken down by the failure stage stayed down"},
      {"FAILURE_NOT_RECOVERED", "no good transfer soon enough after the link came back"},
      {"FAILURE_HUNG", "a transfer neither finished nor failed when its link went away"},
  };
  return kCodes;
}

bool IsKnownFindingCode(std::string_view code) {
  for (const FindingCode& c : FindingCodes()) {
    if (code == c.code) return true;
  }
  return false;
}

std::string ClosestFindingCode(std::string_view typed) {
  const std::string code = absl::AsciiStrToUpper(std::string(typed));  // codes are upper case
  const FindingCode* best = nullptr;
  size_t best_d = ~size_t{0};
  for (const FindingCode& c : FindingCodes()) {
    size_t d = EditDistance(code, c.code);
    if (d < best_d) {
      best_d = d;
      best = &c;
    }
  }
  return best ? best->code : "";
}

}  // namespace nodeprobe
