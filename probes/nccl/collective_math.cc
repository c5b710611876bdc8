#include "probes/nccl/collective_math.h"

#include <algorithm>
#include <cstring>

#include "absl/strings/str_cat.h"

namespace nodeprobe::nccl {
namespace {

constexpr uint64_t kWord = 4;  // float
constexpr uint64_t kMaxBytes = 16ull << 30;

}  // namespace

const std::vector<std::string>& AllCollectives() {
  static const std::vector<std::string> all = {"all_reduce", "all_gather", "broadcast",
                                               "reduce_scatter", "reduce", "alltoall",
                                               "sendrecv"};
  return all;
}

bool IsCollective(std::string_view name) {
  const auto& all = AllCollectives();
  return std::find(all.begin(), all.end(), name) != all.end();
}

v1::CollectiveOptions WithDefaults(v1::CollectiveOptions o) {
  if (o.collectives_size() == 0) {
    for (const std::string& c : AllCollectives()) o.add_collectives(c);
  }
  if (o.sizes_size() == 0) {
    if (o.min_bytes() == 0) o.set_min_bytes(1 << 20);
    if (o.max_bytes() == 0) o.set_max_bytes(std::max<uint64_t>(o.min_bytes(), 256 << 20));
    if (o.step_factor() == 0) o.set_step_factor(4);
  }
  if (o.warmup_iters() == 0) o.set_warmup_iters(5);
  if (o.iters() == 0) o.set_iters(20);
  if (o.op_timeout_s() <= 0) o.set_op_timeout_s(60);
  return o;
}

absl::Status ValidateOptions(const v1::CollectiveOptions& o) {
  for (const std::string& c : o.collectives()) {
    if (!IsCollective(c)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "unknown collective '", c,
          "' (use all_reduce, all_gather, broadcast, reduce_scatter, reduce, alltoall, sendrecv)"));
    }
  }
  if (o.sizes_size() == 0) {
    if (o.min_bytes() > o.max_bytes()) {
      return absl::InvalidArgumentError(absl::StrCat("--min-bytes ", o.min_bytes(),
                                                     " is above --max-bytes ", o.max_bytes()));
    }
    if (o.step_factor() < 2 && o.min_bytes() != o.max_bytes()) {
      return absl::InvalidArgumentError("--step-factor must be 2 or more");
    }
  }
  for (uint64_t s : o.sizes()) {
    if (s == 0) return absl::InvalidArgumentError("a size of 0 bytes measures nothing");
  }
  if (o.max_bytes() > kMaxBytes || std::any_of(o.sizes().begin(), o.sizes().end(),
                                               [](uint64_t s) { return s > kMaxBytes; })) {
    return absl::InvalidArgumentError("sizes above 16 GiB are refused (two buffers per GPU)");
  }
  if (o.iters() > 100000 || o.warmup_iters() > 100000) {
    return absl::InvalidArgumentError("--iters and --warmup-iters must be at most 100000");
  }
  return absl::OkStatus();
}

std::vector<uint64_t> SweepSizes(const v1::CollectiveOptions& o) {
  std::vector<uint64_t> sizes(o.sizes().begin(), o.sizes().end());
  if (sizes.empty() && o.min_bytes() > 0) {
    for (uint64_t s = o.min_bytes(); s <= o.max_bytes(); s *= std::max<uint32_t>(2, o.step_factor())) {
      sizes.push_back(s);
      if (s > o.max_bytes() / std::max<uint32_t>(2, o.step_factor())) break;
    }
  }
  std::sort(sizes.begin(), sizes.end());
  sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
  return sizes;
}

CollectiveShape ShapeOf(std::string_view c, uint64_t size_bytes, int nranks) {
  const uint64_t n = static_cast<uint64_t>(std::max(1, nranks));
  const uint64_t count = size_bytes / kWord;
  // nccl-tests' getCollByteCount: a rank's share rounded down to whole 16
  // bytes ((count/nranks) & ~(16/eltSize - 1)), so every rank's slot stays
  // 16-byte aligned and the printed size matches nccl-tests for any count.
  const uint64_t share = (count / n) & ~(16 / kWord - 1);
  CollectiveShape s;
  if (c == "all_gather") {
    s.param = share;
    s.send = s.param;
    s.recv = s.param * n;
  } else if (c == "reduce_scatter") {
    s.param = share;
    s.send = s.param * n;
    s.recv = s.param;
  } else if (c == "alltoall") {
    s.param = share;  // per peer
    s.send = s.param * n;
    s.recv = s.param * n;
  } else {  // all_reduce, broadcast, reduce, sendrecv
    s.param = count;
    s.send = count;
    s.recv = count;
  }
  s.bytes = std::max(s.send, s.recv) * kWord;
  return s;
}

// Inputs 1..17 that depend on rank and element: any partial sum over up to
// 986 000 ranks is an integer below 2^24, exact in float whatever order
// NCCL reduces in (the same reason nccl-tests' verifiable data is built to
// sum exactly). The former (r + 1) x (i % 17 + 1) passed 2^24 at 1405 ranks
// and marked correct results wrong.
float InputValue(int rank, uint64_t i) {
  return static_cast<float>((static_cast<uint64_t>(rank) + i) % 17 + 1);
}

// Bits 0x3f800000 | ((rank + i x K) mod 2^23): a float in [1, 2) whose
// mantissa, for one element, differs for every rank below 2^23 (the map
// rank -> mantissa is a shift modulo 2^23), and that varies along the
// buffer. Copied, never summed, so any bit pattern is exact.
float UniqueInputValue(int rank, uint64_t i) {
  const uint32_t mantissa =
      static_cast<uint32_t>((static_cast<uint64_t>(rank) + i * 0x9E3779B1ull) & 0x7fffff);
  const uint32_t bits = 0x3f800000u | mantissa;
  float out;
  memcpy(&out, &bits, sizeof(out));
  return out;
}

bool Reduces(std::string_view c) {
  return c == "all_reduce" || c == "reduce" || c == "reduce_scatter";
}

float InputFor(std::string_view c, int rank, uint64_t i) {
  return Reduces(c) ? InputValue(rank, i) : UniqueInputValue(rank, i);
}

// The sum over ranks 0..n-1 of InputValue(r, i), in closed form.
uint64_t InputSum(int nranks, uint64_t i) {
  const uint64_t n = static_cast<uint64_t>(std::max(1, nranks));
  const uint64_t whole = n / 17, rest = n % 17;
  uint64_t sum = whole * (17 * 18 / 2);
  for (uint64_t t = 0; t < rest; ++t) sum += (i + t) % 17 + 1;
  return sum;
}

std::optional<float> ExpectedValue(std::string_view c, const CollectiveShape& s, int nranks,
                                   int rank, uint64_t i) {
  const int n = std::max(1, nranks);
  auto sum_at = [&](uint64_t j) { return static_cast<float>(InputSum(n, j)); };
  if (c == "all_reduce") return sum_at(i);
  if (c == "reduce") return rank == 0 ? std::optional<float>(sum_at(i)) : std::nullopt;
  if (c == "broadcast") return UniqueInputValue(0, i);
  if (c == "all_gather") {
    if (s.param == 0) return std::nullopt;
    return UniqueInputValue(static_cast<int>(i / s.param), i % s.param);
  }
  if (c == "reduce_scatter") return sum_at(static_cast<uint64_t>(rank) * s.param + i);
  if (c == "alltoall") {
    if (s.param == 0) return std::nullopt;
    // Chunk p came from rank p: the part of its send buffer meant for us.
    const uint64_t from = i / s.param;
    return UniqueInputValue(static_cast<int>(from),
                            static_cast<uint64_t>(rank) * s.param + i % s.param);
  }
  if (c == "sendrecv") return UniqueInputValue((rank - 1 + n) % n, i);
  return std::nullopt;
}

double AlgBwGbps(uint64_t bytes, double time_us) {
  if (time_us <= 0) return 0;
  return static_cast<double>(bytes) / (time_us * 1e-6) / 1e9;
}

bool RunsInPlace(std::string_view c) { return c != "alltoall" && c != "sendrecv"; }

}  // namespace nodeprobe::nccl
