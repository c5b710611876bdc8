// File: fake_nccl.cc
// A test double of the part of the CUDA runtime and NCCL that
// probes/nccl/collective_runner.cc calls, loaded through the same dlopen
// path ($NODEPROBE_CUDART_LIBRARY and $NODEPROBE_NCCL_LIBRARY both name
// this library). Device memory is host memory; a stream is a thread that
// runs what is queued on it; events hold the wall-clock time their turn
// came. Ranks are separate processes that talk over TCP: every rank sends
// its input to rank 0, which computes every rank's output for real (float
// sums, gathers, point-to-point routing) and sends it back.
//
// The unique id holds rank 0's address, chosen as NCCL chooses it
// (BootstrapAddress).
//
// Configured from the environment (read when a communicator is created):
//   FAKE_CUDA_DEVICES     GPUs this host has (0 or unset: cudaErrorNoDevice)
//   FAKE_NCCL_DELAY_US    sleep before each operation on every rank
//   FAKE_NCCL_FAIL_RANK   the rank that misbehaves, as FAKE_NCCL_FAIL says:
//     hang   its operations never finish (until ncclCommAbort)
//     wrong  its results have element 0 off by one
//     nowrite  its results are not written (a collective that missed its write)
//     async  ncclCommGetAsyncError reports ncclRemoteError, nothing finishes
//     exit   the process ends at once (a crashed rank)
//   FAKE_NCCL_FAIL_AFTER  operations that go well before the failure (0)
// A rank whose peer vanished reports ncclRemoteError, as NCCL does, and its
// operation waits for ncclCommAbort. NCCL_DEBUG=INFO writes a few lines in
// NCCL's own format to $NCCL_DEBUG_FILE (%h host, %p pid).
#include <arpa/inet.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace {

constexpr int kCudaErrorInvalidValue = 1;
constexpr int kCudaErrorNoDevice = 100;
constexpr int kCudaErrorNotReady = 600;
constexpr int kNcclInvalidArgument = 4;
constexpr int kNcclSystemError = 2;
constexpr int kNcclRemoteError = 6;
constexpr char kMagic[8] = {'F', 'A', 'K', 'E', 'N', 'C', 'C', 'L'};

int EnvInt(const char* name, int fallback) {
  const char* v = getenv(name);
  return v != nullptr && *v ? atoi(v) : fallback;
}

int64_t NowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

thread_local int current_device = 0;

// A stream: one thread running its queue in order.
struct Stream {
  std::mutex mu;
  std::condition_variable cv;
  std::deque<std::function<void()>> queue;
  bool busy = false;
  bool stop = false;
  std::thread worker;

  Stream() {
    worker = std::thread([this] {
      std::unique_lock<std::mutex> l(mu);
      while (true) {
        cv.wait(l, [&] { return stop || !queue.empty(); });
        if (queue.empty()) return;
        std::function<void()> fn = std::move(queue.front());
        queue.pop_front();
        busy = true;
        l.unlock();
        fn();
        l.lock();
        busy = false;
        cv.notify_all();
      }
    });
  }
  ~Stream() {
    {
      std::lock_guard<std::mutex> l(mu);
      stop = true;
      cv.notify_all();
    }
    worker.join();
  }
  void Push(std::function<void()> fn) {
    std::lock_guard<std::mutex> l(mu);
    queue.push_back(std::move(fn));
    cv.notify_all();
  }
  bool Idle() {
    std::lock_guard<std::mutex> l(mu);
    return queue.empty() && !busy;
  }
};

struct Event {
  std::atomic<int64_t> ns{0};
};

bool SendAll(int fd, const void* p, size_t n) {
  const char* c = static_cast<const char*>(p);
  while (n > 0) {
    ssize_t k = send(fd, c, n, MSG_NOSIGNAL);
    if (k <= 0) return false;
    c += k;
    n -= static_cast<size_t>(k);
  }
  return true;
}
bool RecvAll(int fd, void* p, size_t n) {
  char* c = static_cast<char*>(p);
  while (n > 0) {
    ssize_t k = recv(fd, c, n, 0);
    if (k <= 0) return false;
    c += k;
    n -= static_cast<size_t>(k);
  }
  return true;
}
bool SendBlob(int fd, const std::string& b) {
  uint64_t n = b.size();
  return SendAll(fd, &n, sizeof(n)) && SendAll(fd, b.data(), b.size());
}
bool RecvBlob(int fd, std::string* b) {
  uint64_t n = 0;
  if (!RecvAll(fd, &n, sizeof(n)) || n > (8ull << 30)) return false;
  b->resize(n);
  return RecvAll(fd, b->data(), n);
}

struct Id {
  char magic[8];
  uint32_t ip;  // network order
  uint16_t port;
};

// Rank 0's listener, opened by ncclGetUniqueId in this process.
std::mutex listeners_mu;
std::map<uint16_t, int> listeners;

std::string Host() {
  char h[256] = {0};
  gethostname(h, sizeof(h) - 1);
  return h;
}

// As NCCL picks its bootstrap interface: the first one $NCCL_SOCKET_IFNAME
// names (an optional "=" for exact names, then a comma list), else the
// first interface that is up and not loopback, else loopback.
uint32_t BootstrapAddress() {
  const char* env = getenv("NCCL_SOCKET_IFNAME");
  std::string want;
  if (env != nullptr && *env != '\0') {
    want = env[0] == '=' ? env + 1 : env;
    want = want.substr(0, want.find(','));
  }
  uint32_t ip = htonl(INADDR_LOOPBACK);
  ifaddrs* all = nullptr;
  if (getifaddrs(&all) != 0) return ip;
  for (ifaddrs* a = all; a != nullptr; a = a->ifa_next) {
    if (a->ifa_addr == nullptr || a->ifa_addr->sa_family != AF_INET) continue;
    const bool match = want.empty() ? (a->ifa_flags & IFF_UP) && !(a->ifa_flags & IFF_LOOPBACK)
                                    : want == a->ifa_name;
    if (match) {
      ip = reinterpret_cast<sockaddr_in*>(a->ifa_addr)->sin_addr.s_addr;
      break;
    }
  }
  freeifaddrs(all);
  return ip;
}

// Whether `ip` (network order) is one of this host's addresses: a rank
// that reaches rank 0 through one shares its host.
bool IsLocalAddress(uint32_t ip) {
  bool local = ip == htonl(INADDR_LOOPBACK);
  ifaddrs* all = nullptr;
  if (getifaddrs(&all) != 0) return local;
  for (ifaddrs* a = all; a != nullptr; a = a->ifa_next) {
    if (a->ifa_addr != nullptr && a->ifa_addr->sa_family == AF_INET &&
        reinterpret_cast<sockaddr_in*>(a->ifa_addr)->sin_addr.s_addr == ip) {
      local = true;
    }
  }
  freeifaddrs(all);
  return local;
}

// One element of a point-to-point group.
struct P2p {
  bool send;
  int peer;
  char* buf;
  size_t bytes;
};

enum Op : uint32_t { kAllReduce, kAllGather, kReduceScatter, kBroadcast, kReduce, kGroup };

struct Comm {
  int rank = 0;
  int nranks = 1;
  int device = 0;
  std::vector<int> fds;  // rank 0: one per rank (-1 for itself); others: fds[0] to rank 0
  std::atomic<int> async_error{0};
  std::atomic<bool> aborted{false};
  std::mutex mu;
  std::condition_variable cv;
  uint64_t ops = 0;  // run on the stream thread only
  int delay_us = 0;
  int fail_rank = -1;
  std::string fail;
  int fail_after = 0;
  bool one_host = true;  // every rank on this host (rank 0: as far as it has heard)
  FILE* log = nullptr;
  std::string prefix;

  // Waits for ncclCommAbort: what NCCL's kernels do when a peer is gone.
  void Stall(int error) {
    if (error != 0) async_error = error;
    std::unique_lock<std::mutex> l(mu);
    cv.wait(l, [&] { return aborted.load(); });
  }
  void Info(const std::string& line) {
    if (log == nullptr) return;
    fprintf(log, "%s NCCL INFO %s\n", prefix.c_str(), line.c_str());
    fflush(log);
  }
};

void OpenLog(Comm* c) {
  const char* debug = getenv("NCCL_DEBUG");
  const char* file = getenv("NCCL_DEBUG_FILE");
  if (debug == nullptr || strcasecmp(debug, "INFO") != 0 || file == nullptr) return;
  std::string path;
  for (const char* p = file; *p; ++p) {
    if (p[0] == '%' && p[1] == 'h') {
      path += Host();
      ++p;
    } else if (p[0] == '%' && p[1] == 'p') {
      path += std::to_string(getpid());
      ++p;
    } else {
      path += *p;
    }
  }
  c->log = fopen(path.c_str(), "a");
  c->prefix = Host() + ":" + std::to_string(getpid()) + ":" + std::to_string(getpid()) + " [" +
              std::to_string(c->device) + "]";
}

void Sum(std::string* acc, const std::string& in) {
  const size_t n = std::min(acc->size(), in.size()) / 4;
  float* a = reinterpret_cast<float*>(acc->data());
  const float* b = reinterpret_cast<const float*>(in.data());
  for (size_t i = 0; i < n; ++i) a[i] += b[i];
}

// Rank 0: every rank's output from every rank's input.
std::vector<std::string> Compute(Op op, int root, const std::vector<std::string>& in,
                                 size_t count) {
  const int n = static_cast<int>(in.size());
  std::vector<std::string> out(n);
  if (op == kAllReduce || op == kReduce || op == kReduceScatter) {
    std::string acc = in[0];
    for (int r = 1; r < n; ++r) Sum(&acc, in[r]);
    for (int r = 0; r < n; ++r) {
      if (op == kAllReduce) out[r] = acc;
      if (op == kReduce && r == root) out[r] = acc;
      if (op == kReduceScatter) out[r] = acc.substr(r * count * 4, count * 4);
    }
  } else if (op == kBroadcast) {
    for (int r = 0; r < n; ++r) out[r] = in[root];
  } else if (op == kAllGather) {
    std::string all;
    for (int r = 0; r < n; ++r) all += in[r];
    for (int r = 0; r < n; ++r) out[r] = all;
  } else {  // kGroup: in[r] = r's sends (peer, bytes, data)... then its receives (peer, bytes)
    struct Msg {
      std::vector<std::pair<int, std::string>> sends;
      std::vector<std::pair<int, uint64_t>> recvs;
    };
    std::vector<Msg> m(n);
    for (int r = 0; r < n; ++r) {
      const std::string& s = in[r];
      size_t at = 0;
      while (at + 13 <= s.size()) {
        const char kind = s[at];
        int32_t peer;
        uint64_t bytes;
        memcpy(&peer, &s[at + 1], 4);
        memcpy(&bytes, &s[at + 5], 8);
        at += 13;
        if (kind == 's') {
          m[r].sends.emplace_back(peer, s.substr(at, bytes));
          at += bytes;
        } else {
          m[r].recvs.emplace_back(peer, bytes);
        }
      }
    }
    for (int r = 0; r < n; ++r) {
      for (const auto& [peer, bytes] : m[r].recvs) {
        std::string got(bytes, '\0');
        if (peer >= 0 && peer < n) {
          auto& sends = m[peer].sends;
          for (auto it = sends.begin(); it != sends.end(); ++it) {
            if (it->first == r) {
              got = it->second;
              got.resize(bytes);
              sends.erase(it);
              break;
            }
          }
        }
        out[r] += got;
      }
    }
  }
  return out;
}

// One operation, on the stream thread: input to rank 0, output back.
void Run(Comm* c, Op op, int root, size_t count, std::string input,
         const std::function<void(const std::string&)>& write) {
  if (c->aborted) return;
  if (c->delay_us > 0) std::this_thread::sleep_for(std::chrono::microseconds(c->delay_us));
  const bool failing = c->rank == c->fail_rank && c->ops++ >= static_cast<uint64_t>(c->fail_after);
  if (failing && c->fail == "exit") _exit(3);
  if (failing && c->fail == "hang") return c->Stall(0);
  if (failing && c->fail == "async") return c->Stall(kNcclRemoteError);
  std::string output;
  if (c->rank == 0) {
    std::vector<std::string> in(c->nranks);
    in[0] = std::move(input);
    for (int r = 1; r < c->nranks; ++r) {
      if (!RecvBlob(c->fds[r], &in[r])) return c->Stall(kNcclRemoteError);
    }
    std::vector<std::string> out = Compute(op, root, in, count);
    for (int r = 1; r < c->nranks; ++r) {
      if (!SendBlob(c->fds[r], out[r])) return c->Stall(kNcclRemoteError);
    }
    output = std::move(out[0]);
  } else {
    if (!SendBlob(c->fds[0], input) || !RecvBlob(c->fds[0], &output)) {
      return c->Stall(kNcclRemoteError);
    }
  }
  if (failing && c->fail == "wrong" && output.size() >= 4) {
    float* f = reinterpret_cast<float*>(output.data());
    f[0] += 1;
  }
  if (failing && c->fail == "nowrite") return;
  if (!output.empty()) write(output);
}

thread_local int group_depth = 0;
thread_local std::vector<std::pair<Comm*, Stream*>> group_comms;
thread_local std::map<Comm*, std::vector<P2p>> group_ops;

void Enqueue(Comm* c, Stream* s, Op op, int root, size_t count, const void* in, size_t in_bytes,
             void* out) {
  // The input is read when the operation's turn comes, as on a GPU.
  s->Push([c, op, root, count, in, in_bytes, out] {
    std::string input(static_cast<const char*>(in), in_bytes);
    Run(c, op, root, count, std::move(input),
        [out](const std::string& o) { memcpy(out, o.data(), o.size()); });
  });
}

}  // namespace

extern "C" {

// ---- CUDA runtime ----
int cudaGetDeviceCount(int* n) {
  *n = EnvInt("FAKE_CUDA_DEVICES", 0);
  return *n > 0 ? 0 : kCudaErrorNoDevice;
}
int cudaSetDevice(int d) {
  if (d < 0 || d >= EnvInt("FAKE_CUDA_DEVICES", 0)) return kCudaErrorInvalidValue;
  current_device = d;
  return 0;
}
int cudaDeviceGetPCIBusId(char* out, int len, int d) {
  snprintf(out, static_cast<size_t>(len), "0000:%02X:00.0", 0x10 + d);
  return 0;
}
int cudaMalloc(void** p, size_t n) {
  *p = calloc(1, n == 0 ? 1 : n);
  return *p != nullptr ? 0 : 2;  // cudaErrorMemoryAllocation
}
int cudaFree(void* p) {
  free(p);
  return 0;
}
int cudaMemcpy(void* dst, const void* src, size_t n, int) {
  memcpy(dst, src, n);
  return 0;
}
int cudaStreamCreate(void** s) {
  *s = new Stream();
  return 0;
}
int cudaStreamQuery(void* s) { return static_cast<Stream*>(s)->Idle() ? 0 : kCudaErrorNotReady; }
int cudaStreamDestroy(void* s) {
  delete static_cast<Stream*>(s);
  return 0;
}
int cudaEventCreate(void** e) {
  *e = new Event();
  return 0;
}
int cudaEventRecord(void* e, void* s) {
  Event* ev = static_cast<Event*>(e);
  static_cast<Stream*>(s)->Push([ev] { ev->ns = NowNs(); });
  return 0;
}
int cudaEventElapsedTime(float* ms, void* a, void* b) {
  *ms = static_cast<float>(static_cast<Event*>(b)->ns - static_cast<Event*>(a)->ns) / 1e6f;
  return 0;
}
int cudaEventDestroy(void* e) {
  delete static_cast<Event*>(e);
  return 0;
}
const char* cudaGetErrorString(int e) {
  switch (e) {
    case 0: return "no error";
    case kCudaErrorNoDevice: return "no CUDA-capable device is detected";
    case kCudaErrorNotReady: return "device not ready";
    default: return "fake CUDA error";
  }
}

// ---- NCCL ----
int ncclGetVersion(int* v) {
  *v = 29900;  // 2.99.0: no real NCCL has it
  return 0;
}
const char* ncclGetErrorString(int e) {
  switch (e) {
    case 0: return "no error";
    case kNcclSystemError: return "unhandled system error";
    case kNcclInvalidArgument: return "invalid argument";
    case kNcclRemoteError: return "remote process exited or there was a network error";
    default: return "fake NCCL error";
  }
}
int ncclGetUniqueId(void* out) {
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_ANY);
  socklen_t len = sizeof(a);
  if (fd < 0 || bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a)) != 0 || listen(fd, 128) != 0 ||
      getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) != 0) {
    if (fd >= 0) close(fd);
    return kNcclSystemError;
  }
  Id id{};
  memcpy(id.magic, kMagic, sizeof(kMagic));
  id.ip = BootstrapAddress();
  id.port = ntohs(a.sin_port);
  memset(out, 0, 128);
  memcpy(out, &id, sizeof(id));
  std::lock_guard<std::mutex> l(listeners_mu);
  listeners[id.port] = fd;
  return 0;
}

struct UniqueId {
  char internal[128];
};

int ncclCommInitRank(void** comm, int nranks, UniqueId uid, int rank) {
  Id id;
  memcpy(&id, uid.internal, sizeof(id));
  if (memcmp(id.magic, kMagic, sizeof(kMagic)) != 0 || nranks < 1 || rank < 0 || rank >= nranks) {
    return kNcclInvalidArgument;
  }
  auto* c = new Comm();
  c->rank = rank;
  c->nranks = nranks;
  c->device = current_device;
  c->delay_us = EnvInt("FAKE_NCCL_DELAY_US", 0);
  c->fail_rank = EnvInt("FAKE_NCCL_FAIL_RANK", -1);
  c->fail = getenv("FAKE_NCCL_FAIL") ? getenv("FAKE_NCCL_FAIL") : "";
  c->fail_after = EnvInt("FAKE_NCCL_FAIL_AFTER", 0);
  if (rank == 0) {
    int lfd;
    {
      std::lock_guard<std::mutex> l(listeners_mu);
      auto it = listeners.find(id.port);
      if (it == listeners.end()) return kNcclInvalidArgument;  // not this process's id
      lfd = it->second;
    }
    c->fds.assign(nranks, -1);
    for (int joined = 1; joined < nranks;) {
      int fd = accept4(lfd, nullptr, nullptr, SOCK_CLOEXEC);
      if (fd < 0) continue;
      int32_t hello[2] = {-1, 0};  // rank, shares rank 0's host
      const int32_t r = RecvAll(fd, hello, sizeof(hello)) ? hello[0] : -1;
      if (r < 1 || r >= nranks || c->fds[r] != -1) {
        close(fd);
        continue;
      }
      c->one_host &= hello[1] != 0;
      c->fds[r] = fd;
      ++joined;
    }
  } else {
    int fd = -1;
    for (int attempt = 0; attempt < 600; ++attempt) {  // rank 0 may still be starting: 60 s
      fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
      sockaddr_in a{};
      a.sin_family = AF_INET;
      a.sin_addr.s_addr = id.ip;
      a.sin_port = htons(id.port);
      if (connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a)) == 0) break;
      close(fd);
      fd = -1;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    c->one_host = IsLocalAddress(id.ip);
    const int32_t hello[2] = {rank, c->one_host ? 1 : 0};
    if (fd < 0 || !SendAll(fd, hello, sizeof(hello))) {
      if (fd >= 0) close(fd);
      delete c;
      return kNcclRemoteError;
    }
    c->fds.push_back(fd);
  }
  for (int fd : c->fds) {
    int one = 1;
    if (fd >= 0) setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
  }
  OpenLog(c);
  char bus[32];
  cudaDeviceGetPCIBusId(bus, sizeof(bus), c->device);
  c->Info("NCCL version 2.99.0+fake");
  c->Info("NET/Socket : Using [0]lo:127.0.0.1<0>");
  c->Info("Using network Socket");
  // Ranks that met over loopback share a host (SHM, as NCCL picks between
  // processes without P2P); others talk over sockets.
  if (nranks > 1) {
    const bool local = c->one_host;
    c->Info("Channel 00" + std::string(local ? "" : "/0") + " : " + std::to_string(rank) + "[" +
            std::to_string(c->device) + "] -> " + std::to_string((rank + 1) % nranks) + "[0]" +
            (local ? " via SHM/direct/direct" : " [send] via NET/Socket/0"));
  }
  c->Info("comm 0x1 rank " + std::to_string(rank) + " nranks " + std::to_string(nranks) +
          " cudaDev " + std::to_string(c->device) + " busId " + std::to_string(0x10 + c->device) +
          "000 - Init COMPLETE");
  *comm = c;
  return 0;
}

int ncclCommGetAsyncError(void* comm, int* err) {
  *err = static_cast<Comm*>(comm)->async_error;
  return 0;
}

int ncclCommAbort(void* comm) {
  Comm* c = static_cast<Comm*>(comm);
  {
    std::lock_guard<std::mutex> l(c->mu);
    c->aborted = true;
    c->cv.notify_all();
  }
  for (int fd : c->fds) {
    if (fd >= 0) shutdown(fd, SHUT_RDWR);
  }
  // The communicator stays allocated (reachable from here): its stream may
  // still be finishing an operation that reads it.
  static std::mutex aborted_mu;
  static std::vector<Comm*>* aborted = new std::vector<Comm*>();
  std::lock_guard<std::mutex> l(aborted_mu);
  aborted->push_back(c);
  return 0;
}

int ncclCommDestroy(void* comm) {
  Comm* c = static_cast<Comm*>(comm);
  for (int fd : c->fds) {
    if (fd >= 0) close(fd);
  }
  if (c->log != nullptr) fclose(c->log);
  delete c;
  return 0;
}

int ncclAllReduce(const void* s, void* r, size_t count, int type, int op, void* comm, void* stream) {
  if (type != 7 || op != 0) return kNcclInvalidArgument;
  Enqueue(static_cast<Comm*>(comm), static_cast<Stream*>(stream), kAllReduce, 0, count, s,
          count * 4, r);
  return 0;
}
int ncclReduce(const void* s, void* r, size_t count, int type, int op, int root, void* comm,
               void* stream) {
  if (type != 7 || op != 0) return kNcclInvalidArgument;
  Enqueue(static_cast<Comm*>(comm), static_cast<Stream*>(stream), kReduce, root, count, s,
          count * 4, r);
  return 0;
}
int ncclBroadcast(const void* s, void* r, size_t count, int type, int root, void* comm,
                  void* stream) {
  if (type != 7) return kNcclInvalidArgument;
  Comm* c = static_cast<Comm*>(comm);
  Enqueue(c, static_cast<Stream*>(stream), kBroadcast, root, count, s, count * 4, r);
  return 0;
}
int ncclAllGather(const void* s, void* r, size_t count, int type, void* comm, void* stream) {
  if (type != 7) return kNcclInvalidArgument;
  Enqueue(static_cast<Comm*>(comm), static_cast<Stream*>(stream), kAllGather, 0, count, s,
          count * 4, r);
  return 0;
}
int ncclReduceScatter(const void* s, void* r, size_t count, int type, int op, void* comm,
                      void* stream) {
  if (type != 7 || op != 0) return kNcclInvalidArgument;
  Comm* c = static_cast<Comm*>(comm);
  Enqueue(c, static_cast<Stream*>(stream), kReduceScatter, 0, count, s, count * 4 * c->nranks, r);
  return 0;
}

int ncclGroupStart() {
  ++group_depth;
  return 0;
}

int ncclSend(const void* buf, size_t count, int type, int peer, void* comm, void* stream) {
  if (type != 7 || group_depth == 0) return kNcclInvalidArgument;  // we only use them in groups
  Comm* c = static_cast<Comm*>(comm);
  if (group_ops[c].empty()) group_comms.emplace_back(c, static_cast<Stream*>(stream));
  group_ops[c].push_back({true, peer, static_cast<char*>(const_cast<void*>(buf)), count * 4});
  return 0;
}
int ncclRecv(void* buf, size_t count, int type, int peer, void* comm, void* stream) {
  if (type != 7 || group_depth == 0) return kNcclInvalidArgument;
  Comm* c = static_cast<Comm*>(comm);
  if (group_ops[c].empty()) group_comms.emplace_back(c, static_cast<Stream*>(stream));
  group_ops[c].push_back({false, peer, static_cast<char*>(buf), count * 4});
  return 0;
}

int ncclGroupEnd() {
  if (group_depth == 0) return kNcclInvalidArgument;
  if (--group_depth > 0) return 0;
  for (const auto& entry : group_comms) {
    Comm* c = entry.first;  // named, not bound: clang 14 cannot capture bindings
    Stream* s = entry.second;
    std::vector<P2p> ops = std::move(group_ops[c]);
    s->Push([c, ops] {
      std::string in;
      for (const P2p& p : ops) {
        in += p.send ? 's' : 'r';
        int32_t peer = p.peer;
        uint64_t bytes = p.bytes;
        in.append(reinterpret_cast<char*>(&peer), 4);
        in.append(reinterpret_cast<char*>(&bytes), 8);
        if (p.send) in.append(p.buf, p.bytes);
      }
      Run(c, kGroup, 0, 0, std::move(in), [&ops](const std::string& out) {
        size_t at = 0;
        for (const P2p& p : ops) {
          if (p.send) continue;
          memcpy(p.buf, out.data() + at, std::min(p.bytes, out.size() - at));
          at += p.bytes;
        }
      });
    });
  }
  group_comms.clear();
  group_ops.clear();
  return 0;
}

}  // extern "C"
