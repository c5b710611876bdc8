// File: html_report.h
// The acceptance record of a run as one self-contained HTML file (`report
// --format html`): no network fetch, no CDN; styles, the table sorter and
// the charts (inline SVG) are ours and inside the file. Sections, each with
// its verdict: summary (scope, who, when, the profile with its SHA-256),
// what needs attention (FAIL, then ERROR, then WARN, first on the page),
// nodes x probes, the version matrix with drift, node pairs, collectives
// (busbw vs size), congestion, failure injection, and the exceptions the
// profile applied or let expire. Built as a libxml2 HTML tree, so every
// text and attribute is escaped by the library.
#pragma once

#include <string>
#include <vector>

#include "nodeprobe/v1/record_diff.pb.h"
#include "nodeprobe/v1/service.pb.h"
#include "nodeprobe/v1/trend.pb.h"

namespace nodeprobe::cli {

std::string HtmlRun(const v1::StageRun& run);
// A campaign (`report --runs A,B,...`: single-node, two-node, cluster,
// congestion, failure): the runs with their verdicts, what needs attention
// across all of them first, then each run's record.
std::string HtmlCampaign(const std::vector<v1::StageRun>& runs);

// `evidence --diff OLD NEW --format html` (cli/record_diff_output.h).
std::string HtmlDiff(const v1::RecordDiff& diff);

// `report --trend NODE --format html`: a line per figure over the runs,
// with its class's median and band.
std::string HtmlTrend(const v1::NodeTrend& trend);
// `report --fleet-trend --format html`: per class and figure, the nodes'
// median, lowest and highest over the runs, with the class's band.
std::string HtmlFleetTrend(const v1::FleetTrend& trend);

// Lowercase hex SHA-256 of `data` (OpenSSL's libcrypto).
std::string Sha256Hex(const std::string& data);

}  // namespace nodeprobe::cli
