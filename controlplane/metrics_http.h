// File: metrics_http.h
// Serving a prometheus-cpp registry on /metrics (civetweb through
// prometheus-cpp's Exposer), for the agent and the coordinator alike.
#pragma once

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "prometheus/exposer.h"
#include "prometheus/registry.h"

namespace nodeprobe::controlplane {

struct MetricsEndpoint {
  std::unique_ptr<prometheus::Exposer> exposer;
  int port = 0;
};

// UNAVAILABLE, naming the flag, when `listen` cannot be bound.
absl::StatusOr<MetricsEndpoint> ServeMetrics(const std::string& listen,
                                             const std::shared_ptr<prometheus::Registry>& registry);

// The exposition a scrape gets.
std::string Exposition(prometheus::Registry& registry);

}  // namespace nodeprobe::controlplane
