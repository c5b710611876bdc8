// File: identifiers.h
// The one rule for names that reach a file path, a log line, a list flag
// or a report: node names, run ids, rail names. Enforced where a name
// enters (agent registration, command-line flags, JSON imports), so that
// nothing downstream has to guess what a name may hold.
//
// A node name is what Kubernetes accepts as a node name (an RFC 1123 DNS
// subdomain: labels of letters, digits and '-', joined by '.') widened to
// what real hostnames and Slurm node names also use: upper case and '_'.
// It starts and ends with a letter or digit, is at most 253 characters,
// each '.'-separated label at most 63. No space, comma (list flags split on
// it), slash (paths), control or non-ASCII character (terminals, bidi
// text) can be in one. Run ids follow the same rule; rail names may also
// hold ':' (mlx5_0:1).
#pragma once

#include <string_view>

#include "absl/status/status.h"

namespace nodeprobe::platform {

bool IsValidNodeName(std::string_view name);
bool IsValidRailName(std::string_view name);

// OK, or INVALID_ARGUMENT: "<what> '<name, escaped>' is not a valid name:
// <why>; use letters, digits, '-', '_' and '.', starting and ending with a
// letter or digit".
absl::Status CheckNodeName(std::string_view what, std::string_view name);
absl::Status CheckRailName(std::string_view what, std::string_view name);

}  // namespace nodeprobe::platform
