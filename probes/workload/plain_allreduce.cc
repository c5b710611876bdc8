#include "probes/workload/plain_allreduce.h"

#include <gloo/allreduce.h>
#include <gloo/math.h>

#include <chrono>

namespace nodeprobe::workload {

std::vector<double> TimePlainAllreduce(const std::shared_ptr<gloo::Context>& ctx, size_t bytes,
                                       int iters) {
  std::vector<float> buf((bytes + 3) / 4, 1.0f);
  std::vector<double> ms;
  for (int i = 0; i < iters + 1; ++i) {
    const auto t = std::chrono::steady_clock::now();
    gloo::AllreduceOptions o(ctx);
    o.setOutput<float>(buf.data(), buf.size());
    o.setReduceFunction(
        static_cast<void (*)(void*, const void*, const void*, size_t)>(&gloo::sum<float>));
    o.setTag(static_cast<uint32_t>(i));
    gloo::allreduce(o);
    const double d =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t).count();
    if (i > 0) ms.push_back(d);
  }
  return ms;
}

}  // namespace nodeprobe::workload
