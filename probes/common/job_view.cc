#include "probes/common/job_view.h"

#include <dirent.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <limits>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "probes/framework/result_util.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"

extern char** environ;

namespace nodeprobe::job {
namespace {

constexpr uint64_t kDefaultBuffSize = 4 << 20;   // NCCL_BUFFSIZE's default
constexpr uint64_t kSegmentAtDefault = 5967872;  // the captured segment at that size

}  // namespace

std::string Get(const Env& env, const std::string& key) {
  auto it = env.find(key);
  return it == env.end() ? "" : it->second;
}

Env ProcessEnvironment() {
  Env env;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    const std::string kv = *e;
    const size_t eq = kv.find('=');
    if (eq != std::string::npos) env[kv.substr(0, eq)] = kv.substr(eq + 1);
  }
  return env;
}

int CountGpuList(const std::string& raw) {
  const std::string list(absl::StripAsciiWhitespace(raw));
  const std::string lower = absl::AsciiStrToLower(list);
  if (lower.empty() || lower == "-1" || lower == "none" || lower == "void" ||
      lower == "nodevfiles") {
    return 0;
  }
  if (lower == "all") return -1;
  std::vector<std::string> items = absl::StrSplit(list, ',', absl::SkipWhitespace());
  // CUDA stops at the first invalid ordinal ("0,1,-1,2" is two GPUs).
  int n = 0;
  for (const std::string& item : items) {
    if (absl::StripAsciiWhitespace(item) == "-1") break;
    ++n;
  }
  return n;
}

std::vector<std::string> CudaVisibleEntries(const std::string& raw, std::string* stopped_at) {
  if (stopped_at != nullptr) stopped_at->clear();
  std::vector<std::string> out;
  bool mig = false;
  for (absl::string_view e : absl::StrSplit(raw, ',')) {
    e = absl::StripAsciiWhitespace(e);
    int ordinal = 0;
    const bool ok = (absl::SimpleAtoi(e, &ordinal) && ordinal >= 0) ||
                    absl::StartsWith(e, "GPU-") || absl::StartsWith(e, "MIG-");
    if (!ok) {
      if (stopped_at != nullptr) *stopped_at = std::string(e);
      break;
    }
    if (absl::StartsWith(e, "MIG-")) {
      if (mig) continue;  // one MIG instance per process
      mig = true;
    }
    out.emplace_back(e);
  }
  return out;
}

LocalRanks GrantOf(const Env& env, int flag) {
  if (flag > 0) return {flag, absl::StrCat("--gpus ", flag)};
  if (const std::string step = Get(env, "SLURM_STEP_GPUS"); !step.empty()) {
    return {std::max(0, CountGpuList(step)), "SLURM_STEP_GPUS=" + step};
  }
  int n = 0;
  if (const std::string on = Get(env, "SLURM_GPUS_ON_NODE"); absl::SimpleAtoi(on, &n) && n >= 0) {
    return {n, "SLURM_GPUS_ON_NODE=" + on};
  }
  return {-1, ""};
}

LocalRanks RanksOf(const Env& env, int granted, int visible) {
  if (LocalRanks grant = GrantOf(env, granted); grant.count >= 0) return grant;
  if (env.count("CUDA_VISIBLE_DEVICES") > 0) {
    const std::string cvd = Get(env, "CUDA_VISIBLE_DEVICES");
    return {static_cast<int>(CudaVisibleEntries(cvd, nullptr).size()),
            "CUDA_VISIBLE_DEVICES=" + cvd};
  }
  if (env.count("NVIDIA_VISIBLE_DEVICES") > 0) {
    const int listed = CountGpuList(Get(env, "NVIDIA_VISIBLE_DEVICES"));
    if (listed >= 0) {
      return {listed, "NVIDIA_VISIBLE_DEVICES=" + Get(env, "NVIDIA_VISIBLE_DEVICES")};
    }
  }
  return {visible, absl::StrCat(visible, " visible GPUs (/dev/nvidiaN)")};
}

uint64_t Product(std::initializer_list<uint64_t> factors) {
  uint64_t out = 1;
  for (uint64_t f : factors) {
    if (__builtin_mul_overflow(out, f, &out)) return std::numeric_limits<uint64_t>::max();
  }
  return out;
}

std::optional<long long> NcclParam(const Env& env, const std::string& name, bool* exact) {
  const std::string v = Get(env, name);
  if (v.empty()) return std::nullopt;
  char* end = nullptr;
  errno = 0;
  const long long n = strtoll(v.c_str(), &end, 0);
  if (errno == ERANGE) return std::nullopt;
  if (exact != nullptr) *exact = end != v.c_str() && *end == '\0' && std::to_string(n) == v;
  return n;
}

uint64_t ConnectionBytes(const Env& env) {
  uint64_t buff = kDefaultBuffSize;
  uint64_t set = 0;
  if (absl::SimpleAtoi(Get(env, "NCCL_BUFFSIZE"), &set) && set > 0) buff = set;
  // The LL and LL128 buffers ride along in the same proportion; checked, so
  // an absurd NCCL_BUFFSIZE saturates instead of wrapping to a tiny need.
  return Product({kSegmentAtDefault / (kDefaultBuffSize / 4096), buff / 4096});
}

int Channels(const Env& env) {
  int n = 0;
  if (absl::SimpleAtoi(Get(env, "NCCL_MIN_NCHANNELS"), &n) && n > 0) return std::min(n, 64);
  return 2;
}

RdmaUse RdmaUseOf(const Env& env, int devices, bool expected) {
  if (expected) return {true, "the profile's preflight.expect_rdma"};
  // NCCL picks its network by name, case-insensitively (ncclNetInit's
  // strcasecmp): a forced IB fails at init ("network IB not found") when no
  // device is usable, whatever NCCL_IB_DISABLE says (nccl-env judges that
  // contradiction).
  if (absl::AsciiStrToLower(Get(env, "NCCL_NET")) == "ib") {
    return {true, "NCCL_NET=" + Get(env, "NCCL_NET") + " forces NCCL's IB transport"};
  }
  if (Get(env, "NCCL_IB_DISABLE") == "1") return {false, "NCCL_IB_DISABLE=1"};
  if (absl::AsciiStrToLower(Get(env, "NCCL_NET")) == "socket") return {false, "NCCL_NET=Socket"};
  if (!Get(env, "NCCL_IB_HCA").empty()) return {true, "NCCL_IB_HCA=" + Get(env, "NCCL_IB_HCA")};
  if (devices > 0) return {true, absl::StrCat(devices, " RDMA devices visible here")};
  return {false, "no RDMA device visible here, NCCL_IB_HCA unset"};
}

std::string Bytes(uint64_t b) {
  if (b == std::numeric_limits<uint64_t>::max()) return "unlimited";
  return ByteSize(b);
}

}  // namespace nodeprobe::job
