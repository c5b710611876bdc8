// File: stranger_flood.cc
// What a stranger can make a nodeprobe server hold: waves of junk TCP
// connections (random bytes, a bare HTTP/2 preface, or nothing at all),
// and trickling clients (one byte every interval). Reads the server's RSS
// from /proc while it does.
//
//   stranger_flood junk    ADDRESS PID WAVES PER_WAVE HOLD_MS
//   stranger_flood trickle ADDRESS PID CLIENTS SECONDS INTERVAL_MS grpc|framed
//
// junk prints the server's RSS before, at the peak of each wave and after
// it; trickle prints how long the server kept each trickling connection.
// Needs `ulimit -n` above PER_WAVE (the script raises it).
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <random>
#include <string>
#include <thread>
#include <vector>

namespace {

// The HTTP/2 client preface: a gRPC server reads it before anything else.
const char kPreface[] = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";

long RssKiB(int pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  std::string key;
  long value = 0;
  while (in >> key) {
    if (key == "VmRSS:") {
      in >> value;
      return value;
    }
    std::string rest;
    std::getline(in, rest);
  }
  return -1;
}

bool ParseAddress(const std::string& text, sockaddr_in* out) {
  size_t colon = text.rfind(':');
  if (colon == std::string::npos) return false;
  std::memset(out, 0, sizeof(*out));
  out->sin_family = AF_INET;
  out->sin_port = htons(static_cast<uint16_t>(atoi(text.c_str() + colon + 1)));
  return inet_pton(AF_INET, text.substr(0, colon).c_str(), &out->sin_addr) == 1;
}

// Opens n non-blocking connections and waits (up to 5 s) until each is
// connected or failed; returns the connected ones.
std::vector<int> ConnectMany(const sockaddr_in& addr, int n) {
  std::vector<int> fds;
  for (int i = 0; i < n; ++i) {
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) break;
    if (connect(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof(addr)) < 0 &&
        errno != EINPROGRESS) {
      close(fd);
      continue;
    }
    fds.push_back(fd);
  }
  std::vector<int> connected;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  std::vector<int> pending = fds;
  while (!pending.empty() && std::chrono::steady_clock::now() < deadline) {
    std::vector<pollfd> p;
    for (int fd : pending) p.push_back({fd, POLLOUT, 0});
    if (poll(p.data(), p.size(), 100) < 0) break;
    std::vector<int> still;
    for (const pollfd& e : p) {
      if (e.revents == 0) {
        still.push_back(e.fd);
        continue;
      }
      int err = 0;
      socklen_t len = sizeof(err);
      getsockopt(e.fd, SOL_SOCKET, SO_ERROR, &err, &len);
      if (err == 0) {
        connected.push_back(e.fd);
      } else {
        close(e.fd);
      }
    }
    pending.swap(still);
  }
  for (int fd : pending) close(fd);
  return connected;
}

int Junk(const sockaddr_in& addr, int pid, int waves, int per_wave, int hold_ms) {
  std::mt19937 rng(42);
  // An HTTP/2 client preface and an empty SETTINGS frame: the furthest a
  // plaintext stranger gets without a single call.
  const std::string preface = std::string(kPreface) +
                              std::string("\x00\x00\x00\x04\x00\x00\x00\x00\x00", 9);
  printf("before: rss_kB=%ld\n", RssKiB(pid));
  for (int w = 1; w <= waves; ++w) {
    std::vector<int> fds = ConnectMany(addr, per_wave);
    for (size_t i = 0; i < fds.size(); ++i) {
      std::string payload;
      if (i % 3 == 0) {
        payload.resize(256);
        for (char& c : payload) c = static_cast<char>(rng());
      } else if (i % 3 == 1) {
        payload = preface;
      }  // else: silent
      if (!payload.empty()) (void)!write(fds[i], payload.data(), payload.size());
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(hold_ms));
    const long peak = RssKiB(pid);
    for (int fd : fds) close(fd);
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    printf("wave %d: connected=%zu rss_held_kB=%ld rss_after_kB=%ld\n", w, fds.size(), peak,
           RssKiB(pid));
    fflush(stdout);
  }
  return 0;
}

// The n-th byte a trickling client sends: a message that is valid so far
// and never ends. grpc: the HTTP/2 preface, then a SETTINGS frame header
// announcing 16 KiB; framed: the length prefix of a 1 MiB - 1 message (the
// transfer and MTU control framing), then its body.
char TrickleByte(bool grpc, size_t n) {
  if (grpc) {
    static const std::string head =
        std::string(kPreface) + std::string("\x00\x40\x00\x04\x00\x00\x00\x00\x00", 9);
    return n < head.size() ? head[n] : 0;
  }
  static const char prefix[4] = {0x00, 0x0f, static_cast<char>(0xff), static_cast<char>(0xff)};
  return n < 4 ? prefix[n] : 0;
}

// Each client sends one byte every interval (a request it never finishes)
// until the server closes it or `seconds` pass.
int Trickle(const sockaddr_in& addr, int pid, int clients, int seconds, int interval_ms,
            bool grpc) {
  printf("before: rss_kB=%ld\n", RssKiB(pid));
  std::vector<int> fds = ConnectMany(addr, clients);
  std::vector<double> closed_after(fds.size(), -1);
  std::vector<size_t> sent(fds.size(), 0);
  const auto start = std::chrono::steady_clock::now();
  const auto end = start + std::chrono::seconds(seconds);
  long peak = 0;
  while (std::chrono::steady_clock::now() < end) {
    bool any_open = false;
    for (size_t i = 0; i < fds.size(); ++i) {
      if (closed_after[i] >= 0) continue;
      char buf[64];
      ssize_t got = recv(fds[i], buf, sizeof(buf), MSG_DONTWAIT);
      const char b = TrickleByte(grpc, sent[i]++);
      if (got == 0 || (got < 0 && errno != EAGAIN) ||
          send(fds[i], &b, 1, MSG_NOSIGNAL) < 0) {
        closed_after[i] =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        continue;
      }
      any_open = true;
    }
    peak = std::max(peak, RssKiB(pid));
    if (!any_open) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(interval_ms));
  }
  int kept = 0;
  double longest = 0;
  for (double t : closed_after) {
    if (t < 0) ++kept;
    longest = std::max(longest, t);
  }
  printf("trickle: clients=%zu closed_by_server=%zu still_open=%d longest_kept_s=%.1f "
         "rss_peak_kB=%ld\n",
         fds.size(), fds.size() - kept, kept, kept ? static_cast<double>(seconds) : longest,
         peak);
  for (int fd : fds) close(fd);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  sockaddr_in addr;
  if (argc < 7 || !ParseAddress(argv[2], &addr)) {
    fprintf(stderr,
            "usage: %s junk ADDRESS PID WAVES PER_WAVE HOLD_MS\n"
            "       %s trickle ADDRESS PID CLIENTS SECONDS INTERVAL_MS grpc|framed\n"
            "ADDRESS is IPv4:PORT\n",
            argv[0], argv[0]);
    return 2;
  }
  const std::string mode = argv[1];
  const int pid = atoi(argv[3]);
  if (mode == "junk" && argc == 7) {
    return Junk(addr, pid, atoi(argv[4]), atoi(argv[5]), atoi(argv[6]));
  }
  if (mode == "trickle" && argc == 8) {
    return Trickle(addr, pid, atoi(argv[4]), atoi(argv[5]), atoi(argv[6]),
                   std::string(argv[7]) == "grpc");
  }
  fprintf(stderr, "unknown mode '%s' (junk or trickle)\n", mode.c_str());
  return 2;
}
