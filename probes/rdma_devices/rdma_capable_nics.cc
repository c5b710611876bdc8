#include "probes/rdma_devices/rdma_capable_nics.h"

namespace nodeprobe::rdma {

std::optional<RdmaCapableNic> RdmaCapableNicFor(uint16_t vendor, uint16_t device,
                                                uint32_t pci_class) {
  if ((pci_class >> 16) != 0x02) return std::nullopt;  // not a network function
  // Device ids from the Linux drivers' PCI tables (mlx5_core/mlx4_core,
  // bnxt_en for bnxt_re, ice for irdma, i40e for irdma/i40iw) and pci.ids.
  static const RdmaCapableNic kTable[] = {
      // NVIDIA/Mellanox: every ConnectX/BlueField network function is RDMA
      // capable (mlx5_ib / mlx4_ib).
      {0x15b3, 0, "NVIDIA/Mellanox ConnectX or BlueField", "mlx5_ib or mlx4_ib"},
      // Broadcom NetXtreme-E (bnxt_re).
      {0x14e4, 0x16d7, "Broadcom BCM57414 NetXtreme-E", "bnxt_re"},
      {0x14e4, 0x16d8, "Broadcom BCM57416 NetXtreme-E", "bnxt_re"},
      {0x14e4, 0x1750, "Broadcom BCM57508 NetXtreme-E", "bnxt_re"},
      {0x14e4, 0x1751, "Broadcom BCM57504 NetXtreme-E", "bnxt_re"},
      {0x14e4, 0x1752, "Broadcom BCM57502 NetXtreme-E", "bnxt_re"},
      {0x14e4, 0x1760, "Broadcom BCM57608 NetXtreme-E", "bnxt_re"},
      // Intel E810 (ice + irdma, RoCE v2 and iWARP).
      {0x8086, 0x1591, "Intel E810-C backplane", "irdma"},
      {0x8086, 0x1592, "Intel E810-C QSFP", "irdma"},
      {0x8086, 0x1593, "Intel E810-C SFP", "irdma"},
      {0x8086, 0x159b, "Intel E810-XXV SFP", "irdma"},
      // Intel X722 (i40e + irdma, iWARP).
      {0x8086, 0x37d0, "Intel X722 10GbE SFP+", "irdma"},
      {0x8086, 0x37d1, "Intel X722 1GbE", "irdma"},
      {0x8086, 0x37d2, "Intel X722 10GBASE-T", "irdma"},
      {0x8086, 0x37d3, "Intel X722 10GbE SFP+", "irdma"},
  };
  // Last, class 0x0207xx: "Infiniband controller" (PCI Code and ID
  // Assignment Specification): every such function is an HCA.
  for (const RdmaCapableNic& n : kTable) {
    if (n.vendor == vendor && (n.device == 0 || n.device == device)) return n;
  }
  if ((pci_class >> 8) == 0x0207) {
    return RdmaCapableNic{vendor, device, "InfiniBand controller", "the HCA's RDMA module"};
  }
  return std::nullopt;
}

}  // namespace nodeprobe::rdma
