#include "probes/storage/storage_io.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <numeric>
#include <random>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/clock.h"
#include "platform/statistics.h"

namespace nodeprobe::storage {
namespace {

constexpr uint32_t kPage = 4096;

double Seconds(std::chrono::steady_clock::time_point a, std::chrono::steady_clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

double Gbps(uint64_t bytes, double seconds) {
  return seconds > 0 ? static_cast<double>(bytes) * 8 / 1e9 / seconds : 0;
}

absl::Status Errno(const std::string& what, int e) {
  std::string why = std::strerror(e);
  if (e == ENOSPC) why = "no space left: the filesystem (or a quota) filled up";
  if (e == EDQUOT) why = "disk quota exceeded";
  return absl::InternalError(absl::StrCat(what, ": ", why));
}

// An aligned buffer that O_DIRECT accepts, filled with bytes that do not
// compress or deduplicate (so ZFS or a compressing array cannot make the
// figure look better than a real checkpoint's).
struct Buffer {
  explicit Buffer(uint32_t bytes, uint64_t seed) : size(bytes) {
    data.reset(static_cast<char*>(std::aligned_alloc(kPage, (bytes + kPage - 1) / kPage * kPage)));
    uint64_t x = seed * 0x9E3779B97F4A7C15ull + 1;
    for (uint32_t i = 0; i + 8 <= bytes; i += 8) {
      x ^= x << 13;
      x ^= x >> 7;
      x ^= x << 17;
      std::memcpy(data.get() + i, &x, 8);
    }
  }
  struct Free {
    void operator()(char* p) const { std::free(p); }
  };
  std::unique_ptr<char, Free> data;
  uint32_t size;
};

// Runs fn(i) on n threads that start together; the first error wins.
template <typename Fn>
absl::Status OnThreads(int n, Fn fn) {
  std::mutex mu;
  std::condition_variable cv;
  bool go = false;
  std::vector<absl::Status> errors(n);
  std::vector<std::thread> threads;
  threads.reserve(n);
  for (int i = 0; i < n; ++i) {
    threads.emplace_back([&, i] {
      {
        std::unique_lock<std::mutex> lock(mu);
        cv.wait(lock, [&] { return go; });
      }
      errors[i] = fn(i);
    });
  }
  {
    std::lock_guard<std::mutex> lock(mu);
    go = true;
  }
  cv.notify_all();
  for (std::thread& t : threads) t.join();
  for (const absl::Status& e : errors) {
    if (!e.ok()) return e;
  }
  return absl::OkStatus();
}

// Whether `dir`'s filesystem takes O_DIRECT writes of aligned pages
// (tmpfs refuses the open, some FUSE filesystems the write); "" if so,
// else why not.
std::string DirectRefused(const std::string& dir) {
  const std::string path = dir + "/.direct-check";
  const int fd = open(path.c_str(), O_CREAT | O_EXCL | O_WRONLY | O_DIRECT | O_CLOEXEC, 0600);
  if (fd < 0) {
    const int e = errno;
    unlink(path.c_str());
    return absl::StrCat("the filesystem refused O_DIRECT (", std::strerror(e), ")");
  }
  Buffer page(kPage, 1);
  const ssize_t n = pwrite(fd, page.data.get(), kPage, 0);
  const int e = errno;
  close(fd);
  unlink(path.c_str());
  return n == kPage ? "" : absl::StrCat("an O_DIRECT write failed (", std::strerror(e), ")");
}

using Clock = std::chrono::steady_clock;

}  // namespace

Latency Summarize(std::vector<double> ms) {
  Latency l;
  l.count = ms.size();
  if (ms.empty()) return l;
  std::sort(ms.begin(), ms.end());
  l.p50_ms = stats::SortedPercentile(ms, 0.50);
  l.p99_ms = stats::SortedPercentile(ms, 0.99);
  l.max_ms = ms.back();
  return l;
}

absl::StatusOr<WriteFigures> WriteCheckpoint(const std::string& dir, const IoPlan& plan) {
  WriteFigures w;
  w.direct_refused = DirectRefused(dir);
  w.direct = w.direct_refused.empty();
  for (int i = 0; i < plan.writers; ++i) w.files.push_back(absl::StrCat(dir, "/shard-", i));
  const uint64_t calls = (plan.shard_bytes + plan.block_bytes - 1) / plan.block_bytes;
  std::vector<std::vector<double>> latency(plan.writers);
  std::vector<Clock::time_point> ended(plan.writers);
  const Clock::time_point start = Clock::now();
  w.started = absl::Now();
  absl::Status s = OnThreads(plan.writers, [&](int i) -> absl::Status {
    Buffer buf(plan.block_bytes, static_cast<uint64_t>(i) + 2);
    latency[i].reserve(calls);
    const int fd = open(w.files[i].c_str(),
                        O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC | (w.direct ? O_DIRECT : 0), 0600);
    if (fd < 0) return Errno(absl::StrCat("cannot create ", w.files[i]), errno);
    uint64_t off = 0;
    while (off < plan.shard_bytes) {
      if (absl::Now() > plan.deadline) {
        close(fd);
        return absl::DeadlineExceededError(
            absl::StrCat("the deadline came during the checkpoint write, ", off >> 20, " of ",
                         plan.shard_bytes >> 20, " MiB into a shard"));
      }
      const size_t want = std::min<uint64_t>(plan.block_bytes, plan.shard_bytes - off);
      const Clock::time_point t = Clock::now();
      const ssize_t n = pwrite(fd, buf.data.get(), want, static_cast<off_t>(off));
      if (n <= 0) {
        const int e = n < 0 ? errno : ENOSPC;
        close(fd);
        return Errno(absl::StrCat("writing ", w.files[i], " at ", off), e);
      }
      latency[i].push_back(Seconds(t, Clock::now()) * 1e3);
      off += static_cast<uint64_t>(n);
    }
    if (fsync(fd) != 0) {
      const int e = errno;
      close(fd);
      return Errno(absl::StrCat("fsync of ", w.files[i]), e);
    }
    close(fd);
    ended[i] = Clock::now();
    return absl::OkStatus();
  });
  if (!s.ok()) return s;
  std::vector<double> all;
  for (int i = 0; i < plan.writers; ++i) {
    all.insert(all.end(), latency[i].begin(), latency[i].end());
    w.checkpoint_s = std::max(w.checkpoint_s, Seconds(start, ended[i]));
  }
  w.bytes = plan.shard_bytes * static_cast<uint64_t>(plan.writers);
  w.gbps = Gbps(w.bytes, w.checkpoint_s);
  w.calls = Summarize(std::move(all));
  return w;
}

absl::StatusOr<ReadFigures> ReadBack(const WriteFigures& written, const IoPlan& plan,
                                     ReadOrder order) {
  const int n = static_cast<int>(written.files.size());
  std::vector<int> fds(n, -1);
  auto close_all = [&] {
    for (int fd : fds) {
      if (fd >= 0) close(fd);
    }
  };
  uint64_t pages = 0, resident = 0;
  for (int i = 0; i < n; ++i) {
    fds[i] = open(written.files[i].c_str(), O_RDONLY | O_CLOEXEC | (written.direct ? O_DIRECT : 0));
    if (fds[i] < 0) {
      const int e = errno;
      close_all();
      return Errno(absl::StrCat("cannot open ", written.files[i]), e);
    }
    // After the fsync every page is clean, so DONTNEED drops them all
    // unless something else maps the file.
    posix_fadvise(fds[i], 0, 0, POSIX_FADV_DONTNEED);
    struct stat st;
    if (fstat(fds[i], &st) != 0 || st.st_size == 0) continue;
    void* map = mmap(nullptr, st.st_size, PROT_READ, MAP_SHARED, fds[i], 0);
    if (map == MAP_FAILED) continue;
    const size_t np = (static_cast<size_t>(st.st_size) + kPage - 1) / kPage;
    std::vector<unsigned char> vec(np);
    if (mincore(map, st.st_size, vec.data()) == 0) {
      pages += np;
      for (unsigned char v : vec) resident += v & 1;
    }
    munmap(map, st.st_size);
  }
  ReadFigures r;
  r.cache = pages == 0 ? "page cache not measured (mincore refused)"
                       : absl::StrFormat(
                             "our files dropped from the page cache (posix_fadvise DONTNEED), "
                             "%.1f%% resident before reading (mincore)",
                             100.0 * static_cast<double>(resident) / static_cast<double>(pages));
  if (written.direct) absl::StrAppend(&r.cache, "; read with O_DIRECT");
  const uint64_t calls = (plan.shard_bytes + plan.block_bytes - 1) / plan.block_bytes;
  std::vector<std::vector<double>> latency(n);
  std::vector<uint64_t> bytes(n, 0);
  const Clock::time_point start = Clock::now();
  absl::Status s = OnThreads(n, [&](int i) -> absl::Status {
    Buffer buf(plan.block_bytes, 0);
    std::vector<uint64_t> blocks(calls);
    std::iota(blocks.begin(), blocks.end(), 0);
    if (order == ReadOrder::kRandom) {
      std::shuffle(blocks.begin(), blocks.end(), std::mt19937_64(1000 + i));
    }
    latency[i].reserve(calls);
    for (uint64_t b : blocks) {
      if (absl::Now() > plan.deadline) {
        return absl::DeadlineExceededError(absl::StrCat(
            "the deadline came during the ", order == ReadOrder::kRandom ? "random" : "sequential",
            " read-back, ", bytes[i] >> 20, " MiB into a shard"));
      }
      const Clock::time_point t = Clock::now();
      const ssize_t got =
          pread(fds[i], buf.data.get(), plan.block_bytes, static_cast<off_t>(b * plan.block_bytes));
      if (got < 0) return Errno(absl::StrCat("reading ", written.files[i]), errno);
      latency[i].push_back(Seconds(t, Clock::now()) * 1e3);
      bytes[i] += static_cast<uint64_t>(got);
    }
    return absl::OkStatus();
  });
  r.seconds = Seconds(start, Clock::now());
  close_all();
  if (!s.ok()) return s;
  std::vector<double> all;
  for (int i = 0; i < n; ++i) {
    all.insert(all.end(), latency[i].begin(), latency[i].end());
    r.bytes += bytes[i];
  }
  r.gbps = Gbps(r.bytes, r.seconds);
  r.calls = Summarize(std::move(all));
  return r;
}

absl::StatusOr<std::vector<MetadataOp>> MeasureMetadata(const std::string& dir, int files,
                                                        int threads, absl::Time deadline) {
  std::vector<MetadataOp> out;
  if (files <= 0) return out;
  threads = std::max(1, std::min(threads, files));
  constexpr int kPerDir = 100;  // "across directories": this many files each
  static const char* const kOps[] = {"create", "stat", "open-close", "unlink"};
  Buffer small(kPage, 3);
  for (const bool spread : {false, true}) {
    const std::string base = absl::StrCat(dir, spread ? "/md-spread" : "/md-one");
    if (mkdir(base.c_str(), 0700) != 0) return Errno("mkdir " + base, errno);
    std::vector<std::string> dirs;
    if (spread) {
      for (int d = 0; d * kPerDir < files; ++d) {
        dirs.push_back(absl::StrCat(base, "/d", d));
        if (mkdir(dirs.back().c_str(), 0700) != 0) return Errno("mkdir " + dirs.back(), errno);
      }
    }
    // Thread t's files are t, t + threads, ...: names built before timing.
    std::vector<std::vector<std::string>> names(threads);
    for (int f = 0; f < files; ++f) {
      names[f % threads].push_back(absl::StrCat(spread ? dirs[f / kPerDir] : base, "/f", f));
    }
    for (const char* op : kOps) {
      std::vector<std::vector<double>> latency(threads);
      const Clock::time_point start = Clock::now();
      absl::Status s = OnThreads(threads, [&](int t) -> absl::Status {
        latency[t].reserve(names[t].size());
        for (size_t k = 0; k < names[t].size(); ++k) {
          if ((k & 63) == 0 && absl::Now() > deadline) {
            return absl::DeadlineExceededError(
                absl::StrCat("the deadline came during the metadata test (", op, ")"));
          }
          const char* name = names[t][k].c_str();
          const Clock::time_point t0 = Clock::now();
          int rc = 0;
          if (op == kOps[0]) {
            const int fd = open(name, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0600);
            rc = fd < 0 ? -1 : (write(fd, small.data.get(), kPage) == kPage ? 0 : -1);
            if (fd >= 0) close(fd);
          } else if (op == kOps[1]) {
            struct stat st;
            rc = stat(name, &st);
          } else if (op == kOps[2]) {
            const int fd = open(name, O_RDONLY | O_CLOEXEC);
            rc = fd < 0 ? -1 : close(fd);
          } else {
            rc = unlink(name);
          }
          if (rc != 0) return Errno(absl::StrCat(op, " ", name), errno);
          latency[t].push_back(Seconds(t0, Clock::now()) * 1e3);
        }
        return absl::OkStatus();
      });
      const double seconds = Seconds(start, Clock::now());
      if (!s.ok()) return s;
      std::vector<double> all;
      for (auto& l : latency) all.insert(all.end(), l.begin(), l.end());
      MetadataOp m;
      m.op = op;
      m.layout = spread ? "across directories" : "one directory";
      m.count = all.size();
      m.ops_per_s = seconds > 0 ? static_cast<double>(m.count) / seconds : 0;
      m.latency = Summarize(std::move(all));
      out.push_back(std::move(m));
    }
    for (const std::string& d : dirs) rmdir(d.c_str());
    rmdir(base.c_str());
  }
  return out;
}

}  // namespace nodeprobe::storage
