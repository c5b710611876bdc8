// File: junit_output.h
// JUnit XML for CI systems (Jenkins, GitLab, GitHub's test reporters): one
// testcase per probe result, pair, collective, congestion receiver and
// failure scenario; FAIL is <failure>, ERROR is <error>, SKIP is <skipped>
// (type = the first finding code), WARN passes with its findings in
// <system-out>. Written with libxml2's xmlTextWriter, so escaping is the
// library's.
#pragma once

#include <string>
#include <vector>

#include "nodeprobe/v1/result.pb.h"
#include "nodeprobe/v1/service.pb.h"

namespace nodeprobe::cli {

// `nodeprobe report --format junit`.
std::string JunitRun(const v1::StageRun& run);
// `report --runs A,B,...`: every run's suites, named by run id first.
std::string JunitCampaign(const std::vector<v1::StageRun>& runs);
// `nodeprobe run --stage single-node --format junit`.
std::string JunitReport(const v1::StageReport& report);

}  // namespace nodeprobe::cli
