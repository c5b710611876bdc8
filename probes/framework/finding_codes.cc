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
      {"PROBE_COULD_NOT_RUN", v1::ERROR, "stage runner",
       "a probe failed to run (reason in the message)",
       "fix the cause named in the message and rerun the probe"},
      {"PROBE_DEADLINE_EXCEEDED", v1::ERROR, "stage runner",
       "the stage deadline passed before the probe started",
       "raise the stage's --timeout, or run fewer probes (--probe NAME, repeatable)"},
      {"TASK_TIMEOUT", v1::ERROR, "agent", "a task's worker passed its deadline and was killed",
       "check the node and the rail the task used; raise the stage's --timeout (nccl.op_timeout_s"
       " for collectives)"},
      {"TASK_FAILED", v1::ERROR, "agent", "a task's worker died or answered nothing",
       "fix the cause in the message; a worker that died: check the node (memory, process limits,"
       " dmesg) and run the same work by hand (`nodeprobe <probe>`)"},
      {"UNKNOWN_TASK", v1::ERROR, "agent", "the agent does not know the task type",
       "upgrade nodeprobe on this node to the coordinator's version"},
      {"AGENT_LOST", v1::ERROR, "coordinator", "a node's agent went away during a stage",
       "check the node and its agent (systemctl status nodeprobe-agent), then run the stage again"},
      {"COORDINATOR_RESTARTED", v1::ERROR, "coordinator",
       "the coordinator restarted while the run was going", "run the stage again"},
      {"COORDINATOR_LOST", v1::ERROR, "coordinator",
       "the coordinator stopped, or its stream broke, during the run: no node is at fault",
       "start the coordinator again, then run the stage again (a cluster run: `nodeprobe run "
       "--stage cluster --resume RUN_ID`)"},
      {"STORE_WRITE_FAILED", v1::ERROR, "coordinator",
       "the coordinator could not store the run completely (disk full, I/O error)",
       "free space on the coordinator's --db filesystem (or fix its I/O errors), then `nodeprobe "
       "run --stage cluster --resume RUN_ID` (cluster runs) or run the stage again"},
      {"RUN_CANCELLED", v1::ERROR, "coordinator",
       "the run was cancelled by an operator; what was measured before is kept",
       "run the stage again"},
      {"PROFILE_INVALID", v1::ERROR, "agent",
       "the acceptance profile sent with a task does not parse",
       "fix the profile given to `nodeprobe run --profile` or `coordinator --profile` "
       "(`nodeprobe profile --check FILE`)"},
      {"SYSFS_VALUE_INVALID", v1::ERROR, "pcie, rdma-devices",
       "a sysfs/procfs value is unreadable or not what the kernel writes",
       "check that nodeprobe may read sysfs and that the driver is loaded; a value the kernel "
       "should not write (a link above its maximum, a garbled identity): check the device in "
       "lspci -vv and dmesg, or the capture"},
      // Versions
      {"VERSION_MISMATCH", v1::FAIL, "inventory",
       "a component's version differs from the profile's pin",
       "install the pinned version named in the message, or update the profile's versions: pin"},
      {"VERSION_NOT_CAPTURED", v1::PASS, "inventory",
       "a pinned component is not in the capture being judged",
       "capture the node with its /etc, /proc and library versions"},
      // Host settings (probe host-config, the profile's host: section)
      {"HOST_SETTING_MISMATCH", v1::FAIL, "host-config",
       "a host setting differs from what the profile's host: section expects",
       "set it as the message says (the kernel command line for the IOMMU mode, sysctl for "
       "NUMA balancing and the rails' ARP/rp_filter, cpupower for the governor) and persist "
       "it, or change the profile"},
      {"HOST_SETTING_NOT_READABLE", v1::ERROR, "host-config",
       "a setting the profile's host: section judges could not be read",
       "run on the live host (or capture its /proc and /sys), with the permission to read "
       "them; a VM without cpufreq has no governor to judge: drop host.cpu_governor there"},
      // Kernel log events (`nodeprobe kernel-log`, probes/kernel_events)
      {"GPU_XID", kVaries, "kernel-log", "the NVIDIA driver logged an Xid for a GPU",
       "follow the action the message names (NVIDIA's Xid catalog): restart the application "
       "for its own faults; reset the GPU (nvidia-smi -r) or reboot and drain for hardware "
       "ones, and open a support case when it repeats",
       "the Xid table's severity (probes/kernel_events/xid_catalog.cc): FAIL for hardware "
       "and driver state (ECC DBE, row-remap failure, NVLink, GSP, off the bus), WARN for "
       "application faults"},
      {"GPU_FELL_OFF_BUS", v1::FAIL, "kernel-log", "a GPU left the PCIe bus",
       "drain the node; reseat or replace the GPU or riser, check its power and the PCIe slot "
       "(AER lines around it), then reboot"},
      {"GPU_RESET_REQUIRED", v1::FAIL, "kernel-log",
       "a GPU is in a state that lasts until it is reset",
       "drain the node's jobs, reset the GPU (nvidia-smi -r -i N) or reboot, then rerun the "
       "single-node stage"},
      {"NVSWITCH_SXID", kVaries, "kernel-log", "an NVSwitch logged an SXid",
       "look the SXid up in NVIDIA's catalog; fatal ones need the fabric manager restarted "
       "and the node's GPUs reset",
       "FAIL for a Fatal SXid, WARN otherwise"},
      {"NIC_MODULE_EVENT", v1::WARN, "kernel-log",
       "a NIC's transceiver module reported trouble (unplugged, power budget exceeded, an "
       "unrecognized or bad cable, high temperature)",
       "check the cable and transceiver the message names (seated, supported, within the "
       "port's power class), then `mlxlink -d DEV -m` for the module's state"},
      {"PCIE_AER_UNCORRECTED", v1::FAIL, "kernel-log",
       "a PCIe device reported an uncorrected (non-fatal or fatal) error",
       "drain the node; the device or its slot/riser/cable is failing: reseat, then replace; "
       "check `lspci -vvv` for the link and the AER status"},
      {"PCIE_AER_CORRECTED", v1::WARN, "kernel-log",
       "a PCIe link corrected errors (RxErr, BadTLP, BadDLLP, replay timeouts)",
       "a marginal link: reseat the device or riser, check the link's width and speed "
       "(`nodeprobe run --probe pcie`); a growing count precedes downtraining"},
      {"RDMA_LINK_FLAPPED", v1::WARN, "kernel-log", "a NIC's link went down",
       "check the cable/optics and the switch port's error counters; a link that flaps "
       "stalls every collective using that rail"},
      // RoCE congestion configuration (probe roce-config, the profile's roce:)
      {"ROCE_RDMA_PRIORITY_NOT_LOSSLESS", v1::FAIL, "roce-config",
       "the design is lossless but PFC is off on the priority RDMA traffic rides",
       "enable PFC on that priority only (`dcb pfc set dev IF prio-pfc P:on`, or mlnx_qos "
       "--pfc) on every RoCE netdev, and on the switch ports, or correct roce.rdma_priority"},
      {"ROCE_PFC_SCOPE_TOO_WIDE", v1::WARN, "roce-config",
       "PFC is on for a priority the design does not make lossless",
       "turn PFC off on the priorities the message names: PFC belongs to the RDMA class only, "
       "elsewhere a pause spreads head-of-line blocking"},
      {"ROCE_ECN_DISABLED", v1::FAIL, "roce-config",
       "ECN is designed but off on the RDMA priority for a role",
       "echo 1 > /sys/class/net/IF/ecn/roce_np/enable/P and roce_rp/enable/P (or the NIC "
       "tool's equivalent), persisted by the NIC configuration service"},
      {"ROCE_TRUST_MISMATCH", v1::FAIL, "roce-config",
       "the NIC classifies by DSCP where the design says PCP, or the other way",
       "set the trust mode as designed (`dcb app` DSCP entries, or mlnx_qos --trust), or "
       "correct roce.trust"},
      {"ROCE_TOS_MISMATCH", v1::FAIL, "roce-config",
       "rdma_cm's default RoCE ToS or the device's traffic class is not the designed ToS",
       "cma_roce_tos -d DEV -t TOS (and the tc/N/traffic_class override, where set) as "
       "roce.tos says, persisted at boot; or correct roce.tos"},
      {"ROCE_PAUSE_STORM", kVaries, "roce-config",
       "the NIC's pause-storm watchdog fired: a receiver paused the link without end",
       "find the stuck receiver (a hung host or PCIe back-pressure) on the port the message "
       "names; check the switch's PFC watchdog and the NIC's rx discards",
       "FAIL when it fired during nodeprobe's own traffic, WARN when only since the driver "
       "loaded"},
      {"ROCE_CONFIG_NOT_READABLE", v1::ERROR, "roce-config",
       "a RoCE setting the profile's roce: section judges could not be read",
       "run on the live host as root (rdma_cm's configfs group needs it), with the NIC's "
       "driver exposing dcbnl and ECN sysfs; or drop the key the message names"},
      // RDMA devices
      {"RDMA_PORT_DOWN", kVaries, "rdma-devices", "an RDMA port is not ACTIVE",
       "check the cable and the switch port, then `ibstat`/`rdma link`; a Disabled port needs "
       "enabling on the switch or with `ibportstate`",
       "FAIL for a compute rail's port (a GPU's nearest RDMA NIC; every physical port on a node "
       "without GPUs); WARN for the rest (front-end, storage, an unused port)"},
      {"RDMA_DRIVER_NOT_BOUND", kVaries, "rdma-devices",
       "an RDMA-capable PCI function has no RDMA device (driver)",
       "load the NIC's RDMA driver (modprobe, the driver named in the message), then check `rdma "
       "link` and dmesg for probe errors",
       "FAIL when the profile expects RDMA on the node (rdma.expected_rate_gbps or "
       "expected_link_layer), else WARN"},
      {"RDMA_RATE_BELOW_EXPECTED", v1::FAIL, "rdma-devices",
       "an ACTIVE port's rate is below the profile's",
       "check the cable and transceiver type, the switch port's speed setting, and the link width"
       " (a 4X link trained at 1X or 2X)"},
      {"RDMA_LINK_LAYER_UNEXPECTED", v1::FAIL, "rdma-devices",
       "a port's link layer is not the profile's",
       "set the port type (mlxconfig LINK_TYPE_P1/P2) to match the fabric, or fix the profile"},
      {"RDMA_COUNTERS_UNREADABLE", v1::ERROR, "rdma-devices",
       "a port's counters/ directory, or an error counter in it, is missing or unreadable: those "
       "errors were not seen",
       "permission denied: run nodeprobe as root (or with read access to sysfs counters); "
       "missing: check the RDMA driver (every registered port has counters/), and capture each "
       "port's counters/ directory"},
      {"RDMA_ERROR_COUNTERS_NONZERO", kVaries, "rdma-devices",
       "a port's error counters are non-zero",
       "inspect the cable/transceiver and the switch port (ibdiagnet or ethtool -S); counters "
       "reset on driver reload",
       "the profile's rdma.error_counters (warn or fail)"},
      {"RDMA_VERBS_QUERY_FAILED", v1::ERROR, "rdma-devices", "libibverbs could not query a port",
       "install the rdma-core provider for this NIC (ibverbs-providers) and check access to "
       "/dev/infiniband"},
      {"RDMA_LOOPBACK_FAILED", v1::FAIL, "rdma-loopback",
       "a transfer through an ACTIVE port to itself failed",
       "check the port's state and GIDs (rdma-devices probe), that its netdev is up, the HCA "
       "firmware and the driver's messages in the kernel log; with GPU memory, GPUDirect RDMA too"
       " (the gpudirect probe: nvidia_peermem or dma-buf, ACS, the IOMMU)"},
      {"IB_NO_SUBNET_MANAGER", v1::FAIL, "rdma-devices", "an InfiniBand port has no subnet manager",
       "start a subnet manager on the fabric (opensm on a host, or the switch's embedded SM) and "
       "check the port's partition"},
      {"ROCE_NO_V2_GID", v1::FAIL, "rdma-devices", "a RoCE port has no RoCE v2 GID with an address",
       "assign an IPv4 or global IPv6 address to the port's netdev and check that RoCE v2 is "
       "enabled (cma_roce_mode / rdma system settings)"},
      {"ROCE_GID_TYPE_UNKNOWN", v1::ERROR, "rdma-devices",
       "the kernel does not say a GID's RoCE type",
       "use a kernel with RDMA gid_attrs (4.9 or later)"},
      // PCIe and locality
      {"PCIE_LINK_SPEED_UNKNOWN", kVaries, "pcie",
       "a GPU, NIC or NVMe reports its current PCIe link speed as Unknown: no trained link",
       "check the device in lspci -vv and dmesg (AER, 'fallen off the bus'); reseat it, or "
       "power-cycle the node",
       "FAIL when the device reports a maximum speed (it should train), else WARN"},
      {"PCIE_LINK_WIDTH_DEGRADED", kVaries, "pcie", "a PCIe link trained narrower than it can",
       "reseat the card or riser, check the slot's lane wiring and BIOS bifurcation settings, and"
       " look for AER errors in dmesg",
       "FAIL; WARN where the slot or upstream port explains the width"},
      {"PCIE_LINK_SPEED_DEGRADED", kVaries, "pcie", "a PCIe link trained slower than it can",
       "check the BIOS PCIe speed setting, the riser/retimer, and AER errors in dmesg; a link "
       "that retrains lower under load points at signal integrity",
       "FAIL; WARN for an idle GPU (it lowers its speed to save power) or where the upstream port"
       " explains it"},
      {"GPU_NIC_NOT_LOCAL", kVaries, "locality", "a GPU's nearest NIC is not under its PCIe switch",
       "put the GPU and a NIC under the same PCIe switch (see the server's slot map), or accept "
       "it in the profile if this node is not rail-optimized",
       "FAIL when the profile says the node is rail-optimized (locality.rail_optimized), else "
       "WARN"},
      {"GPU_NIC_NUMA_MISMATCH", v1::WARN, "locality",
       "a GPU and its nearest NIC are on different NUMA nodes",
       "bind the rank to the NIC's NUMA node, or move the NIC"},
      {"NIC_SHARED_BY_GPUS", v1::PASS, "locality", "several GPUs share one nearest NIC",
       "nothing to fix: expected on nodes with fewer NICs than GPUs; size collective bandwidth "
       "expectations per NIC, not per GPU"},
      {"NO_RDMA_NIC_FOR_GPU", kVaries, "locality", "a GPU has no RDMA NIC at all",
       "install RDMA NICs (InfiniBand/RoCE) and their driver, or check that the RDMA driver is "
       "loaded (rdma link)",
       "FAIL when the profile says the node is rail-optimized (locality.rail_optimized), else "
       "WARN"},
      {"NCCL_TOPO_FILE_MISMATCH", kVaries, "locality, gpu-view",
       "NCCL_TOPO_FILE pairs GPUs and NICs unlike this node",
       "regenerate the file on this node type (NCCL_TOPO_DUMP_FILE) or unset NCCL_TOPO_FILE",
       "FAIL; ERROR when the file does not parse (NCCL fails on it too)"},
      {"PCIE_VM_LINK_ARTIFACT", v1::PASS, "locality",
       "an emulated bridge's link speed/width (virtual machine), not a fault",
       "nothing to fix: judge the GPU and NIC links on the host, not in the guest"},
      {"GPU_INDEX_MISMATCH", v1::WARN, "locality",
       "a GPU's NVML index in the topology is not its PCI-order index",
       "identify GPUs by bus id (nvidia-smi -q), not by index"},
      // GPUs (NVML)
      {"GPU_UNREADABLE", v1::FAIL, "gpu", "NVML cannot open a GPU (e.g. fallen off the bus)",
       "check dmesg for Xid errors; a lost GPU needs a node reboot or an RMA"},
      {"GPU_ROW_REMAP_FAILED", v1::FAIL, "gpu", "a GPU ran out of spare memory rows",
       "the GPU's memory is worn out: drain the node and RMA the GPU"},
      {"GPU_REMAP_PENDING", v1::FAIL, "gpu",
       "a row remapping or page retirement waits for a GPU reset",
       "drain the node and reset the GPU (nvidia-smi -r) or reboot"},
      {"GPU_ECC_UNCORRECTED", kVaries, "gpu", "a GPU has uncorrected ECC errors",
       "volatile (since the last reset): drain the node, reset the GPU, and RMA it if they come "
       "back; aggregate only: watch the count, an RMA when it grows",
       "FAIL for volatile errors (since the last reset), WARN for the aggregate count alone"},
      {"GPU_ECC_DISABLED", v1::WARN, "gpu", "a GPU supports ECC but runs without it",
       "enable it (nvidia-smi -e 1) and reboot, unless the fleet runs without ECC"},
      {"GPU_THROTTLED", v1::WARN, "gpu", "a GPU's clocks are held down by a thermal or power fault",
       "check cooling, power delivery and the BMC's power brake"},
      {"GPU_NVLINK_DOWN", kVaries, "gpu", "NVLink links of a GPU are down",
       "some links down: check the NVSwitch fabric manager (nv-fabricmanager) and the baseboard, "
       "reset the GPU, RMA if it persists; all down: if this GPU should have NVLink, check its "
       "bridge or the fabric manager",
       "FAIL when some of the GPU's links are up and others down, WARN when all are down"},
      {"GPU_BUSY", v1::WARN, "gpu", "compute processes run on a GPU",
       "run acceptance on drained nodes"},
      {"GPU_PCIE_BW_BELOW_EXPECTED", v1::FAIL, "gpu-pcie-bw",
       "host<->GPU copies are slower than the GPU's PCIe link",
       "check the switch uplink and root port the GPU sits behind (the pcie probe), the IOMMU "
       "mode, and the CPU socket the copies ran from"},
      {"GPU_COPY_FAILED", v1::ERROR, "gpu-pcie-bw", "a host<->GPU copy could not be measured",
       "check the driver (nvidia-smi) and dmesg for Xid errors"},
      // NCCL (what its debug log shows it did)
      {"NCCL_FELL_BACK_TO_SOCKETS", kVaries, "nccl-log",
       "NCCL carried inter-node traffic over sockets",
       "make the HCAs visible to the job (the RDMA driver, /dev/infiniband and IPC_LOCK in a "
       "container, libibverbs and its provider in the image), then check NCCL_NET, "
       "NCCL_IB_DISABLE and NCCL_IB_HCA in the job's environment (recorded in the evidence)",
       "FAIL when the nodes have RDMA NICs (or NCCL said it found no IB device), else WARN"},
      {"NCCL_GDR_OFF", kVaries, "nccl-log",
       "NCCL's inter-node RDMA connections ran without GPUDirect RDMA",
       "load nvidia-peermem or use a kernel and driver with dma-buf (the gpudirect probe says "
       "which works), and check NCCL_NET_GDR_LEVEL and ACS on the GPU-NIC path",
       "FAIL when the profile or the node says GPUDirect RDMA should work, else WARN"},
      {"NCCL_HCA_MISMATCH", v1::FAIL, "nccl-log",
       "NCCL sent a GPU's traffic over a NIC that is not its rail",
       "let NCCL see the topology (NCCL_TOPO_FILE matching the node, no NCCL_IB_HCA that hides "
       "the rail), and check the locality probe"},
      {"NCCL_LOG_EMPTY", v1::ERROR, "nccl-log", "the log holds no NCCL debug output to judge",
       "capture the job with NCCL_DEBUG=INFO (and NCCL_DEBUG_SUBSYS=INIT,NET,GRAPH)"},
      {"NCCL_MEMORY_REGISTRATION_FAILED", v1::FAIL, "nccl-log",
       "a job's NCCL could not register memory with the network",
       "check the locked-memory limit (ulimit -l unlimited, LimitMEMLOCK=infinity, a container's "
       "--ulimit memlock=-1), GPUDirect RDMA (nvidia-peermem or dma-buf: the gpudirect probe), "
       "and the network plugin's own settings (OFI/EFA/CXI variables)"},
      {"NCCL_SHM_FAILED", v1::FAIL, "nccl-log",
       "a job's NCCL could not create its shared-memory segments (/dev/shm)",
       "give the job a larger /dev/shm (Docker --shm-size, a memory-backed emptyDir in "
       "Kubernetes) or check that it is not full"},
      {"NCCL_TRANSPORT_FAILED", v1::FAIL, "nccl-log",
       "a job's NCCL network transport failed to connect or to move data",
       "check the RDMA devices the job sees (ibv_devinfo in its container: /dev/infiniband, the "
       "RDMA device plugin, IPC_LOCK, rdma-core and its provider in the image), their ports and "
       "GIDs, NCCL_IB_HCA / NCCL_IB_GID_INDEX, and firewalls between the nodes; `nodeprobe run "
       "--stage two-node` measures the rails"},
      {"NCCL_JOB_TIMEOUT", v1::FAIL, "nccl-log",
       "a collective of a job timed out (PyTorch's watchdog or NCCL's own)",
       "find the first rank that stalled (its host's kernel log for Xid or link errors), then run"
       " `nodeprobe run --stage cluster` over the job's nodes"},
      {"NCCL_JOB_ERROR", v1::FAIL, "nccl-log",
       "NCCL or CUDA reported an error in a job (nccl*Error, an abort)",
       "read the first error of the first rank (lines kept in the evidence) and the WARN lines "
       "before it; rerun with NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,NET for the cause"},
      {"NCCL_JOB_KILLED", v1::FAIL, "nccl-log", "a job was killed or cancelled by its launcher",
       "find why it ended: a timeout, an OOM kill, or a rank that failed first (the other "
       "findings and the launcher's own log)"},
      {"NCCL_LOG_WARNINGS", v1::WARN, "nccl-log",
       "a job's NCCL printed WARN lines of no known class",
       "read them in the job's log (line numbers given); each is NCCL saying it did something "
       "other than planned"},
      {"NCCL_TESTS_FIGURE_INVALID", v1::WARN, "nccl-log",
       "an nccl-tests table printed a figure that is not a measurement (NaN, negative) or no "
       "average",
       "rerun the test and capture it to its end; a NaN or negative time means the run itself "
       "went wrong (a timer, a failed rank)"},
      {"NCCL_VERSIONS_DIFFER", v1::WARN, "nccl-log",
       "ranks of one job printed different NCCL versions",
       "run every rank with the same NCCL (the same container image or library path); if the log "
       "holds several jobs, judge each job's log on its own"},
      {"BAR_NOT_APPLIED", v1::WARN, "nccl-log",
       "a profile bar could not be applied to the input (unnamed table, no such collective, no "
       "valid size)",
       "capture the whole nccl-tests output to its end (its '# Collective test starting' line "
       "names the collective), or run that collective's test"},
      {"NCCL_WRONG_RESULT", v1::FAIL, "nccl", "a collective computed wrong results",
       "a GPU or link corrupts data: drain the node, check ECC and Xid errors (the gpu probe, "
       "dmesg), NVLink and the NICs' error counters on the ranks named, and rerun per node to "
       "find the rank"},
      {"NCCL_BUSBW_BELOW_EXPECTED", v1::FAIL, "nccl",
       "a collective's bus bandwidth is below the profile's bar",
       "see what NCCL used (the transports in the result, or rerun with NCCL_DEBUG=INFO: sockets,"
       " GDR off, the wrong HCA), then the slowest rank's rail with `nodeprobe run --stage "
       "two-node`"},
      {"NCCL_BUSBW_BELOW_PEERS", v1::WARN, "collective stage",
       "a node's own collectives move less than nccl.min_fraction_of_peers of the median of the "
       "other nodes' in the run",
       "compare this node's GPU links with its peers' (the gpu probe's NVLink count, the pcie "
       "probe's link speeds) and what NCCL used (P2P or SHM)"},
      {"NCCL_BUSBW_BELOW_HARDWARE", v1::WARN, "nccl",
       "with no profile bar, a collective's bus bandwidth is below the profile's share "
       "(nccl.hardware_min_fraction) of what NVLink, PCIe or the rails carry",
       "see what NCCL used (the transports in the result: sockets, GDR off, the wrong HCA, P2P "
       "off), then the links named in the bound (the pcie and gpu probes, `nodeprobe run --stage "
       "two-node`); set nccl.<collective>_busbw_min_gbps in the profile to judge against your own"
       " figure"},
      {"NCCL_TIMEOUT", v1::ERROR, "nccl",
       "ranks of a collective did not finish by its deadline, or were lost",
       "the collective hung or a rank was lost: check the ranks named (node up, agent running, "
       "GPU healthy), the rails between them, and NCCL's warnings in the log evidence"},
      {"NCCL_ASYNC_ERROR", v1::ERROR, "nccl",
       "NCCL reported an asynchronous error and the rank aborted",
       "see NCCL's warning in the log evidence; check the GPUs (nvidia-smi, dmesg Xid) and the "
       "rails"},
      {"NCCL_INIT_FAILED", v1::ERROR, "nccl",
       "a rank could not create or join the NCCL communicator",
       "see NCCL's warning in the log evidence; check the GPUs (nvidia-smi, dmesg Xid), the NCCL "
       "library and the rails"},
      {"NCCL_STOPPED", v1::ERROR, "nccl",
       "a rank was stopped because another rank of the run failed",
       "nothing on this rank: see the findings of the rank that failed"},
      {"NCCL_NOT_RUN", v1::WARN, "collective stage",
       "no collective across the nodes: some node ran no local NCCL",
       "fix the nccl probe on those nodes first (driver, NCCL, GPUs)"},
      // Cabling
      {"CABLING_RAIL_MISMATCH", v1::FAIL, "cabling",
       "a port is cabled (LLDP) to a switch the profile's rail plan (cabling.expect) does not "
       "expect",
       "check the cable at both ends against the rail plan (a swapped pair of rails shows as two "
       "mismatches); fix the plan if the switch was renamed"},
      {"CABLING_NO_NEIGHBOR", v1::WARN, "cabling",
       "the rail plan names an interface on which no neighbour was heard (LLDP, or the IB fabric "
       "one hop out)",
       "Ethernet: check that the link is up, that the switch sends LLDP on that port, and that "
       "lldpd watches the interface (lldpcli show interfaces); InfiniBand: check that the port is"
       " ACTIVE (ibstat), that a subnet manager answers, and run as root (the SMPs need "
       "/dev/infiniband/umad*)"},
      {"CABLING_NO_LLDPD", v1::ERROR, "cabling",
       "the profile has a rail plan but the node's lldpd cannot be read",
       "install and start lldpd on the node (apt-get install lldpd), or point "
       "NODEPROBE_LLDPD_SOCKET at its socket"},
      {"NODE_BUSY", kVaries, "stage runner",
       "an intrusive probe or stage was not run: GPU compute processes or a Slurm job are on the "
       "node (--force runs it anyway)",
       "run it when the node is idle (drained), or with --force if you know what is running there"
       " and that it may be disturbed",
       "SKIP on the node (its probe did not run); WARN on a multi-node run (its pairs were not "
       "measured)"},
      // GPUDirect RDMA
      {"GDR_NOT_AVAILABLE", v1::FAIL, "gpudirect",
       "neither dma-buf nor nvidia_peermem can register GPU memory",
       "load nvidia_peermem (modprobe nvidia_peermem), or use the open NVIDIA kernel module with "
       "kernel >= 5.12 and rdma-core >= 34 for dma-buf; check the HCA's driver and ulimit -l"},
      {"ACS_ENABLED_ON_GPU_NIC_PATH", v1::FAIL, "gpudirect",
       "ACS redirects peer-to-peer traffic between GPU and NIC",
       "disable ACS redirect on the bridge named in the message, in the BIOS or at boot with "
       "`setpci -s BRIDGE ECAP_ACS+0x6.w=0000` (bare metal only; keep it on for VMs that need "
       "isolation)"},
      {"GDR_STATE_NOT_CAPTURED", v1::ERROR, "gpudirect",
       "the capture lacks what says whether GPUDirect RDMA is possible (sys/module, proc/): not "
       "judged",
       "capture the node's sys/module and proc/ too (or judge the live node)"},
      {"ACS_STATE_UNKNOWN", v1::ERROR, "gpudirect", "the ACS control of a bridge could not be read",
       "run nodeprobe as root (reading PCI extended config space needs CAP_SYS_ADMIN); a capture:"
       " take the bridges' config files whole, as root (each sys/bus/pci/devices/*/config is 4096"
       " bytes then)"},
      {"IOMMU_TRANSLATION_ENABLED", v1::WARN, "gpudirect",
       "the IOMMU translates DMA (costs GPUDirect bandwidth)",
       "boot with iommu=pt (and intel_iommu=on or amd_iommu=on as the platform needs) so GPU and "
       "NIC DMA pass through"},
      // MTU
      {"MTU_CHAIN_MISMATCH", v1::FAIL, "mtu", "MTUs differ along an interface chain",
       "set the same MTU along the chain (lower devices and bond/bridge members at least as large"
       " as the devices above them), e.g. `ip link set DEV mtu 9000`, and persist it in the "
       "network config"},
      {"MTU_INTERFACE_MISSING", v1::ERROR, "mtu", "an interface the profile names does not exist",
       "check the interface name, or probe from the workload's namespace with --netns"},
      {"MTU_BELOW_EXPECTED", v1::FAIL, "mtu", "an interface's MTU is below the profile's",
       "`ip link set DEV mtu MTU` with the profile's MTU and persist it in the network config; "
       "check every switch hop too"},
      {"ROCE_MTU_EXCEEDS_NETDEV", v1::FAIL, "mtu",
       "the RoCE active MTU does not fit the netdev's MTU",
       "raise the netdev MTU (4200 fits a 4096 RoCE MTU) or lower the RoCE MTU"},
      {"MTU_PATH_SMALLER_THAN_IFACE", v1::FAIL, "mtu",
       "the path carries less than the interface sends",
       "raise the MTU of the hop that limits the path to match the interfaces, or lower the "
       "interfaces to the path MTU"},
      {"MTU_PATH_BLACKHOLE", v1::FAIL, "mtu", "larger packets vanish on the path without ICMP",
       "find the hop with the smaller MTU (a switch uplink or router at its default) and raise "
       "it, or let it send ICMP fragmentation-needed"},
      {"MTU_PATH_UNREACHABLE", v1::ERROR, "mtu", "the path-MTU responder could not be reached",
       "check the route and firewalls between the two hosts (UDP to the responder's port)"},
      {"MTU_PEERS_DIFFER", v1::FAIL, "mtu", "the two ends' interface MTUs differ",
       "set the same MTU on both ends of the rail"},
      {"RDMA_MTU_MISMATCH", v1::FAIL, "mtu", "the two RDMA ports' active MTUs differ",
       "set the same netdev MTU (RoCE) or IB MTU on both ports"},
      {"MTU_PROBE_FAILED", v1::ERROR, "mtu", "the path-MTU probe could not run",
       "check that UDP reaches the peer's responder (`nodeprobe mtu serve`, or its agent)"},
      {"MTU_PROBE_TIMEOUT", v1::ERROR, "mtu", "the path-MTU probe passed its deadline",
       "check that UDP reaches the peer's responder (`nodeprobe mtu serve`, or its agent), or "
       "raise the deadline"},
      // Transfers
      {"TRANSFER_CONNECT_FAILED", v1::ERROR, "transfer",
       "the client could not reach the transfer server",
       "start `nodeprobe transfer serve` on the peer and check the address, port and firewall"},
      {"TRANSFER_PEER_LOST", v1::ERROR, "transfer", "the peer went away during a transfer",
       "check that the peer process is still running and the link is up"},
      {"TRANSFER_TIMEOUT", v1::ERROR, "transfer", "nothing moved within the idle deadline",
       "check the link (ip link, rdma link) and the peer process"},
      {"TRANSFER_REFUSED", v1::ERROR, "transfer", "the server would not run the request",
       "run a transport and operation the server supports"},
      {"TRANSFER_NO_RDMA_DEVICE", v1::ERROR, "transfer", "no RDMA device routes to the peer",
       "load the NIC's RDMA driver and give the peer's IPv4 address, or measure the Ethernet "
       "baseline with --transport tcp"},
      {"TRANSFER_GPU_NOT_USABLE", v1::ERROR, "transfer",
       "the GPU a transfer end's buffer was asked on (--gpu, or a rail's nearest GPU under "
       "--gpu-memory) is not one CUDA can use here",
       "check the driver (nvidia-smi), that CUDA sees the GPU (CUDA_VISIBLE_DEVICES) and that the "
       "rail's nearest GPU is the one meant; or run without --gpu-memory"},
      {"TRANSFER_SERVE_FAILED", v1::ERROR, "agent", "the transfer server could not start",
       "check the node's free ports and the rail's address"},
      {"TRANSFER_BELOW_EXPECTED", v1::FAIL, "transfer",
       "a transfer missed the profile's or the hardware's bar",
       "check the link's negotiated speed and width on both ends, the NIC's PCIe slot, error and "
       "pause counters, and other traffic on the rail"},
      {"TRANSFER_BELOW_PEERS", kVaries, "two-node and cluster stages",
       "a transfer is below the run's best pair of its kind",
       "the weaker side is named first: check its rail's cable, port speed, PCIe slot and "
       "counters, then retest it against a node that passed",
       "WARN; the profile's transfer.below_peers (warn or fail) when a retest reproduces it"},
      {"MEASUREMENT_TOO_NOISY", v1::WARN, "two-node and cluster stages",
       "a run's measurements of a kind scatter more than transfer.max_spread: small gaps were not"
       " judged",
       "the usual causes: CPU-bound TCP (use RDMA rails, or more --streams), a busy node (other "
       "jobs, a throttled CPU), or too short transfers (--transfer-seconds); rerun on idle nodes "
       "to judge small gaps"},
      {"TRANSFER_ASYMMETRIC", kVaries, "two-node and cluster stages",
       "one direction of a rail is far below the other",
       "look at what only the slower direction's sender (named in the message) sends through: its"
       " transmit side (optics, a switch port's egress shaping or PFC pauses, the sender's NIC)",
       "WARN; FAIL when a retest reproduces it"},
      {"LATENCY_ABOVE_EXPECTED", v1::FAIL, "transfer", "a latency is above the profile's bar",
       "check the path (hops, switch buffers, PFC pauses), CPU frequency scaling and interrupt "
       "moderation on both ends"},
      {"RDMA_ERROR_COUNTERS_GREW", kVaries, "transfer",
       "a port's error counters grew during a transfer",
       "errors under load point at the cable, optics or a switch port: check them (mlxlink, the "
       "switch's port counters) and retest",
       "the profile's transfer.error_counters_grew (warn or fail)"},
      {"RDMA_CONGESTION_SIGNALS", v1::WARN, "transfer",
       "pauses, CNPs or ECN marks during a transfer above the profile's rate",
       "check PFC/ECN configuration and buffer settings on the switches along the rail"},
      {"NETDEV_ERRORS_GREW", kVaries, "transfer",
       "an interface's error counters grew during a transfer",
       "errors under load point at the cable, optics or the switch port: check them (ethtool -S, "
       "the switch's port counters) and retest",
       "the profile's transfer.error_counters_grew (warn or fail)"},
      {"NETDEV_PAUSE_FRAMES", v1::WARN, "transfer",
       "flow-control pauses during a transfer above the profile's rate",
       "check PFC/flow-control settings and congestion on the path"},
      {"CLOCK_READ_SLOW", v1::WARN, "transfer",
       "a clock read costs more than 250 ns (a clocksource the vDSO cannot read): latency figures"
       " include it",
       "use the tsc clocksource (check dmesg for 'TSC unstable'; "
       "/sys/devices/system/clocksource/clocksource0/available_clocksource)"},
      {"NOTHING_MEASURED", kVaries, "stages",
       "a run or pair produced no measurement (everything skipped)",
       "see the run's other findings (AGENT_LOST, TASK_TIMEOUT, probes that failed) and fix those"
       " nodes first; a stage that needs several nodes: name enough healthy ones (--nodes A,B,C "
       "or --all)",
       "ERROR; WARN for a two-node stage whose nodes offered nothing to measure between them"},
      // Cluster stage (coordinator/blame.h)
      {"SUSPECT_NODE", kVaries, "cluster stage",
       "a node measured low with most of its partners (FAIL when its retest confirms it)",
       "take the node out of the pool; check its NICs' link speed, PCIe slots, firmware and "
       "counters (nodeprobe run --stage single-node)",
       "WARN; FAIL when its retest confirms it"},
      {"SUSPECT_RAIL", kVaries, "cluster stage",
       "one rail of a node measured low with most partners, its other rails fine",
       "check that rail's cable, optics and switch port on the node named (the other rails of the"
       " node are fine)",
       "WARN; FAIL when its retest confirms it"},
      {"RAIL_NOT_MEASURED", v1::WARN, "two-node stage",
       "a rail of both nodes could not be measured as itself (a RoCE rail without an IPv4 "
       "address, so no routable GID), and no other path is measured in its name",
       "give the rail's interface its address (or the RoCE GID its IPv4), then run the stage "
       "again"},
      {"SUSPECT_LINK", kVaries, "cluster stage",
       "one pair measured low while both ends were fine with others",
       "check the path between the two: the cable or a switch port they share, or a route only "
       "they take",
       "WARN; FAIL when its retest confirms it"},
      {"CLUSTER_INCOMPLETE", v1::ERROR, "cluster stage",
       "the stage deadline passed before every round ran",
       "raise --timeout (about rounds x the time of one pair), or use --pattern ring for a quick "
       "pass"},
      // Congestion stage (coordinator/congestion_stage.h)
      {"CONGESTION_AGGREGATE_BELOW_EXPECTED", v1::FAIL, "congestion stage",
       "a receiver's sum of flows under incast/all-to-all is below its bar",
       "the receiver's link or its switch egress does not carry its rate under load: check its "
       "buffers, PFC/ECN configuration and the flows' counter deltas"},
      {"CONGESTION_UNFAIR", v1::WARN, "congestion stage",
       "flows into one receiver shared it unevenly (Jain's index below the profile's)",
       "uneven shares under incast point at ECMP collisions, a missing congestion control (DCQCN)"
       " or one sender's slower path"},
      {"CONGESTION_LATENCY", v1::WARN, "congestion stage",
       "p99 latency into a receiver blew up under load",
       "deep queues at the receiver's switch port: check ECN marking thresholds and buffer "
       "profiles for this traffic class"},
      // Failure stage (coordinator/failure_stage.h)
      {"FAILURE_REFUSED", v1::ERROR, "failure stage",
       "the agent would not or could not take its link down (no --allow-disruptive)",
       "start the agent with --allow-disruptive on nodes where failure injection is wanted, with "
       "CAP_NET_ADMIN (the unit's AmbientCapabilities); scenarios are link-down and agent-restart"},
      {"GPU_DIAG_FAILED", v1::FAIL, "gpu-diag",
       "a GPU failed an active diagnostic (dcgmi diag), or DCGM's deployment checks found an "
       "error",
       "follow the test's warning: reset the GPU or reboot for memory/row-remap errors and "
       "rerun; check cooling for thermal violations; drain and RMA a GPU that fails again"},
      {"GPU_DIAG_WARNED", v1::WARN, "gpu-diag", "a GPU's active diagnostic ended with a warning",
       "read the test's warning (dcgmi diag's table) and rerun at a higher level "
       "(gpu_diag.level) before taking the GPU into production"},
      {"GPU_DIAG_NOT_RUN", v1::ERROR, "gpu-diag",
       "dcgmi diag, or one of nodeprobe's own GPU tests, did not run to the end",
       "check that nv-hostengine runs (systemctl status nvidia-dcgm), that no other diagnostic "
       "or job holds the GPUs, that the driver is at least as new as the CUDA nodeprobe was "
       "built with, and that the stage's --timeout covers the tests"},
      {"GPU_MEMORY_TEST_ERRORS", v1::FAIL, "gpu-diag",
       "GPU memory read back other than what was written (nodeprobe's pattern test)",
       "check `nvidia-smi -q -d ECC,ROW_REMAPPER` and the kernel log for Xid 48/63/64/94/95; "
       "reset the GPU and test again; a GPU that fails again goes to RMA"},
      {"GPU_HBM_BANDWIDTH_LOW", v1::FAIL, "gpu-diag",
       "a GPU's memory bandwidth (triad) is far below what its memory clock and bus width allow",
       "check `nvidia-smi -q -d CLOCK,PERFORMANCE` for a lowered memory clock or a throttle "
       "reason, and that nothing else runs on the GPU; reset it and test again, then RMA"},
      {"GPU_GEMM_BELOW_EXPECTED", v1::WARN, "gpu-diag",
       "a GPU's GEMM throughput (cuBLAS, bf16) is below the bar for its model",
       "check power limits (`nvidia-smi -q -d POWER`), application clocks, cooling and throttle "
       "reasons; compare with the other GPUs of the node"},
      {"GPU_THROTTLED_UNDER_LOAD", v1::WARN, "gpu-diag",
       "a thermal or power fault held a GPU's clocks down while it was loaded",
       "check the GPU's cooling (fans, airflow, inlet temperature) and the power supply; a "
       "hw_slowdown or power brake under load is often a PSU or board fault"},
      // Pre-flight, from where the job runs (probes/memlock, shm, nccl_env)
      {"MEMLOCK_TOO_LOW", v1::FAIL, "memlock",
       "the job's locked-memory limit (RLIMIT_MEMLOCK) is below what its RDMA registers",
       "raise it where the job starts: LimitMEMLOCK=infinity in slurmd's and the container "
       "runtime's systemd units, `--ulimit memlock=-1` for docker/podman, memlock unlimited "
       "in /etc/security/limits.conf; a Kubernetes pod needs the runtime's default raised "
       "(and IPC_LOCK where the device plugin asks for it)"},
      {"SHM_NOT_USABLE", v1::FAIL, "shm",
       "the job's user cannot create, size or remove a segment in /dev/shm (read-only, not "
       "writable, no free inode)",
       "mount /dev/shm read-write and writable by the job's user (a memory emptyDir, "
       "--ipc=host or --shm-size), with inodes to spare"},
      {"SHM_TOO_SMALL", v1::FAIL, "shm",
       "/dev/shm is missing or has less room than NCCL's segments between local ranks need",
       "Kubernetes: mount an emptyDir with medium: Memory (and a sizeLimit) at /dev/shm; "
       "docker/podman: --shm-size=16g or --ipc=host; Slurm with enroot/pyxis: the container's "
       "/dev/shm mount size"},
      {"RDMA_DEVICE_NOT_VISIBLE", v1::FAIL, "rdma-exposure",
       "the job expects RDMA and no RDMA device is usable from inside its container or VM",
       "give the pod the RDMA device plugin's resource (rdma/...) or the SR-IOV VF, expose "
       "/dev/infiniband to the container, set `rdma system set netns shared` or move the device "
       "into the pod's namespace, and give its interface an address (RoCE v2 GIDs need one)"},
      {"NCCL_ENV_IGNORED", v1::WARN, "nccl-env",
       "an NCCL_* level variable has a value NCCL does not read, so NCCL keeps its default",
       "use a level NCCL knows (LOC, NVL, NVB, C2C, PIX, PXB, PXN, P2C, PHB, SYS) or a number"},
      {"NCCL_SOCKET_LOOPBACK_ONLY", v1::WARN, "nccl-env",
       "NCCL_SOCKET_IFNAME leaves only loopback: ranks on other nodes cannot reach this one",
       "name the interface of the job's network (e.g. NCCL_SOCKET_IFNAME=eth0, or ^lo,docker)"},
      {"NCCL_ENV_INVALID", v1::FAIL, "nccl-env",
       "an NCCL_* variable names devices, interfaces, GIDs or files this container does not "
       "have, or a value NCCL does not take",
       "fix the variable in the job's environment to what the message lists as present, or "
       "expose the device or interface to the container (RDMA device plugin, Multus network, "
       "a mounted topology file)"},
      {"SECONDARY_INTERFACE_DOWN", v1::FAIL, "interfaces",
       "a secondary interface the job was given is up without carrier, or down with an RDMA "
       "device behind it",
       "check the network attachment (NetworkAttachmentDefinition, SR-IOV policy): the VF's "
       "link state (ip link set PF vf N state auto), the PF's cable and the switch port"},
      {"SECONDARY_INTERFACE_MTU", v1::FAIL, "interfaces",
       "a secondary interface's MTU is below preflight.interface_mtu, or an SR-IOV VF's is above "
       "its PF's",
       "set mtu in the network attachment's CNI config (or the SR-IOV policy's mtu), and raise "
       "the PF's MTU before its VFs'"},
      {"SECONDARY_INTERFACE_NOT_RDMA", v1::WARN, "interfaces",
       "the job expects RDMA but none of its secondary interfaces has an RDMA device behind it",
       "attach the SR-IOV (or RDMA shared device plugin) network instead of a macvlan/ipvlan "
       "one, and request its rdma/... resource in the pod"},
      {"RDMA_PKEY_MISSING", v1::FAIL, "rdma-exposure",
       "an InfiniBand port visible to the job does not hold the profile's partition key "
       "(preflight.pkey)",
       "add the port's GUID to the partition in the subnet manager (partitions.conf), or give the "
       "pod a VF whose PKey table the SR-IOV network sets to it"},
      {"GPU_GRANT_NOT_VISIBLE", v1::FAIL, "gpu-view",
       "the job was granted more GPUs than it can see here, or CUDA_VISIBLE_DEVICES names GPUs "
       "that are not there",
       "expose the granted GPUs to the container (NVIDIA_VISIBLE_DEVICES, the device plugin, "
       "Slurm's gres.conf and cgroup ConstrainDevices) and let CUDA_VISIBLE_DEVICES name only "
       "them"},
      {"GPU_GRANT_EXCEEDED", v1::WARN, "gpu-view",
       "the job sees more GPUs than it was granted: it may run on GPUs other jobs hold",
       "constrain the devices (Slurm: ConstrainDevices=yes in cgroup.conf; Kubernetes: the "
       "device plugin, not privileged pods) or set CUDA_VISIBLE_DEVICES to the grant"},
      {"GPU_NEAREST_NIC_NOT_VISIBLE", v1::WARN, "gpu-view",
       "a GPU's nearest RDMA NIC on this host is not visible to the job: its traffic crosses to "
       "a farther NIC",
       "give the pod the NIC (or VF) on each GPU's rail: topology-aware device allocation, one "
       "rdma/... resource per GPU's NUMA node"},
      {"NCCL_GDR_LEVEL_EXCLUDES_NIC", v1::WARN, "gpu-view",
       "NCCL_NET_GDR_LEVEL is stricter than the path from a GPU to its nearest visible NIC: "
       "GPUDirect RDMA will be off for it",
       "unset NCCL_NET_GDR_LEVEL (NCCL picks by topology) or give the GPU a nearer NIC"},
      {"GPU_NVLINK_ERRORS", v1::WARN, "fault-counters",
       "an NVLink's replay and CRC errors grew faster than faults.nvlink_errors_max_per_hour "
       "since the last local reading, or the link retrained (recovery)",
       "reseat or replace the GPU baseboard's NVLink path (cable cartridge on HGX) when it "
       "persists; run the nccl probe and dcgmi diag -r 2 to see whether bandwidth suffers"},
      // Storage (probes/storage)
      {"STORAGE_PATH_UNUSABLE", v1::ERROR, "storage",
       "a storage.paths entry is missing, not writable, or has no room for the checkpoint",
       "mount the filesystem, let the user nodeprobe runs as write there, or lower "
       "storage.shard_mb / storage.writers; the probe never fills a disk"},
      {"STORAGE_NOT_MEASURED", v1::ERROR, "storage",
       "an I/O error or the stage's deadline stopped a storage measurement",
       "read the message: an I/O error points at the filesystem or its server; a deadline "
       "asks for a longer --timeout or a smaller storage.shard_mb"},
      {"STORAGE_WRITE_SLOW", v1::FAIL, "storage",
       "the checkpoint's write bandwidth was below storage.checkpoint_write_min_gbps",
       "compare with a single writer and with fio on the same path; check the storage "
       "network's rail and MTU, the client's mount options (rsize/wsize, nconnect) and the "
       "server's load"},
      {"STORAGE_CHECKPOINT_SLOW", v1::FAIL, "storage",
       "the slowest writer finished its shard after storage.checkpoint_max_s",
       "a checkpoint is as slow as its slowest rank: look for one slow writer (per-call p99), "
       "a full or throttled target, or writers contending for one server"},
      {"STORAGE_READ_SLOW", v1::FAIL, "storage",
       "reading the shards back cold was below storage.read_min_gbps",
       "check read-ahead and rsize on the client, the storage rail, and whether random reads "
       "hit spinning disks or a cold tier"},
      {"STORAGE_METADATA_SLOW", v1::FAIL, "storage",
       "a metadata operation's p99 latency was above storage.metadata_p99_max_ms",
       "small-file and directory work waits on the metadata server: check its load, the "
       "client's attribute caching (actimeo) and lock contention in shared directories"},
      {"STORAGE_STORM_SLOW", v1::FAIL, "storage storm (run --storage-storm)",
       "every node checkpointing at once took longer than storage.checkpoint_max_s",
       "the shared filesystem cannot absorb the job's synchronous checkpoint: look at the "
       "slowest node and the aggregate against the servers' rating, spread checkpoints over "
       "time (async or staggered saves) or add storage bandwidth"},
      {"STORAGE_STORM_LATENCY", v1::WARN, "storage storm (run --storage-storm)",
       "latency between two nodes blew up while every node checkpointed",
       "storage and compute traffic share the wires or queues: put storage on its own rail or "
       "traffic class (a separate priority and ECN profile), or rate-limit checkpoint writes"},
      {"SOAK_UNSTABLE", v1::WARN, "soak (run --soak)",
       "a direction's transfers (single-node: a probe's figure) varied over the soak more than "
       "soak.max_spread",
       "look at the run's time series: steps point at a link retraining or a flapping port, "
       "scatter at a shared or congested path (check the rail's counters and the switch port); "
       "on one node, at clocks that throttle (the gpu probe's reasons) or a busy disk"},
      {"SOAK_DRIFT", kVaries, "soak (run --soak)",
       "a direction's transfers (single-node: a probe's figure) got slower over the soak by more "
       "than soak.max_drift",
       "something degrades under sustained load: check the NIC's and GPU's temperature and "
       "throttle reasons, the link's error counters and the switch port's congestion counters",
       "WARN; FAIL when every figure of the last third is below every figure of the first"},
      {"FAILURE_NOT_RESTORED", v1::FAIL, "failure stage",
       "a link taken down by the failure stage stayed down",
       "bring it up by hand (`ip link set DEV up` on the node named) and check the node"},
      {"FAILURE_NOT_RECOVERED", v1::FAIL, "failure stage",
       "no good transfer soon enough after the link came back",
       "check the link's state, its routes/ARP and the switch port after the flap, and that the "
       "agent comes back after a restart (systemctl status nodeprobe-agent)"},
      {"FAILURE_HUNG", v1::FAIL, "failure stage",
       "a transfer neither finished nor failed when its link went away",
       "a transfer must end (or fail) by itself when its path or peer goes away: check the "
       "transfer engine's idle timeout on that node"},
  };
  return kCodes;
}

const FindingCode* FindFindingCode(std::string_view code) {
  for (const FindingCode& c : FindingCodes()) {
    if (code == c.code) return &c;
  }
  return nullptr;
}

bool IsKnownFindingCode(std::string_view code) { return FindFindingCode(code) != nullptr; }

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
