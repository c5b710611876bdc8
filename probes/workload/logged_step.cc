#include "probes/workload/logged_step.h"

#include <algorithm>
#include <map>
#include <numeric>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"

namespace nodeprobe::workload {
namespace {

// NCCL's name of an operation -> the profile's ("" : not replayed).
std::string OurName(const std::string& nccl) {
  static const std::map<std::string, std::string> kNames = {{"AllReduce", "all_reduce"},
                                                            {"AllGather", "all_gather"},
                                                            {"ReduceScatter", "reduce_scatter"},
                                                            {"Broadcast", "broadcast"},
                                                            {"Send", "send"},
                                                            {"Recv", "recv"}};
  auto it = kNames.find(nccl);
  return it == kNames.end() ? "" : it->second;
}

bool PointToPoint(const std::string& op) { return op == "send" || op == "recv"; }

absl::Status Refuse(std::string why) { return absl::FailedPreconditionError(std::move(why)); }

std::string Ranks(const std::vector<int>& ranks) {
  std::vector<int> shown(ranks.begin(), ranks.begin() + std::min<size_t>(ranks.size(), 8));
  return absl::StrCat(absl::StrJoin(shown, ", "),
                      ranks.size() > shown.size()
                          ? absl::StrCat(" and ", ranks.size() - shown.size(), " more")
                          : "");
}

// The shortest shift under which `seq` agrees with itself in at least 95%
// of the compared places (the later half, so a warm-up before the steps
// does not count), else the best; seq.size() when it is too short.
int Period(const std::vector<uint32_t>& seq) {
  const int n = static_cast<int>(seq.size());
  int best = n;
  double best_agree = 0;
  for (int p = 1; 2 * p <= n; ++p) {
    const int from = n - p >= 4 * p ? (n - p) / 2 : 0;
    const int compared = n - p - from;
    const int allowed = compared - static_cast<int>(0.95 * compared);
    int misses = 0, i = from;
    for (; i < n - p; ++i) {
      if (seq[static_cast<size_t>(i)] != seq[static_cast<size_t>(i + p)] && ++misses > allowed &&
          best_agree >= 0.5) {
        break;  // cannot reach 95%, and a better-than-chance one is known
      }
    }
    if (i < n - p) continue;
    const double agree = 1.0 - static_cast<double>(misses) / compared;
    if (agree >= 0.95) return p;
    if (agree > best_agree) best_agree = agree, best = p;
  }
  return best_agree >= 0.5 ? best : n;
}

class Builder {
 public:
  explicit Builder(const CollLogReader& log) : log_(log) {}

  absl::StatusOr<LoggedJob> Build() {
    if (!log_.status().ok()) return Refuse(std::string(log_.status().message()));
    if (log_.op_lines() == 0) {
      return Refuse(
          log_.init_lines() > 0
              ? "the log has NCCL's Init lines but no operations: run the job with "
                "NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,COLL (COLL prints every operation)"
              : "the log has no NCCL operation lines: run the job with NCCL_DEBUG=INFO "
                "NCCL_DEBUG_SUBSYS=INIT,COLL and give every rank's output");
    }
    if (absl::Status s = Communicators(); !s.ok()) return s;
    if (absl::Status s = OneJob(); !s.ok()) return s;
    if (absl::Status s = Number(); !s.ok()) return s;
    for (size_t r = 0; r < job_.ranks.size(); ++r) {
      if (absl::Status s = Step(static_cast<int>(r)); !s.ok()) return s;
    }
    if (absl::Status s = LinesUp(); !s.ok()) return s;
    if (absl::Status s = NoDeadlock(); !s.ok()) return s;
    return std::move(job_);
  }

 private:
  // The communicators with operations, their members (from Init lines).
  absl::Status Communicators() {
    int unknown = 0;
    std::set<std::string> used;
    for (const CollEndpoint& e : log_.endpoints()) {
      if (e.ops == 0) continue;
      if (e.comm_id.empty() || e.rank < 0) ++unknown;
      used.insert(e.comm_id);
    }
    if (unknown > 0) {
      return Refuse(
          absl::StrCat(unknown,
                       " communicator(s) issued operations but no Init line names them, so their "
                       "ranks are unknown (a log cut from a job's middle): capture from the job's "
                       "start with NCCL_DEBUG_SUBSYS=INIT,COLL"));
    }
    std::vector<bool> nranks_unsaid;  // per communicator: a trace's, which names no size
    for (size_t i = 0; i < log_.endpoints().size(); ++i) {
      const CollEndpoint& e = log_.endpoints()[i];
      if (e.comm_id.empty() || !used.count(e.comm_id) || e.rank_index < 0) continue;
      auto [it, added] = comm_index_.emplace(e.comm_id, static_cast<int>(members_.size()));
      if (added) {
        members_.emplace_back();
        nranks_unsaid.push_back(e.nranks == 0);
        job_.comms.push_back({.name = absl::StrCat("c", job_.comms.size()), .id = e.comm_id});
      }
      const size_t c = static_cast<size_t>(it->second);
      job_.comms[c].nranks = std::max(job_.comms[c].nranks, std::max(e.nranks, e.rank + 1));
      std::vector<int>& m = members_[c];
      if (m.size() <= static_cast<size_t>(e.rank)) m.resize(static_cast<size_t>(e.rank) + 1, -1);
      int& slot = m[static_cast<size_t>(e.rank)];
      if (slot >= 0 && slot != e.rank_index) {
        const CollRank& a = log_.ranks()[static_cast<size_t>(slot)];
        return Refuse(absl::StrCat("communicator ", e.comm_id, " rank ", e.rank,
                                   " appears in two processes (", a.host, ":", a.pid, " and ",
                                   e.host, ":", e.pid,
                                   "): logs of two runs of one job; give one run's logs"));
      }
      slot = e.rank_index;
      endpoint_of_[{e.rank_index, static_cast<int>(c)}] = static_cast<int>(i);
      comm_of_endpoint_[static_cast<int>(i)] = static_cast<int>(c);
    }
    for (size_t c = 0; c < members_.size(); ++c) {
      if (nranks_unsaid[c]) {
        job_.notes.push_back(absl::StrCat("the trace does not say how many ranks ",
                                          job_.comms[c].id, " has: taken as the ",
                                          job_.comms[c].nranks, " seen"));
      }
      members_[c].resize(static_cast<size_t>(job_.comms[c].nranks), -1);
      std::vector<int> missing, present;
      for (size_t r = 0; r < members_[c].size(); ++r) {
        (members_[c][r] < 0 ? missing : present).push_back(static_cast<int>(r));
      }
      if (!missing.empty()) {
        return Refuse(absl::StrCat(
            "communicator ", job_.comms[c].id, " has ", job_.comms[c].nranks,
            " ranks and the log holds rank(s) ", Ranks(present), " only (missing: ", Ranks(missing),
            "): give every rank's log (NCCL_DEBUG_FILE=/path/nccl.%h.%p writes one per process)"));
      }
    }
    return absl::OkStatus();
  }

  // Every rank with operations is linked to every other through shared
  // communicators; two sets that share none are two jobs.
  absl::Status OneJob() {
    std::vector<int> parent(log_.ranks().size());
    std::iota(parent.begin(), parent.end(), 0);
    std::function<int(int)> root = [&](int x) {
      return parent[static_cast<size_t>(x)] == x
                 ? x
                 : parent[static_cast<size_t>(x)] = root(parent[static_cast<size_t>(x)]);
    };
    for (const std::vector<int>& m : members_) {
      for (int r : m) parent[static_cast<size_t>(root(r))] = root(m[0]);
    }
    std::map<int, std::vector<int>> parts;
    for (size_t r = 0; r < log_.ranks().size(); ++r) {
      if (log_.ranks()[r].ops > 0) parts[root(static_cast<int>(r))].push_back(static_cast<int>(r));
    }
    if (parts.size() > 1) {
      std::vector<std::string> said;
      for (const auto& [k, ranks] : parts) {
        const CollRank& a = log_.ranks()[static_cast<size_t>(ranks[0])];
        said.push_back(absl::StrCat(ranks.size(), " rank(s) from ", a.host, ":", a.pid));
      }
      return Refuse(absl::StrCat("the log holds ", parts.size(),
                                 " jobs that share no communicator (", absl::StrJoin(said, "; "),
                                 "): give the logs of one job"));
    }
    return absl::OkStatus();
  }

  // Job ranks: node by node (the stage places ranks so), each host's in the
  // order of a communicator that spans the job, else as first seen.
  absl::Status Number() {
    std::set<int> in_job;
    for (const std::vector<int>& m : members_) in_job.insert(m.begin(), m.end());
    std::vector<int> key(log_.ranks().size());
    std::iota(key.begin(), key.end(), 0);
    bool world = false;
    for (const std::vector<int>& m : members_) {
      if (m.size() != in_job.size()) continue;
      for (size_t r = 0; r < m.size(); ++r) key[static_cast<size_t>(m[r])] = static_cast<int>(r);
      world = true;
      break;
    }
    if (!world) {
      job_.notes.push_back(
          "no communicator spans every rank: job ranks are numbered by host, then as first seen");
    }
    std::map<std::string, int> host_first;
    for (int r : in_job) {
      const std::string& h = log_.ranks()[static_cast<size_t>(r)].host;
      auto it = host_first.find(h);
      if (it == host_first.end() || key[static_cast<size_t>(r)] < it->second)
        host_first[h] = key[static_cast<size_t>(r)];
    }
    std::vector<int> order(in_job.begin(), in_job.end());
    std::sort(order.begin(), order.end(), [&](int a, int b) {
      const auto ka = std::make_pair(host_first[log_.ranks()[static_cast<size_t>(a)].host],
                                     key[static_cast<size_t>(a)]);
      const auto kb = std::make_pair(host_first[log_.ranks()[static_cast<size_t>(b)].host],
                                     key[static_cast<size_t>(b)]);
      return ka < kb;
    });
    job_rank_.assign(log_.ranks().size(), -1);
    std::map<std::string, int> per_host;
    for (int r : order) {
      const CollRank& cr = log_.ranks()[static_cast<size_t>(r)];
      job_rank_[static_cast<size_t>(r)] = static_cast<int>(job_.ranks.size());
      job_.ranks.push_back(
          {.host = cr.host, .pid = cr.pid, .cuda_dev = cr.cuda_dev, .ops = cr.ops});
      reader_rank_.push_back(r);
      if (per_host[cr.host]++ == 0) job_.hosts.push_back(cr.host);
    }
    job_.ranks_per_node = per_host.begin()->second;
    for (const auto& [host, n] : per_host) {
      if (n != job_.ranks_per_node) {
        return Refuse(absl::StrCat("the hosts ran different numbers of ranks (",
                                   per_host.begin()->first, ": ", job_.ranks_per_node, ", ", host,
                                   ": ", n, "); the replay places the same number on each node"));
      }
    }
    for (size_t c = 0; c < members_.size(); ++c) {
      std::vector<int> ranks;
      for (int r : members_[c]) ranks.push_back(job_rank_[static_cast<size_t>(r)]);
      job_.step.communicators.push_back({job_.comms[c].name, ranks});
    }
    job_.step.programs.resize(job_.ranks.size());
    return absl::OkStatus();
  }

  // The rank's step: the cut, the period, the last period's ops.
  absl::Status Step(int job_rank) {
    const int x = reader_rank_[static_cast<size_t>(job_rank)];
    const CollRank& r = log_.ranks()[static_cast<size_t>(x)];
    std::map<int, uint64_t> ordinal = r.before_tail;
    size_t cut = r.tail.size();
    for (size_t j = 0; j < r.tail.size(); ++j) {
      const int e = log_.ops()[r.tail[j]].endpoint;
      if (++ordinal[e] > Common(comm_of_endpoint_.at(e))) {
        cut = j;
        break;
      }
    }
    const std::vector<uint32_t> seq(r.tail.begin(), r.tail.begin() + static_cast<long>(cut));
    LoggedRankSummary& s = job_.ranks[static_cast<size_t>(job_rank)];
    if (seq.empty()) {
      return Refuse(absl::StrCat("rank ", job_rank, " (", r.host, ":", r.pid,
                                 ") issued no operation its communicators' other ranks issued "
                                 "too: give logs of the same run"));
    }
    const int p = Period(seq);
    const uint64_t before = r.ops - r.tail.size();
    s.step_ops = p;
    s.steps_seen = static_cast<int>((before + seq.size()) / static_cast<uint64_t>(p));
    int equal = 0, windows = 0;
    for (size_t end = seq.size(); end >= static_cast<size_t>(2 * p);
         end -= static_cast<size_t>(p)) {
      ++windows;
      equal += std::equal(seq.end() - p, seq.end(), seq.begin() + static_cast<long>(end) - 2 * p);
    }
    s.agreement = windows == 0 ? 1.0 : static_cast<double>(equal) / windows;
    if (windows > 0 && s.agreement < 0.5) {
      return Refuse(absl::StrFormat(
          "rank %d's ops do not repeat as a training step's do: its last %d op(s) match %.0f%% of "
          "the earlier windows (a sweep of sizes such as nccl-tests, or a job that changed its "
          "shape): give a log of steady training steps",
          job_rank, p, 100 * s.agreement));
    }
    std::vector<LoggedOp>& program = job_.step.programs[static_cast<size_t>(job_rank)];
    for (auto it = seq.end() - p; it != seq.end(); ++it) {
      const CollOp& op = log_.ops()[*it];
      const int c = comm_of_endpoint_.at(op.endpoint);
      LoggedOp out{.comm = job_.comms[static_cast<size_t>(c)].name, .op = OurName(op.name)};
      if (out.op.empty()) {
        return Refuse(absl::StrCat("the step has ", op.name,
                                   " operations, which the workload stage does not replay (it runs "
                                   "AllReduce, AllGather, ReduceScatter, Broadcast, Send, Recv)"));
      }
      if (op.bytes == 0 && op.count > 0) {
        return Refuse(absl::StrCat("rank ", job_rank, ": ", op.name, " with datatype ", op.datatype,
                                   ", which NCCL's headers this reader knows do not define"));
      }
      const int n = job_.comms[static_cast<size_t>(c)].nranks;
      out.bytes = op.bytes * (out.op == "all_gather" || out.op == "reduce_scatter" ? n : 1);
      if (PointToPoint(out.op) || out.op == "broadcast") {
        if (op.root < 0 || op.root >= n) {
          return Refuse(absl::StrCat("rank ", job_rank, ": ", op.name, " names rank ", op.root,
                                     " of a ", n, "-rank communicator"));
        }
        out.peer = job_rank_[static_cast<size_t>(
            members_[static_cast<size_t>(c)][static_cast<size_t>(op.root)])];
      }
      program.push_back(std::move(out));
    }
    return absl::OkStatus();
  }

  // Ops every member of communicator `c` issued on it.
  uint64_t Common(int c) {
    auto it = common_.find(c);
    if (it != common_.end()) return it->second;
    uint64_t least = UINT64_MAX;
    for (int m : members_[static_cast<size_t>(c)]) {
      least = std::min(least, log_.endpoints()[static_cast<size_t>(endpoint_of_.at({m, c}))].ops);
    }
    return common_[c] = least;
  }

  // Each communicator's members run the same collectives in one order;
  // each send has its receive.
  absl::Status LinesUp() {
    std::map<std::string, std::vector<std::vector<std::string>>> collectives;  // comm -> per member
    std::map<std::tuple<std::string, int, int>, std::vector<uint64_t>> sent, received;
    for (const auto& [name, ranks] : job_.step.communicators) {
      for (int r : ranks) {
        std::vector<std::string> seen;
        for (const LoggedOp& op : job_.step.programs[static_cast<size_t>(r)]) {
          if (op.comm == name && !PointToPoint(op.op)) {
            seen.push_back(absl::StrCat(op.op, " ", op.bytes,
                                        op.peer >= 0 ? absl::StrCat(" root ", op.peer) : ""));
          }
        }
        if (!collectives[name].empty() && seen != collectives[name].front()) {
          return Refuse(absl::StrCat(
              "the ranks' steps do not line up on ", name, " (", "rank ", ranks[0], " runs ",
              collectives[name].front().size(), " collective(s) on it per step, rank ", r, " ",
              seen.size(),
              (seen.size() == collectives[name].front().size() ? " different ones" : ""),
              "): give a log of steady training steps from every rank"));
        }
        collectives[name].push_back(std::move(seen));
      }
    }
    for (size_t r = 0; r < job_.step.programs.size(); ++r) {
      for (const LoggedOp& op : job_.step.programs[r]) {
        if (op.op == "send") sent[{op.comm, static_cast<int>(r), op.peer}].push_back(op.bytes);
        if (op.op == "recv") received[{op.comm, op.peer, static_cast<int>(r)}].push_back(op.bytes);
      }
    }
    if (sent != received) {
      for (const auto& [key, bytes] : sent) {
        if (received[key] != bytes) {
          return Refuse(absl::StrCat("rank ", std::get<1>(key), " sends ", bytes.size(),
                                     " message(s) per step to rank ", std::get<2>(key), " on ",
                                     std::get<0>(key), " and rank ", std::get<2>(key), " receives ",
                                     received[key].size(), " as sent"));
        }
      }
      return Refuse("a rank receives per step what no rank sends it: give every rank's log");
    }
    return absl::OkStatus();
  }

  // Runs the step as the replay does (a collective waits for all its
  // members, a receive for its send, a send does not wait): it must end.
  absl::Status NoDeadlock() {
    const auto& programs = job_.step.programs;
    std::map<std::string, std::vector<int>> comm_members(job_.step.communicators.begin(),
                                                         job_.step.communicators.end());
    std::vector<size_t> at(programs.size(), 0);
    std::map<std::tuple<std::string, int, int>, int> in_flight;  // sends not yet received
    for (bool moved = true; moved;) {
      moved = false;
      for (size_t r = 0; r < programs.size(); ++r) {
        while (at[r] < programs[r].size()) {
          const LoggedOp& op = programs[r][at[r]];
          if (op.op == "send") {
            ++in_flight[{op.comm, static_cast<int>(r), op.peer}];
          } else if (op.op == "recv") {
            int& n = in_flight[{op.comm, op.peer, static_cast<int>(r)}];
            if (n == 0) break;
            --n;
          } else {
            bool all = true;
            for (int m : comm_members[op.comm]) {
              const size_t i = at[static_cast<size_t>(m)];
              const auto& pm = programs[static_cast<size_t>(m)];
              all &= i < pm.size() && pm[i].comm == op.comm && !PointToPoint(pm[i].op);
            }
            if (!all) break;
            for (int m : comm_members[op.comm]) {
              if (m != static_cast<int>(r)) ++at[static_cast<size_t>(m)];
            }
          }
          ++at[r];
          moved = true;
        }
      }
    }
    for (size_t r = 0; r < programs.size(); ++r) {
      if (at[r] < programs[r].size()) {
        const LoggedOp& op = programs[r][at[r]];
        return Refuse(absl::StrCat("replayed op by op, the step would wait forever: rank ", r,
                                   " at op ", at[r], " (", op.comm, " ", op.op,
                                   ") waits for ranks that wait elsewhere (NCCL ran these "
                                   "asynchronously on separate streams; the replay does not yet)"));
      }
    }
    return absl::OkStatus();
  }

  const CollLogReader& log_;
  LoggedJob job_;
  std::map<std::string, int> comm_index_;           // comm id -> index
  std::vector<std::vector<int>> members_;           // [comm][comm rank] -> reader rank
  std::map<std::pair<int, int>, int> endpoint_of_;  // (reader rank, comm) -> endpoint
  std::map<int, int> comm_of_endpoint_;
  std::map<int, uint64_t> common_;
  std::vector<int> job_rank_;     // reader rank -> job rank
  std::vector<int> reader_rank_;  // job rank -> reader rank
};

}  // namespace

absl::StatusOr<LoggedJob> BuildLoggedJob(const CollLogReader& log) { return Builder(log).Build(); }

std::string DescribeLog(const CollLogReader& log) {
  std::string out = absl::StrCat(
      log.lines(), " lines, ", log.op_lines(), " operations, ", log.init_lines(), " Init lines",
      log.garbled_lines() > 0 ? absl::StrCat(", ", log.garbled_lines(), " cut or garbled") : "",
      "\n");
  // Per endpoint: its ops by kind and bytes (distinct ops counted in the
  // ranks' tails: exact while a rank's ops fit in kTailOps).
  std::map<int, std::map<std::pair<std::string, uint64_t>, uint64_t>> kinds;
  for (const CollRank& r : log.ranks()) {
    for (uint32_t i : r.tail) {
      const CollOp& op = log.ops()[i];
      ++kinds[op.endpoint][{op.name, op.bytes}];
    }
  }
  for (size_t e = 0; e < log.endpoints().size(); ++e) {
    const CollEndpoint& ep = log.endpoints()[e];
    if (ep.ops == 0) continue;
    absl::StrAppend(&out, ep.host, ":", ep.pid, " comm ", ep.comm,
                    ep.comm_id.empty() ? " (no Init line: rank unknown)"
                                       : absl::StrCat(" commId ", ep.comm_id, " rank ", ep.rank),
                    " of ", ep.nranks, ": ", ep.ops, " ops");
    std::vector<std::string> parts;
    for (const auto& [k, n] : kinds[static_cast<int>(e)]) {
      parts.push_back(absl::StrCat(n, " ", k.first, " of ", k.second, " B"));
    }
    absl::StrAppend(&out, parts.empty() ? "" : absl::StrCat(" (", absl::StrJoin(parts, ", "), ")"),
                    "\n");
  }
  return out;
}

std::string LoggedWorkloadYaml(const LoggedJob& job, const std::vector<std::string>& sources) {
  std::string out = "# Written by `nodeprobe workload from-nccl-log` from:\n";
  for (const std::string& s : sources) {
    std::string safe = s;
    std::replace_if(
        safe.begin(), safe.end(), [](char c) { return c == '\n' || c == '\r'; }, '?');
    absl::StrAppend(&out, "#   ", safe, "\n");
  }
  absl::StrAppend(&out, "# ", job.ranks.size(), " ranks on ", job.hosts.size(), " host(s) (",
                  absl::StrJoin(job.hosts, ", "), "), ", job.ranks_per_node, " per host.\n");
  for (const LoggedCommSummary& c : job.comms) {
    absl::StrAppend(&out, "#   ", c.name, " is NCCL's communicator ", c.id, " (", c.nranks,
                    " ranks)\n");
  }
  int least_steps = INT32_MAX;
  double least_agree = 1;
  for (const LoggedRankSummary& r : job.ranks) {
    least_steps = std::min(least_steps, r.steps_seen);
    least_agree = std::min(least_agree, r.agreement);
  }
  absl::StrAppend(&out, absl::StrFormat("# Steps seen: %d (the fewest of any rank); the replayed "
                                        "step equals %.0f%% of the earlier ones.\n",
                                        least_steps, 100 * least_agree));
  for (const std::string& n : job.notes) absl::StrAppend(&out, "# Note: ", n, "\n");
  absl::StrAppend(&out,
                  "workload:\n"
                  "  ranks_per_node: ",
                  job.ranks_per_node,
                  "\n"
                  "  # The log has no timestamps: this is the compute before each op.\n"
                  "  compute_ms_per_layer: 1\n"
                  "  communicators:\n");
  for (const auto& [name, ranks] : job.step.communicators) {
    absl::StrAppend(&out, "    ", name, ": [", absl::StrJoin(ranks, ", "), "]\n");
  }
  absl::StrAppend(&out, "  programs:  # one step, each rank's ops in its order\n");
  for (size_t r = 0; r < job.step.programs.size(); ++r) {
    std::vector<std::string> ops;
    for (const LoggedOp& op : job.step.programs[r]) {
      ops.push_back(absl::StrCat(op.comm, " ", op.op, " ", op.bytes,
                                 op.op == "send"        ? absl::StrCat(" to ", op.peer)
                                 : op.op == "recv"      ? absl::StrCat(" from ", op.peer)
                                 : op.op == "broadcast" ? absl::StrCat(" root ", op.peer)
                                                        : ""));
    }
    absl::StrAppend(&out, "    - [", absl::StrJoin(ops, ", "), "]  # rank ", r, ", ",
                    job.ranks[r].host, "\n");
  }
  return out;
}

}  // namespace nodeprobe::workload
