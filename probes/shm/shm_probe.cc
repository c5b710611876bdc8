#include "probes/shm/shm_probe.h"

#include <fcntl.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "platform/gpu_inventory.h"
#include "probes/common/job_view.h"
#include "probes/common/preflight_profile.h"
#include "probes/framework/result_util.h"
#include "probes/shm/shm_findings.h"

namespace nodeprobe {

constexpr char kShm[] = "/dev/shm";

namespace preflight {

using job::Bytes;

void JudgeShm(uint64_t size, uint64_t free_bytes, uint64_t need, const std::string& need_why,
              v1::ProbeResult* r) {
  AddMeasurement(r, "preflight.shm_free", static_cast<double>(free_bytes), "bytes");
  AddMeasurement(r, "preflight.shm_need", static_cast<double>(need), "bytes");
  AddEvidence(r, "statvfs(/dev/shm)", absl::StrCat(Bytes(free_bytes), " free of ", Bytes(size)));
  AddEvidence(r, "shm.need", absl::StrCat(Bytes(need), ": ", need_why));
  if (free_bytes >= need) return;
  AddFinding(r, findings::kShmTooSmall.code, kShm,
             absl::StrCat("/dev/shm has ", Bytes(free_bytes), " free (of ", Bytes(size),
                          ") and NCCL needs about ", Bytes(need), " (", need_why,
                          "): its shared-memory transport will fail to extend its segments"));
}

absl::Status TrySegment(const std::string& dir, uint64_t bytes) {
  const std::string path = absl::StrCat(dir, "/nodeprobe-preflight-", getpid(), "-",
                                        absl::ToUnixNanos(absl::Now()));
  const int fd = open(path.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) {
    return absl::FailedPreconditionError(
        absl::StrCat("cannot create a segment in ", dir, " as uid ", getuid(), ": ",
                     std::strerror(errno)));
  }
  const int fallocated = bytes > 0 ? posix_fallocate(fd, 0, static_cast<off_t>(bytes)) : 0;
  close(fd);
  const int removed = unlink(path.c_str()) == 0 ? 0 : errno;
  if (fallocated != 0) {
    return absl::FailedPreconditionError(absl::StrCat("cannot size a ", Bytes(bytes),
                                                      " segment in ", dir, ": ",
                                                      std::strerror(fallocated)));
  }
  if (removed != 0) {
    return absl::FailedPreconditionError(
        absl::StrCat("cannot remove a segment from ", dir, ": ", std::strerror(removed)));
  }
  return absl::OkStatus();
}

void JudgeShmUse(const absl::Status& segment, uint64_t free_inodes, v1::ProbeResult* r) {
  AddEvidence(r, "shm.free_inodes", absl::StrCat(free_inodes));
  AddEvidence(r, "shm.segment", segment.ok() ? "created, sized and removed as NCCL would"
                                             : std::string(segment.message()));
  if (!segment.ok()) {
    AddFinding(r, findings::kShmNotUsable.code, kShm,
               absl::StrCat(segment.message(),
                            ": NCCL's shared-memory transport fails the same "
                            "way (\"failed to open/extend /dev/shm/nccl-...\")"));
  } else if (free_inodes == 0) {
    AddFinding(r, findings::kShmNotUsable.code, kShm,
               "/dev/shm has no free inode: NCCL cannot create its segments");
  }
}

}  // namespace preflight

absl::StatusOr<v1::ProbeResult> ShmProbe::Run(const ProbeContext& ctx) {
  const job::Env env = job::ProcessEnvironment();
  const PreflightRules& rules = ctx.profile->Section<PreflightRules>();
  v1::ProbeResult r;
  r.set_probe("shm");
  struct statvfs vfs;
  if (statvfs(kShm, &vfs) != 0) {
    AddFinding(&r, findings::kShmTooSmall.code, kShm,
               absl::StrCat("no usable /dev/shm here (", std::strerror(errno),
                            "): NCCL's shared-memory transport needs one"));
    return r;
  }
  const uint64_t size = static_cast<uint64_t>(vfs.f_blocks) * vfs.f_frsize;
  const uint64_t free_bytes = static_cast<uint64_t>(vfs.f_bavail) * vfs.f_frsize;
  uint64_t need = 0;
  std::string why;
  if (rules.shm_min_mb > 0) {
    need = static_cast<uint64_t>(rules.shm_min_mb * (1 << 20));
    why = "the profile's preflight.shm_min_mb";
  } else {
    const job::LocalRanks ranks =
        job::RanksOf(env, job::GrantedGpus(ctx.arguments), platform::GpuDeviceNodes());
    const int channels = job::Channels(env);
    if (ranks.count >= 2) {
      need = job::Product({static_cast<uint64_t>(ranks.count), static_cast<uint64_t>(channels),
                           job::ConnectionBytes(env)});
    }
    why = ranks.count >= 2 ? absl::StrCat(ranks.count, " local ranks (", ranks.source, ") x ",
                                          channels, " channels x NCCL's ",
                                          job::Bytes(job::ConnectionBytes(env)), " segments")
                           : absl::StrCat(ranks.count, " local rank (", ranks.source,
                                          "): no segments between local ranks");
  }
  preflight::JudgeShm(size, free_bytes, need, why, &r);
  // One segment as NCCL makes it, no larger than the room there is (the
  // room is SHM_TOO_SMALL's to judge).
  const uint64_t segment = std::min<uint64_t>(job::ConnectionBytes(env), free_bytes);
  preflight::JudgeShmUse(preflight::TrySegment(kShm, segment), vfs.f_favail, &r);
  return r;
}

}  // namespace nodeprobe
