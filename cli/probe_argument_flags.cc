#include "cli/probe_argument_flags.h"

#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "probes/framework/result_util.h"

namespace nodeprobe::cli {
namespace {

// Names of the probes among `probes` that read the argument called `name`,
// and its declaration (nullptr when none does).
const ProbeArgument* Readers(const std::vector<Probe*>& probes, const std::string& name,
                             std::vector<std::string>* readers) {
  const ProbeArgument* declared = nullptr;
  for (const Probe* p : probes) {
    for (const ProbeArgument* a : p->arguments()) {
      if (a->name != name) continue;
      declared = a;
      if (readers != nullptr) readers->emplace_back(p->name());
    }
  }
  return declared;
}

}  // namespace

void AddProbeArgumentFlags(CLI::App* cmd, const std::vector<Probe*>& probes,
                           std::map<std::string, std::string>* given) {
  std::set<std::string_view> added;
  for (const Probe* p : probes) {
    for (const ProbeArgument* a : p->arguments()) {
      if (a->flag.empty() || !added.insert(a->name).second) continue;
      std::vector<std::string> readers;
      Readers(probes, std::string(a->name), &readers);
      const std::string name(a->name);
      cmd->add_option_function<std::string>(
             std::string(a->flag), [given, name](const std::string& v) { (*given)[name] = v; },
             absl::StrCat(std::string(a->help), " [read by ", absl::StrJoin(readers, ", "), "]"))
          ->type_name(std::string(a->value_name))
          ->check(CLI::Validator(
              [a](std::string& v) -> std::string { return CheckArgumentValue(*a, v); }, ""));
    }
  }
}

std::string CheckArgumentsFitProbes(const std::map<std::string, std::string>& given,
                                    const std::vector<Probe*>& running,
                                    const ProbeRegistry& registry, const std::string& hint) {
  for (const auto& [name, value] : given) {
    if (Readers(running, name, nullptr) != nullptr) continue;
    std::vector<std::string> readers;
    const ProbeArgument* a = Readers(registry.List(), name, &readers);
    std::set<std::string> stages;
    for (const std::string& r : readers) {
      for (v1::Stage s : registry.Find(r)->stages()) stages.insert(StageName(s));
    }
    const std::string label = a == nullptr || a->flag.empty() ? name : std::string(a->flag);
    if (readers.empty()) return absl::StrCat(label, " is read by no probe of this build");
    return absl::StrCat(label, " is read by ", absl::StrJoin(readers, ", "), " (stage ",
                        absl::StrJoin(stages, ", "), "), which this run leaves out",
                        hint.empty() ? "" : ": ", hint);
  }
  return "";
}

}  // namespace nodeprobe::cli
