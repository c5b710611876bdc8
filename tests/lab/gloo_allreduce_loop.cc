// A plain Gloo all-reduce loop, the reference the workload stage's replay
// is held to in the namespace lab: one rank per process, meeting the others
// through a gloo::rendezvous::FileStore in a directory they share, over TCP
// from the given address; prints the median time of ITERS all-reduces of
// BYTES (after one warm-up) as "median_ms X".
// Usage: gloo_allreduce_loop RANK SIZE STORE_DIR BIND_IP BYTES ITERS
#include <gloo/rendezvous/context.h>
#include <gloo/rendezvous/file_store.h>
#include <gloo/transport/tcp/device.h>

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <vector>

#include "platform/statistics.h"
#include "probes/workload/plain_allreduce.h"

int main(int argc, char** argv) {
  if (argc != 7) {
    std::fprintf(stderr, "usage: %s RANK SIZE STORE_DIR BIND_IP BYTES ITERS\n", argv[0]);
    return 2;
  }
  const int rank = std::atoi(argv[1]), size = std::atoi(argv[2]);
  const size_t bytes = std::strtoull(argv[5], nullptr, 10);
  const int iters = std::atoi(argv[6]);
  try {
    gloo::rendezvous::FileStore store(argv[3]);
    auto dev = gloo::transport::tcp::CreateDevice(gloo::transport::tcp::attr(argv[4]));
    auto ctx = std::make_shared<gloo::rendezvous::Context>(rank, size);
    ctx->connectFullMesh(store, dev);
    const std::vector<double> ms = nodeprobe::workload::TimePlainAllreduce(ctx, bytes, iters);
    std::printf("median_ms %.3f\n", nodeprobe::stats::Median(ms));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gloo_allreduce_loop: %s\n", e.what());
    return 1;
  }
  return 0;
}
