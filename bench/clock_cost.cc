// The timestamp our latency loops take once per round trip
// (CLOCK_MONOTONIC_RAW through the vDSO) against perftest's (get_cycles:
// rdtsc on x86-64, cntvct_el0 on aarch64), read back to back in this one
// process: ns per read, median of REPS batches, and the ratio; and what a
// read costs a 2 us round trip. Usage: clock_cost [REPS]
#include <time.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#if defined(__x86_64__)
#include <x86intrin.h>
static inline uint64_t Cycles() { return __rdtsc(); }
#elif defined(__aarch64__)
static inline uint64_t Cycles() {
  uint64_t v;
  asm volatile("mrs %0, cntvct_el0" : "=r"(v));
  return v;
}
#else
static inline uint64_t Cycles() { return 0; }
#endif

namespace {

constexpr int kReads = 1 << 20;

template <typename F>
double NsPerRead(F read) {
  volatile uint64_t sink = 0;
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < kReads; ++i) sink = sink + read();
  const auto end = std::chrono::steady_clock::now();
  return std::chrono::duration<double, std::nano>(end - start).count() / kReads;
}

double Median(std::vector<double> v) {
  std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  const int reps = argc > 1 ? std::max(1, atoi(argv[1])) : 9;
  std::vector<double> ours, perftest;
  for (int r = 0; r < reps; ++r) {  // alternated, so both see the same load
    ours.push_back(NsPerRead([] {
      timespec ts;
      clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
      return static_cast<uint64_t>(ts.tv_nsec);
    }));
    perftest.push_back(NsPerRead(Cycles));
  }
  std::string source;
  std::ifstream("/sys/devices/system/clocksource/clocksource0/current_clocksource") >> source;
  const double o = Median(ours), p = Median(perftest);
  printf("clocksource %s, %d batches of %d reads\n", source.c_str(), reps, kReads);
  printf("%-34s %8.1f ns/read\n", "nodeprobe CLOCK_MONOTONIC_RAW", o);
  printf("%-34s %8.1f ns/read\n", "perftest get_cycles", p);
  printf("ratio %.2f; difference per 2 us round trip %.2f%%\n", o / p, (o - p) / 2000 * 100);
  return 0;
}
