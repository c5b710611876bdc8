#!/usr/bin/env bash
# The README's "add a probe" and "add a stage" walkthroughs, proved: in a
# temporary copy of the tree, a throwaway probe `demo` with one finding
# (DEMO_OVER_LIMIT), one profile key (demo.limit) and one argument of its
# own (--demo-extra, read as ctx.arguments) is added as its folder
# plus one Register() line in probes/builtin_probes.cc, and a throwaway
# stage `demo-stage` with one finding (DEMO_STAGE_SKEWED) as its folder
# under coordinator/stages/ plus one Register() line in builtin_stages.cc
# -- nothing else is edited -- and the copy is configured and built. The
# new binary must list the probe, both findings, the key and the flag, and
# judge a profile with the key and the flag.
# Usage: scripts/dry_run_add_probe.sh [KEEP_DIR]   (needs scripts/setup.sh's packages)
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
work=${1:-$(mktemp -d)}
trap '[[ -n "${1:-}" ]] || rm -rf "$work"' EXIT
mkdir -p "$work/tree"
git -C "$src" ls-files -z | (cd "$src" && xargs -0 cp --parents -t "$work/tree")
tree=$work/tree
before=$(cd "$tree" && find . -type f | sort | xargs sha256sum)

mkdir -p "$tree/probes/demo"
cat > "$tree/probes/demo/CMakeLists.txt" <<'CM'
# A throwaway probe (scripts/dry_run_add_probe.sh).
np_probe_library(NAME np_probe_demo
  HEADERS probes/demo/demo_probe.h
  SRCS demo_probe.cc
  DEPS np_probe_framework)
np_findings(SRCS demo_findings.cc FUNCTION DemoFindings)
np_profile_section(SRCS demo_profile.cc FUNCTION DemoProfileSection)
CM
cat > "$tree/probes/demo/demo_findings.h" <<'H'
#pragma once
#include "probes/framework/finding_codes.h"
namespace nodeprobe::findings {
inline constexpr FindingCode kDemoOverLimit = {
    "DEMO_OVER_LIMIT", v1::WARN, "demo", "the demo figure is above the profile's demo.limit",
    "nothing: this probe is a dry run of adding one"};
}  // namespace nodeprobe::findings
H
cat > "$tree/probes/demo/demo_findings.cc" <<'CC'
#include "probes/demo/demo_findings.h"
namespace nodeprobe {
std::vector<FindingCode> DemoFindings() { return {findings::kDemoOverLimit}; }
}  // namespace nodeprobe
CC
cat > "$tree/probes/demo/demo_profile.cc" <<'CC'
#include "absl/strings/str_cat.h"
#include "probes/demo/demo_probe.h"
#include "probes/framework/profile.h"
#include "probes/framework/profile_section.h"
namespace nodeprobe {
ProfileSection DemoProfileSection() {
  return DeclareSection<DemoRules>(
      {{"demo.limit", "number", absl::StrCat(DemoRules{}.limit), "the demo's bar"}},
      [](const ProfileReader& r, const std::string& key, const YAML::Node& v, DemoRules& into) {
        absl::StatusOr<double> n = r.Number(v, "demo." + key);
        if (!n.ok()) return n.status();
        into.limit = *n;
        return absl::OkStatus();
      });
}
}  // namespace nodeprobe
CC
cat > "$tree/probes/demo/demo_probe.h" <<'H'
#pragma once
#include "probes/framework/probe.h"
namespace nodeprobe {
struct DemoRules {
  static constexpr char kSection[] = "demo";
  double limit = 1;
};
inline constexpr ProbeArgument kDemoExtra = {
    .name = "demo_extra", .flag = "--demo-extra", .value_name = "N",
    .help = "added to the demo figure (dry run)", .min = 0, .max = 100};
class DemoProbe : public Probe {
 public:
  std::string_view name() const override { return "demo"; }
  std::vector<v1::Stage> stages() const override { return {v1::SINGLE_NODE}; }
  std::string_view purpose() const override { return "a throwaway probe (dry run)"; }
  std::vector<const ProbeArgument*> arguments() const override { return {&kDemoExtra}; }
  absl::StatusOr<v1::ProbeResult> Run(const ProbeContext& ctx) override;
};
}  // namespace nodeprobe
H
cat > "$tree/probes/demo/demo_probe.cc" <<'CC'
#include "probes/demo/demo_probe.h"
#include "probes/demo/demo_findings.h"
#include "probes/framework/result_util.h"
namespace nodeprobe {
absl::StatusOr<v1::ProbeResult> DemoProbe::Run(const ProbeContext& ctx) {
  v1::ProbeResult r;
  r.set_probe("demo");
  const double figure = 2 + static_cast<double>(ctx.arguments.Whole(kDemoExtra, 0));
  AddEvidence(&r, "demo.figure", std::to_string(static_cast<int>(figure)));
  if (figure > ctx.profile->Section<DemoRules>().limit) {
    AddFinding(&r, findings::kDemoOverLimit.code, "", "the figure is above demo.limit");
  }
  return r;
}
}  // namespace nodeprobe
CC
mkdir -p "$tree/coordinator/stages/demo"
cat > "$tree/coordinator/stages/demo/CMakeLists.txt" <<'CM'
np_stage(HEADERS coordinator/stages/demo/demo_stage.h SRCS demo_stage.cc)
np_findings(SRCS demo_stage_findings.cc FUNCTION DemoStageFindings)
CM
cat > "$tree/coordinator/stages/demo/demo_stage.h" <<'H'
#pragma once
#include "coordinator/stage.h"
namespace nodeprobe::coordinator {
class DemoStage : public Stage {
 public:
  std::string_view name() const override { return "demo-stage"; }
  bool Applies(const v1::RunStageRequest&) const override { return false; }
  void Measure(const StageContext& ctx) override;
};
}  // namespace nodeprobe::coordinator
H
cat > "$tree/coordinator/stages/demo/demo_stage_findings.h" <<'H'
#pragma once
#include "probes/framework/finding_codes.h"
namespace nodeprobe::findings {
inline constexpr FindingCode kDemoStageSkewed = {
    "DEMO_STAGE_SKEWED", v1::WARN, "demo-stage", "a throwaway stage's finding",
    "nothing: this stage is a dry run of adding one"};
}  // namespace nodeprobe::findings
H
cat > "$tree/coordinator/stages/demo/demo_stage_findings.cc" <<'CC'
#include "coordinator/stages/demo/demo_stage_findings.h"
namespace nodeprobe {
std::vector<FindingCode> DemoStageFindings() { return {findings::kDemoStageSkewed}; }
}  // namespace nodeprobe
CC
cat > "$tree/coordinator/stages/demo/demo_stage.cc" <<'CC'
#include "coordinator/stages/demo/demo_stage.h"
#include "coordinator/stages/demo/demo_stage_findings.h"
#include "probes/framework/result_util.h"
namespace nodeprobe::coordinator {
void DemoStage::Measure(const StageContext& ctx) {
  AddFinding(ctx.run->mutable_findings(), findings::kDemoStageSkewed.code, "", "demo");
}
}  // namespace nodeprobe::coordinator
CC
# The two registration lines, one for each.
sed -i 's|^    r->Register(std::make_unique<CollectivesStage>());|&\n    r->Register(std::make_unique<DemoStage>());|' \
  "$tree/coordinator/stages/builtin_stages.cc"
sed -i 's|^  (void)registry.Register(std::make_unique<FaultCountersProbe>());|&\n  (void)registry.Register(std::make_unique<DemoProbe>());|' \
  "$tree/probes/builtin_probes.cc"

after=$(cd "$tree" && find . -type f -not -path './probes/demo/*' \
  -not -path './coordinator/stages/demo/*' | sort | xargs sha256sum)
edited=$( (diff <(echo "$before") <(echo "$after") || true) | grep '^>' | awk '{print $3}')
echo "files edited outside the new folders: $(echo $edited)"
[[ "$(echo $edited)" == "./coordinator/stages/builtin_stages.cc ./probes/builtin_probes.cc" ]] ||
  { echo "dry run: more than the two Register lines changed" >&2; exit 1; }

export CCACHE_BASEDIR=$work CCACHE_NOHASHDIR=1
cmake -S "$tree" -B "$tree/build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_COMPILER_LAUNCHER=ccache >"$work/configure.log" 2>&1 ||
  { tail -20 "$work/configure.log"; exit 1; }
cmake --build "$tree/build" -j"$(nproc)" --target nodeprobe >"$work/build.log" 2>&1 ||
  { grep -m5 error "$work/build.log"; exit 1; }
bin=$tree/build/bin/nodeprobe
fail() { echo "dry run: $*" >&2; exit 1; }
"$bin" probes >"$work/probes.txt"
"$bin" findings >"$work/findings.txt"
"$bin" profile --explain >"$work/explain.txt"
grep -q '^demo' "$work/probes.txt" || fail "nodeprobe probes does not list demo"
echo "nodeprobe probes: demo listed"
for code in DEMO_OVER_LIMIT DEMO_STAGE_SKEWED; do
  grep -q "^$code" "$work/findings.txt" || fail "nodeprobe findings does not list $code"
  echo "nodeprobe findings: $code listed"
done
grep -q 'demo.limit' "$work/explain.txt" || fail "profile --explain does not list demo.limit"
echo "profile --explain: demo.limit listed"
printf 'demo:\n  limit: 3\n' >"$work/p.yaml"
"$bin" profile --check "$work/p.yaml" >/dev/null || fail "profile --check refused demo.limit"
echo "profile --check: demo.limit accepted"
"$bin" run --stage single-node --probe demo --profile "$work/p.yaml" --format json \
  >"$work/run.json" || true
grep -q '"probe": "demo"' "$work/run.json" || fail "the demo probe did not run"
echo "the probe ran"
"$bin" run --help >"$work/run_help.txt"
grep -q -- '--demo-extra' "$work/run_help.txt" || fail "run --help does not show --demo-extra"
"$bin" run --stage single-node --probe demo --demo-extra 5 --format json >"$work/extra.json" || true
grep -q '"demo.figure": "7"' "$work/extra.json" || fail "--demo-extra did not reach the probe"
echo "run --demo-extra: the probe read its argument"
echo "dry run: OK"
