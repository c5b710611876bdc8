#include "controlplane/metrics_http.h"

#include <exception>

#include "absl/strings/str_cat.h"
#include "prometheus/text_serializer.h"

namespace nodeprobe::controlplane {

absl::StatusOr<MetricsEndpoint> ServeMetrics(
    const std::string& listen, const std::shared_ptr<prometheus::Registry>& registry) {
  MetricsEndpoint e;
  try {
    e.exposer = std::make_unique<prometheus::Exposer>(listen);
  } catch (const std::exception& ex) {
    return absl::UnavailableError(
        absl::StrCat("cannot serve metrics on ", listen, ": ", ex.what(),
                     " (in use? pass another --metrics-listen, or \"\")"));
  }
  e.exposer->RegisterCollectable(registry);
  const std::vector<int> ports = e.exposer->GetListeningPorts();
  e.port = ports.empty() ? 0 : ports.front();
  return e;
}

std::string Exposition(prometheus::Registry& registry) {
  return prometheus::TextSerializer().Serialize(registry.Collect());
}

}  // namespace nodeprobe::controlplane
