#include "cli/probe_argument_flags.h"

#include <gtest/gtest.h>

#include <set>

#include "cli/run_command.h"
#include "probes/builtin_probes.h"
#include "probes/common/job_arguments.h"
#include "probes/mtu/path_mtu_arguments.h"

namespace nodeprobe::cli {
namespace {

// Each argument name has one declaration however many probes read it, and
// no two arguments share a flag: the CLI's flags come from these.
TEST(ProbeArgumentFlagsTest, EachArgumentIsDeclaredOnce) {
  const ProbeRegistry registry = BuiltinProbes();
  std::map<std::string_view, const ProbeArgument*> by_name;
  std::map<std::string_view, std::string_view> flag_owner;
  for (const Probe* p : registry.List()) {
    for (const ProbeArgument* a : p->arguments()) {
      auto [it, added] = by_name.emplace(a->name, a);
      EXPECT_EQ(it->second, a) << a->name << " declared twice (" << p->name() << ")";
      if (a->flag.empty()) continue;
      auto [f, fresh] = flag_owner.emplace(a->flag, a->name);
      EXPECT_EQ(f->second, a->name) << a->flag;
    }
  }
  EXPECT_GE(by_name.size(), 3u);
  EXPECT_EQ(by_name["gpus_granted"], &job::kGpusGranted);
}

TEST(ProbeArgumentFlagsTest, AFlagIsMadeFromTheDeclarationAndChecked) {
  const ProbeRegistry registry = BuiltinProbes();
  std::map<std::string, std::string> given;
  CLI::App app("t");
  AddProbeArgumentFlags(&app, PreflightProbes(registry, true), &given);
  const char* good[] = {"t", "--gpus", "4", "--mtu-peer", "10.0.0.2:9"};
  app.parse(5, good);
  EXPECT_EQ(given["gpus_granted"], "4");
  EXPECT_EQ(given["mtu_peer"], "10.0.0.2:9");
  const char* bad[] = {"t", "--gpus", "0"};
  CLI::App again("t");
  AddProbeArgumentFlags(&again, PreflightProbes(registry, true), &given);
  EXPECT_THROW(again.parse(3, bad), CLI::ValidationError);
  // A stage's own argument (the storm's writers) has no flag.
  CLI::App all("t");
  AddProbeArgumentFlags(&all, registry.List(), &given);
  for (const CLI::Option* o : all.get_options()) {
    EXPECT_EQ(o->get_name().find("writers"), std::string::npos) << o->get_name();
  }
}

TEST(ProbeArgumentFlagsTest, AnArgumentNoRunningProbeReadsIsRefusedWithItsReaders) {
  const ProbeRegistry registry = BuiltinProbes();
  const std::map<std::string, std::string> peer = {{"mtu_peer", "10.0.0.2"}};
  EXPECT_EQ(CheckArgumentsFitProbes(peer, PreflightProbes(registry, true), registry, ""), "");
  EXPECT_EQ(
      CheckArgumentsFitProbes(peer, PreflightProbes(registry, false), registry, "add --active"),
      "--mtu-peer is read by path-mtu (stage preflight), which this run leaves out: add "
      "--active");
  EXPECT_EQ(CheckArgumentsFitProbes({{"nonsense", "1"}}, {}, registry, ""),
            "nonsense is read by no probe of this build");
}

}  // namespace
}  // namespace nodeprobe::cli
