#include "probes/storage/storage_probe.h"

#include <sys/statvfs.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "platform/cufile.h"
#include "platform/file_tree.h"
#include "platform/gpu_inventory.h"
#include "platform/mount_info.h"
#include "platform/pci_class.h"
#include "platform/pci_sysfs.h"
#include "platform/scratch_dir.h"
#include "probes/framework/result_util.h"
#include "probes/storage/storage_findings.h"
#include "probes/storage/storage_io.h"
#include "probes/storage/storage_judge.h"
#include "probes/storage/storage_profile.h"

namespace nodeprobe {
namespace {

constexpr char kProbe[] = "storage";
constexpr uint64_t kMiB = 1 << 20;

void Unusable(v1::ProbeResult* r, v1::StoragePath* p, std::string why) {
  p->set_error(why);
  AddFinding(r, findings::kStoragePathUnusable.code, p->path(), std::move(why));
}

void NotMeasured(v1::ProbeResult* r, v1::StoragePath* p, const absl::Status& s) {
  p->set_error(std::string(s.message()));
  AddFinding(r, findings::kStorageNotMeasured.code, p->path(), std::string(s.message()));
}

// The first shard into GPU memory with cuFile, where a GPU and libcufile
// are here; otherwise why not, in p->gds().
void MeasureGds(const storage::WriteFigures& w, const storage::IoPlan& plan, int gpus,
                const std::string& proc_root, v1::StoragePath* p) {
  if (gpus == 0) {
    p->set_gds("not measured: no NVIDIA GPU");
    return;
  }
  absl::StatusOr<platform::CuFileRead> gds =
      platform::ReadWithCuFile(w.files[0], 0, plan.block_bytes, proc_root, plan.deadline);
  if (!gds.ok()) {
    p->set_gds(absl::StrCat("not measured: ", gds.status().message()));
    return;
  }
  p->set_gds(absl::StrCat(gds->mode, "; one shard, one thread"));
  p->set_gds_read_gbps(gds->seconds > 0 ? static_cast<double>(gds->bytes) * 8 / 1e9 / gds->seconds
                                        : 0);
}

void Measure(const std::string& dir, const storage::IoPlan& plan, int metadata_files, int gpus,
             const std::string& proc_root, v1::ProbeResult* r, v1::StoragePath* p) {
  absl::StatusOr<storage::WriteFigures> w = storage::WriteCheckpoint(dir, plan);
  if (!w.ok()) return NotMeasured(r, p, w.status());
  p->set_io_mode(w->direct ? "O_DIRECT" : absl::StrCat("buffered: ", w->direct_refused));
  *p->mutable_write_started() = StampOf(w->started);
  p->set_write_gbps(w->gbps);
  p->set_checkpoint_s(w->checkpoint_s);
  p->set_write_call_p50_ms(w->calls.p50_ms);
  p->set_write_call_p99_ms(w->calls.p99_ms);
  absl::StatusOr<storage::ReadFigures> seq =
      storage::ReadBack(*w, plan, storage::ReadOrder::kSequential);
  if (!seq.ok()) return NotMeasured(r, p, seq.status());
  p->set_cache(seq->cache);
  p->set_read_seq_gbps(seq->gbps);
  p->set_read_call_p99_ms(seq->calls.p99_ms);
  MeasureGds(*w, plan, gpus, proc_root, p);
  absl::StatusOr<storage::ReadFigures> rnd =
      storage::ReadBack(*w, plan, storage::ReadOrder::kRandom);
  if (!rnd.ok()) return NotMeasured(r, p, rnd.status());
  p->set_read_random_gbps(rnd->gbps);
  absl::StatusOr<std::vector<storage::MetadataOp>> md =
      storage::MeasureMetadata(dir, metadata_files, plan.writers, plan.deadline);
  if (!md.ok()) return NotMeasured(r, p, md.status());
  for (const storage::MetadataOp& m : *md) {
    v1::StorageMetadataOp* o = p->add_metadata();
    o->set_op(m.op);
    o->set_layout(m.layout);
    o->set_count(m.count);
    o->set_ops_per_s(m.ops_per_s);
    o->set_p50_ms(m.latency.p50_ms);
    o->set_p99_ms(m.latency.p99_ms);
  }
}

// Why `dir` cannot take `need` bytes and `files` files, each with a tenth
// more kept free, or "". Where the free space cannot be told, nothing is
// written either: the probe never risks filling a disk, nor taking its
// last inodes (a filesystem that counts none, f_files 0, is not judged on
// them).
std::string NoRoom(const std::string& dir, uint64_t need, uint64_t files) {
  struct statvfs vfs;
  if (statvfs(dir.c_str(), &vfs) != 0) {
    return absl::StrCat("cannot tell the free space of ", dir, " (statvfs: ", std::strerror(errno),
                        "): nothing written");
  }
  const uint64_t free_bytes = static_cast<uint64_t>(vfs.f_bavail) * vfs.f_frsize;
  if (free_bytes < need + need / 10) {
    return absl::StrCat(dir, " has ", ByteSize(free_bytes), " free, the checkpoint needs ",
                        ByteSize(need),
                        " and a tenth more kept free: lower storage.shard_mb or "
                        "storage.writers, or free space");
  }
  if (vfs.f_files > 0 && vfs.f_favail < files + files / 10) {
    return absl::StrCat(dir, " has ", vfs.f_favail, " free inodes, the test creates ", files,
                        " files and keeps a tenth more free: lower storage.metadata_files, or "
                        "free inodes");
  }
  return "";
}

void AddMeasurements(const v1::StoragePath& p, v1::ProbeResult* r) {
  const std::map<std::string, std::string> at = {{"path", p.path()}};
  AddMeasurement(r, "storage.checkpoint_write", p.write_gbps(), "Gb/s", at);
  AddMeasurement(r, "storage.checkpoint_time", p.checkpoint_s(), "s", at);
  AddMeasurement(r, "storage.write_call_p99", p.write_call_p99_ms(), "ms", at);
  AddMeasurement(r, "storage.read_sequential", p.read_seq_gbps(), "Gb/s", at);
  AddMeasurement(r, "storage.read_random", p.read_random_gbps(), "Gb/s", at);
  if (p.gds_read_gbps() > 0) AddMeasurement(r, "storage.gds_read", p.gds_read_gbps(), "Gb/s", at);
  for (const v1::StorageMetadataOp& m : p.metadata()) {
    const std::map<std::string, std::string> op = {
        {"path", p.path()}, {"op", m.op()}, {"layout", m.layout()}};
    AddMeasurement(r, "storage.metadata_rate", m.ops_per_s(), "ops/s", op);
    AddMeasurement(r, "storage.metadata_p99", m.p99_ms(), "ms", op);
  }
}

}  // namespace

absl::StatusOr<v1::ProbeResult> StorageProbe::Run(const ProbeContext& ctx) {
  const StorageRules& rules = ctx.profile->Section<StorageRules>();
  if (rules.paths.empty()) {
    return SkipResult(kProbe,
                      "no storage.paths in the profile: name the checkpoint and dataset "
                      "filesystems to measure (`nodeprobe profile --explain`)");
  }
  if (ctx.host.IsCaptured()) {
    return SkipResult(kProbe, "a captured node: storage is measured on the live filesystems");
  }
  storage::IoPlan plan;
  // A checkpoint has a shard per GPU (rank) on the bus.
  const int gpus =
      static_cast<int>(platform::PciGpuAddresses(platform::FileTree(ctx.host.sys_root)).size());
  plan.writers = rules.writers > 0 ? rules.writers : (gpus > 0 ? gpus : 8);
  plan.block_bytes = static_cast<uint32_t>(rules.block_kb) * 1024;
  // Whole 4 KiB pages, at least one block: what O_DIRECT moves.
  plan.shard_bytes = std::max<uint64_t>(static_cast<uint64_t>(rules.shard_mb * kMiB) / 4096 * 4096,
                                        plan.block_bytes);
  plan.deadline = ctx.deadline;
  const std::vector<platform::Mount> mounts = platform::ParseMountInfo(
      platform::FileTree(ctx.host.proc_root).ReadValue("self/mountinfo").value_or(""));

  v1::ProbeResult r;
  r.set_probe(kProbe);
  v1::StorageReport* report = r.mutable_storage();
  for (const std::string& path : rules.paths) {
    v1::StoragePath* p = report->add_paths();
    p->set_path(path);
    p->set_writers(plan.writers);
    p->set_shard_bytes(plan.shard_bytes);
    p->set_block_bytes(plan.block_bytes);
    char* real = realpath(path.c_str(), nullptr);
    if (real == nullptr) {
      Unusable(&r, p,
               absl::StrCat(path, ": ", std::strerror(errno),
                            " (is the filesystem mounted? fix storage.paths)"));
      continue;
    }
    const std::string dir = real;
    std::free(real);
    if (std::optional<platform::Mount> m = platform::MountOf(mounts, dir)) {
      p->set_filesystem(m->type);
      p->set_source(m->source);
      p->set_options(m->options);
    }
    // In a storm on a shared filesystem every node's checkpoint lands here.
    const int64_t writers_nodes = ctx.arguments.Whole(storage::kWritersNodes, 1);
    const uint64_t need = (plan.shard_bytes * static_cast<uint64_t>(plan.writers) +
                           static_cast<uint64_t>(rules.metadata_files) * 8192) *
                          static_cast<uint64_t>(writers_nodes);
    const uint64_t files = static_cast<uint64_t>(rules.metadata_files) +
                           static_cast<uint64_t>(plan.writers) + 8;  // shards, scratch
    if (std::string no_room = NoRoom(dir, need, files); !no_room.empty()) {
      if (writers_nodes > 1) {
        absl::StrAppend(&no_room, " (", writers_nodes,
                        " nodes write this shared filesystem at once)");
      }
      Unusable(&r, p, no_room);
      continue;
    }
    absl::StatusOr<platform::ScratchDir> scratch =
        platform::ScratchDir::Create(dir, ".nodeprobe-storage-");
    if (!scratch.ok()) {
      Unusable(&r, p, std::string(scratch.status().message()));
      continue;
    }
    Measure(scratch->path(), plan, rules.metadata_files, gpus, ctx.host.proc_root, &r, p);
    if (p->error().empty()) {
      AddMeasurements(*p, &r);
      storage::JudgeStoragePath(*p, rules, &r);
    }
  }
  return r;
}

}  // namespace nodeprobe
