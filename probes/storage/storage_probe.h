// File: storage_probe.h
// Probe `storage` (intrusive: it writes gigabytes and loads the storage
// network): the checkpoint and dataset filesystems the profile names in
// storage.paths, each measured in a scratch directory of our own that is
// removed afterwards, also when the probe is killed at its deadline
// (platform/scratch_dir.h): checkpoint write, cold read-back in order and
// at random, and metadata operations (storage_io.h), recorded with the
// filesystem type, source and mount options and judged against the
// profile's bars (storage_judge.h). Without storage.paths it SKIPs.
// A path without room for the checkpoint is refused before anything is
// written (STORAGE_PATH_UNUSABLE): the probe never fills a disk.
#pragma once

#include "probes/framework/probe.h"
#include "probes/storage/storage_arguments.h"

namespace nodeprobe {

class StorageProbe : public Probe {
 public:
  std::string_view name() const override { return "storage"; }
  bool intrusive() const override { return true; }
  std::vector<v1::Stage> stages() const override { return {v1::SINGLE_NODE}; }
  std::vector<const ProbeArgument*> arguments() const override { return {&storage::kWritersNodes}; }
  std::string_view purpose() const override {
    return "checkpoint write, cold dataset read and metadata rates of the profile's "
           "storage.paths";
  }
  absl::StatusOr<v1::ProbeResult> Run(const ProbeContext& ctx) override;
};

}  // namespace nodeprobe
