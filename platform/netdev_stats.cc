#include "platform/netdev_stats.h"

#include <linux/ethtool.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstring>
#include <memory>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace nodeprobe::platform {
namespace {

constexpr uint32_t kMaxStats = 16384;  // no driver has more; bounds the buffers

int Ioctl(int fd, const std::string& ifname, void* data) {
  ifreq ifr{};
  strncpy(ifr.ifr_name, ifname.c_str(), IFNAMSIZ - 1);
  ifr.ifr_data = static_cast<char*>(data);
  return ioctl(fd, SIOCETHTOOL, &ifr);
}

}  // namespace

std::map<std::string, uint64_t> NetdevStatistics(const FileTree& sys, const std::string& ifname) {
  std::map<std::string, uint64_t> out;
  const std::string dir = absl::StrCat("class/net/", ifname, "/statistics");
  absl::StatusOr<std::vector<std::string>> names = sys.ListDir(dir);
  if (!names.ok()) return out;
  for (const std::string& name : *names) {
    absl::StatusOr<std::string> v = sys.ReadValue(dir + "/" + name);
    uint64_t n = 0;
    if (v.ok() && absl::SimpleAtoi(*v, &n)) out[name] = n;
  }
  return out;
}

absl::StatusOr<std::map<std::string, uint64_t>> EthtoolStatistics(const std::string& ifname) {
  if (ifname.empty() || ifname.size() >= IFNAMSIZ) {
    return absl::InvalidArgumentError(absl::StrCat("bad interface name '", ifname, "'"));
  }
  int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return absl::ErrnoToStatus(errno, "socket");
  std::unique_ptr<int, void (*)(int*)> closer(&fd, [](int* f) { close(*f); });
  std::map<std::string, uint64_t> out;
  // How many statistics the driver has.
  // ethtool_sset_info ends in a flexible array: one u32 follows it.
  alignas(ethtool_sset_info) uint8_t sset_buf[sizeof(ethtool_sset_info) + sizeof(uint32_t)] = {};
  auto* sset = reinterpret_cast<ethtool_sset_info*>(sset_buf);
  sset->cmd = ETHTOOL_GSSET_INFO;
  sset->sset_mask = 1ull << ETH_SS_STATS;
  if (Ioctl(fd, ifname, sset) != 0) {
    if (errno == EOPNOTSUPP) return out;  // no driver statistics (lo)
    return absl::ErrnoToStatus(errno, absl::StrCat("ethtool statistics of ", ifname));
  }
  const uint32_t n = (sset->sset_mask & (1ull << ETH_SS_STATS)) ? sset->data[0] : 0;
  if (n == 0) return out;
  if (n > kMaxStats) {
    return absl::FailedPreconditionError(
        absl::StrCat(ifname, " reports ", n, " ethtool statistics, more than any driver has"));
  }
  std::vector<uint8_t> strings(sizeof(ethtool_gstrings) + n * ETH_GSTRING_LEN);
  auto* gs = reinterpret_cast<ethtool_gstrings*>(strings.data());
  gs->cmd = ETHTOOL_GSTRINGS;
  gs->string_set = ETH_SS_STATS;
  gs->len = n;
  std::vector<uint8_t> values(sizeof(ethtool_stats) + n * sizeof(uint64_t));
  auto* st = reinterpret_cast<ethtool_stats*>(values.data());
  st->cmd = ETHTOOL_GSTATS;
  st->n_stats = n;
  if (Ioctl(fd, ifname, gs) != 0 || Ioctl(fd, ifname, st) != 0) {
    return absl::ErrnoToStatus(errno, absl::StrCat("ethtool statistics of ", ifname));
  }
  const uint32_t got = std::min(gs->len, st->n_stats);
  for (uint32_t i = 0; i < got; ++i) {
    const char* name = reinterpret_cast<const char*>(gs->data + i * ETH_GSTRING_LEN);
    out[std::string(name, strnlen(name, ETH_GSTRING_LEN))] = st->data[i];
  }
  return out;
}

}  // namespace nodeprobe::platform
