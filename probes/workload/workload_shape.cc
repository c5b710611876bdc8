#include "probes/workload/workload_shape.h"

namespace nodeprobe::workload {
int DtypeBytes(const std::string& dtype) {
  if (dtype == "bf16" || dtype == "fp16") return 2;
  if (dtype == "fp32") return 4;
  return 0;
}

}  // namespace nodeprobe::workload
