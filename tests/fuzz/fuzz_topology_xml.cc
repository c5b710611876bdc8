// libFuzzer: topology XML from files the user points at (lstopo exports
// and NCCL's own <system> dumps): the size/depth gate and the NCCL reader.
#include <cstddef>
#include <cstdint>
#include <string>

#include "platform/hwloc_topology.h"
#include "platform/nccl_topology.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string xml(reinterpret_cast<const char*>(data), size);
  if (!nodeprobe::platform::CheckXmlBounds(xml, "fuzz.xml").ok()) return 0;
  if (nodeprobe::platform::IsNcclTopologyXml(xml)) {
    (void)nodeprobe::platform::ParseNcclTopology(xml, "fuzz.xml");
  }
  (void)nodeprobe::platform::DowngradeHwloc3Xml(xml);
  return 0;
}
