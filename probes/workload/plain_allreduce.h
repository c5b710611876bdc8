// The reference the Gloo replay is held to (bench/workload_fidelity, the
// namespace lab's fidelity test): a plain gloo::allreduce loop on one
// buffer, as a PyTorch CPU job's DDP bucket would call it.
#pragma once

#include <gloo/context.h>

#include <memory>
#include <vector>

namespace nodeprobe::workload {

// The time in ms of each of `iters` sum all-reduces of `bytes` (floats)
// on `ctx`, after one untimed warm-up. Throws what Gloo throws.
std::vector<double> TimePlainAllreduce(const std::shared_ptr<gloo::Context>& ctx, size_t bytes,
                                       int iters);

}  // namespace nodeprobe::workload
