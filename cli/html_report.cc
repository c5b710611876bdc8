#include "cli/html_report.h"

#include <libxml/HTMLtree.h>
#include <openssl/evp.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/time/time.h"
#include "cli/record_diff_output.h"
#include "cli/run_rendering.h"
#include "cli/safe_text.h"
#include "coordinator/acceptance_gate.h"
#include "coordinator/version_matrix.h"
#include "nodeprobe_version.h"
#include "probes/cabling/cabling_findings.h"
#include "probes/framework/coverage.h"
#include "probes/framework/result_util.h"

namespace nodeprobe::cli {
namespace {

// Print-friendly, no web fonts, verdict colours that survive greyscale by
// their labels.
constexpr char kStyle[] = R"css(
body{font:14px/1.4 system-ui,sans-serif;margin:24px;color:#1d2125;max-width:1200px}
h1{font-size:22px;margin:0 0 4px}h2{font-size:17px;margin:28px 0 8px;border-bottom:1px solid #ccd}
table{border-collapse:collapse;width:100%;margin:6px 0}
th,td{border:1px solid #d5d8dc;padding:3px 6px;text-align:left;vertical-align:top}
th{background:#f1f3f5;cursor:pointer;user-select:none}th.sorted-asc::after{content:" \25B2"}
th.sorted-desc::after{content:" \25BC"}
.v{font-weight:600;padding:1px 6px;border-radius:3px;white-space:nowrap}
.PASS{background:#d3f0da;color:#14532d}.WARN{background:#fdf1c7;color:#713f12}
.FAIL{background:#fbd5d5;color:#7f1d1d}.ERROR{background:#f5d0fe;color:#701a75}
.SKIP,.UNSET{background:#e5e7eb;color:#374151}
.meta td:first-child{width:180px;color:#555}.drift{background:#fdf1c7}
pre{background:#f6f8fa;padding:8px;overflow:auto;font-size:12px}
svg{background:#fff;border:1px solid #d5d8dc;margin:4px 8px 8px 0}
#gate td,#gate th{padding:1px 6px;font-size:13px}#gate td:first-child{width:230px}
#gate td:nth-child(2){width:64px;white-space:nowrap}#gate td:last-child{width:170px;font-size:12px}
#gate p{margin:4px 0}#gate h2{margin-top:14px}
@media print{th{cursor:auto}details{display:block}details>*{display:block}}
)css";

// Sorts a table by the clicked column; numbers numerically. Ours, inline:
// the file works offline and in an archive.
constexpr char kScript[] = R"js(
document.querySelectorAll('table.sortable').forEach(function(t){
  t.querySelectorAll('th').forEach(function(th,i){
    th.addEventListener('click',function(){
      var asc=!th.classList.contains('sorted-asc');
      t.querySelectorAll('th').forEach(function(h){h.classList.remove('sorted-asc','sorted-desc');});
      th.classList.add(asc?'sorted-asc':'sorted-desc');
      var body=t.tBodies[0];var rows=Array.prototype.slice.call(body.rows);
      rows.sort(function(a,b){
        var x=a.cells[i].getAttribute('data-sort')||a.cells[i].textContent;
        var y=b.cells[i].getAttribute('data-sort')||b.cells[i].textContent;
        var nx=parseFloat(x),ny=parseFloat(y);
        var c=(!isNaN(nx)&&!isNaN(ny))?nx-ny:x.localeCompare(y);
        return asc?c:-c;});
      rows.forEach(function(r){body.appendChild(r);});
    });
  });
});
)js";

// A thin layer over libxml2's tree: every string goes in as text or as an
// attribute value, and the library escapes it when the document is written.
class Html {
 public:
  Html() : doc_(htmlNewDocNoDtD(nullptr, nullptr)) {
    xmlCreateIntSubset(doc_, BAD_CAST "html", nullptr, nullptr);  // <!DOCTYPE html>
    root_ = xmlNewNode(nullptr, BAD_CAST "html");
    xmlDocSetRootElement(doc_, root_);
    xmlNewProp(root_, BAD_CAST "lang", BAD_CAST "en");
  }
  ~Html() { xmlFreeDoc(doc_); }
  Html(const Html&) = delete;
  Html& operator=(const Html&) = delete;

  xmlNodePtr root() { return root_; }
  // Text and attribute values go through EscapeControls: libxml2 escapes
  // markup, not controls or bidirectional overrides (U+202E would reverse
  // what the reader sees).
  static xmlNodePtr El(xmlNodePtr parent, const char* name, const std::string& text = "") {
    xmlNodePtr n = xmlNewChild(parent, nullptr, BAD_CAST name, nullptr);
    if (!text.empty()) xmlAddChild(n, xmlNewText(BAD_CAST EscapeControls(text, true).c_str()));
    return n;
  }
  static void Attr(xmlNodePtr n, const char* name, const std::string& value) {
    xmlNewProp(n, BAD_CAST name, BAD_CAST EscapeControls(value, true).c_str());
  }
  static void Text(xmlNodePtr n, const std::string& text) {
    xmlAddChild(n, xmlNewText(BAD_CAST EscapeControls(text, true).c_str()));
  }
  // Content of <style> and <script>, which libxml2's HTML writer leaves
  // unescaped (constants of this file only).
  static void Raw(xmlNodePtr n, const char* content) {
    xmlAddChild(n, xmlNewText(BAD_CAST content));
  }
  std::string Write() {
    xmlChar* mem = nullptr;
    int size = 0;
    htmlDocDumpMemoryFormat(doc_, &mem, &size, 1);
    std::string out(reinterpret_cast<const char*>(mem), static_cast<size_t>(size));
    xmlFree(mem);
    return out;
  }

 private:
  xmlDocPtr doc_;
  xmlNodePtr root_;
};

xmlNodePtr Badge(xmlNodePtr parent, v1::Verdict v) {
  xmlNodePtr s = Html::El(parent, "span", VerdictName(v));
  Html::Attr(s, "class", absl::StrCat("v ", VerdictName(v)));
  return s;
}

// Where a run's section is: "run-<id>-<section>", so that a campaign's runs
// keep apart and the gate can link to what it rests on.
std::string AnchorOf(const std::string& run_id, const std::string& section) {
  std::string id = absl::StrCat("run-", run_id, "-", section);
  for (char& c : id) {
    if (!absl::ascii_isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_') c = '-';
  }
  return id;
}

xmlNodePtr Section(xmlNodePtr body, const std::string& title, v1::Verdict v,
                   const std::string& id = "") {
  xmlNodePtr sec = Html::El(body, "section");
  if (!id.empty()) Html::Attr(sec, "id", id);
  xmlNodePtr h = Html::El(sec, "h2", title + " ");
  Badge(h, v);
  return sec;
}

xmlNodePtr Table(xmlNodePtr parent, const std::vector<std::string>& head) {
  xmlNodePtr t = Html::El(parent, "table");
  Html::Attr(t, "class", "sortable");
  xmlNodePtr tr = Html::El(Html::El(t, "thead"), "tr");
  for (const std::string& h : head) Html::El(tr, "th", h);
  return Html::El(t, "tbody");
}

xmlNodePtr Row(xmlNodePtr tbody, const std::vector<std::string>& cells) {
  xmlNodePtr tr = Html::El(tbody, "tr");
  for (const std::string& c : cells) Html::El(tr, "td", c);
  return tr;
}

// A verdict cell, sortable by rank (FAIL first when sorted descending).
void VerdictCell(xmlNodePtr tr, v1::Verdict v) {
  xmlNodePtr td = Html::El(tr, "td");
  Html::Attr(td, "data-sort", absl::StrCat(VerdictRank(v)));
  Badge(td, v);
}

struct Attention {
  v1::Verdict severity;
  std::string where;
  std::string what;
  const v1::Finding* finding;
};

void Collect(std::vector<Attention>* out, const std::string& where, const std::string& what,
             const google::protobuf::RepeatedPtrField<v1::Finding>& findings) {
  for (const v1::Finding& f : findings) {
    if (f.severity() == v1::FAIL || f.severity() == v1::ERROR || f.severity() == v1::WARN) {
      out->push_back({f.severity(), where, what, &f});
    }
  }
}

google::protobuf::Timestamp TimestampOf(double seconds) {
  google::protobuf::Timestamp t;
  t.set_seconds(static_cast<int64_t>(seconds));
  return t;
}

std::string Time(const google::protobuf::Timestamp& t) {
  if (t.seconds() == 0) return "-";
  return absl::FormatTime("%Y-%m-%d %H:%M:%S UTC", absl::FromUnixSeconds(t.seconds()),
                          absl::UTCTimeZone());
}

// A shaded span of x on a chart (a burst's steps), with its name.
struct ChartBand {
  double from = 0, to = 0;
  std::string label;
};
void DrawBand(xmlNodePtr svg, double x1, double x2, double top, double bottom,
              const std::string& label) {
  xmlNodePtr r = Html::El(svg, "rect");
  Html::Attr(r, "x", absl::StrFormat("%.1f", x1));
  Html::Attr(r, "y", absl::StrFormat("%.1f", top));
  Html::Attr(r, "width", absl::StrFormat("%.1f", std::max(1.0, x2 - x1)));
  Html::Attr(r, "height", absl::StrFormat("%.1f", bottom - top));
  Html::Attr(r, "fill", "#f4c542");
  Html::Attr(r, "fill-opacity", "0.3");
  Html::El(r, "title", label);
}

// Lines of (x, y) points, one per named series, from 0 up on y; the x
// axis's two ends labelled by `x_label`; `band` shaded behind them.
using ChartSeries = std::map<std::string, std::vector<std::pair<double, double>>>;
void LineChart(xmlNodePtr parent, const std::string& title, ChartSeries series,
               const std::function<std::string(double)>& x_label,
               const std::optional<ChartBand>& band = std::nullopt) {
  double max_y = 0, min_x = 1e18, max_x = -1e18;
  for (const auto& [name, pts] : series) {
    for (const auto& [x, y] : pts) {
      max_y = std::max(max_y, y);
      min_x = std::min(min_x, x);
      max_x = std::max(max_x, x);
    }
  }
  if (series.empty() || min_x > max_x) return;
  const double w = 520, h = 240, l = 48, b = 28, t = 12, rgt = 120;
  if (max_x <= min_x) max_x = min_x + 1;
  if (max_y <= 0) max_y = 1;
  auto px = [&](double x) { return l + (x - min_x) / (max_x - min_x) * (w - l - rgt); };
  auto py = [&](double y) { return h - b - y / max_y * (h - b - t); };
  xmlNodePtr svg = Html::El(parent, "svg");
  Html::Attr(svg, "width", absl::StrCat(w));
  Html::Attr(svg, "height", absl::StrCat(h));
  Html::Attr(svg, "role", "img");
  Html::El(svg, "title", title);
  if (band) DrawBand(svg, px(band->from), px(band->to), t, h - b, band->label);
  auto line = [&](double x1, double y1, double x2, double y2, const char* color) {
    xmlNodePtr ln = Html::El(svg, "line");
    Html::Attr(ln, "x1", absl::StrFormat("%.1f", x1));
    Html::Attr(ln, "y1", absl::StrFormat("%.1f", y1));
    Html::Attr(ln, "x2", absl::StrFormat("%.1f", x2));
    Html::Attr(ln, "y2", absl::StrFormat("%.1f", y2));
    Html::Attr(ln, "stroke", color);
  };
  auto text = [&](double x, double y, const std::string& s, const char* anchor) {
    xmlNodePtr tx = Html::El(svg, "text", s);
    Html::Attr(tx, "x", absl::StrFormat("%.1f", x));
    Html::Attr(tx, "y", absl::StrFormat("%.1f", y));
    Html::Attr(tx, "font-size", "10");
    Html::Attr(tx, "text-anchor", anchor);
  };
  line(l, h - b, w - rgt, h - b, "#555");
  line(l, t, l, h - b, "#555");
  text(l - 4, t + 8, absl::StrFormat("%.1f", max_y), "end");
  text(l - 4, h - b, "0", "end");
  text(l, h - b + 14, x_label(min_x), "start");
  text(w - rgt, h - b + 14, x_label(max_x), "end");
  static const char* kColors[] = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd",
                                  "#ff7f0e", "#8c564b", "#17becf"};
  int i = 0;
  for (auto& [name, pts] : series) {
    std::sort(pts.begin(), pts.end());
    const char* color = kColors[i % 7];
    std::string points;
    for (const auto& [x, y] : pts) absl::StrAppend(&points, absl::StrFormat("%.1f,%.1f ", px(x), py(y)));
    xmlNodePtr pl = Html::El(svg, "polyline");
    Html::Attr(pl, "points", points);
    Html::Attr(pl, "fill", "none");
    Html::Attr(pl, "stroke", color);
    Html::Attr(pl, "stroke-width", "2");
    xmlNodePtr key = Html::El(svg, "text", name);
    Html::Attr(key, "x", absl::StrFormat("%.1f", w - rgt + 8));
    Html::Attr(key, "y", absl::StrFormat("%.1f", t + 12.0 + 14 * i));
    Html::Attr(key, "font-size", "11");
    Html::Attr(key, "fill", color);
    ++i;
  }
}

// busbw against size, one line per collective, log2 x axis.
void CollectiveChart(xmlNodePtr parent, const v1::CollectiveReport& c) {
  ChartSeries series;
  for (const v1::CollectiveRow& r : c.rows()) {
    if (r.size() == 0) continue;
    series[r.collective()].push_back({std::log2(static_cast<double>(r.size())), r.busbw_gbps()});
  }
  LineChart(parent, "bus bandwidth (GB/s) by message size (bytes)", std::move(series),
            [](double x) { return absl::StrCat(static_cast<uint64_t>(std::exp2(x)), " B"); });
}

// A soak's figures over time, one line per direction.
void SoakChart(xmlNodePtr parent, const v1::SoakReport& soak) {
  ChartSeries series;
  for (const v1::SoakSeries& s : soak.series()) {
    auto& pts = series[absl::StrCat(s.from_node(), "->", s.to_node())];
    for (const v1::SoakPoint& p : s.points()) pts.push_back({p.at_s(), p.gbps()});
  }
  LineChart(parent, "transfer bandwidth (Gb/s) over the soak (seconds since the start)",
            std::move(series), [](double x) { return absl::StrFormat("%.0f s", x); });
}

// Per rank (rows) and step (columns), its wait for its groups' last
// arrival: darker is longer. The late rank is the pale row (it waits
// least) among dark ones; a rank late only sometimes shows as pale cells.
void WaitHeatmap(xmlNodePtr parent, const v1::WorkloadReport& w) {
  double most = 0;
  size_t steps = 0;
  for (const v1::WorkloadReport::RankWaits& r : w.waits()) {
    for (double ms : r.wait_ms()) most = std::max(most, ms);
    steps = std::max(steps, static_cast<size_t>(r.wait_ms_size()));
  }
  if (steps == 0 || w.waits_size() == 0) return;
  const double cell_w = std::max(4.0, std::min(24.0, 480.0 / static_cast<double>(steps)));
  const double cell_h = std::max(4.0, std::min(16.0, 320.0 / w.waits_size())), left = 150;
  xmlNodePtr svg = Html::El(parent, "svg");
  Html::Attr(svg, "width", absl::StrFormat("%.0f", left + cell_w * static_cast<double>(steps) + 8));
  Html::Attr(svg, "height", absl::StrFormat("%.0f", cell_h * w.waits_size() + 8));
  Html::Attr(svg, "role", "img");
  Html::El(svg, "title",
           absl::StrFormat("each rank's wait per step (ms, darkest %.2f ms): the late rank waits "
                           "least",
                           most));
  for (int r = 0; r < w.waits_size(); ++r) {
    xmlNodePtr label =
        Html::El(svg, "text",
                 absl::StrCat("rank ", r, r < w.rank_nodes_size() ? " " + w.rank_nodes(r) : "",
                              r == w.late_rank() ? " (late)" : ""));
    Html::Attr(label, "x", "2");
    Html::Attr(label, "y", absl::StrFormat("%.1f", cell_h * (r + 1) - 1));
    Html::Attr(label, "font-size", absl::StrFormat("%.0f", std::min(11.0, cell_h)));
    for (int s = 0; s < w.waits(r).wait_ms_size(); ++s) {
      const double share = most > 0 ? w.waits(r).wait_ms(s) / most : 0;
      xmlNodePtr cell = Html::El(svg, "rect");
      Html::Attr(cell, "x", absl::StrFormat("%.1f", left + cell_w * s));
      Html::Attr(cell, "y", absl::StrFormat("%.1f", cell_h * r));
      Html::Attr(cell, "width", absl::StrFormat("%.1f", cell_w));
      Html::Attr(cell, "height", absl::StrFormat("%.1f", cell_h));
      Html::Attr(cell, "fill",
                 absl::StrFormat("rgb(%d,%d,255)", static_cast<int>(235 - 200 * share),
                                 static_cast<int>(240 - 200 * share)));
    }
  }
}

void WorkloadSection(xmlNodePtr body, const v1::StageRun& run) {
  const v1::WorkloadReport& w = run.workload();
  xmlNodePtr sec = Section(body, absl::StrCat("Workload: ", w.shape()), w.verdict(),
                           AnchorOf(run.run_id(), "workload"));
  ChartSeries series;
  for (int s = 0; s < w.step_ms_size(); ++s) series["step"].push_back({s + 1.0, w.step_ms(s)});
  std::optional<ChartBand> band;
  if (w.has_burst()) {  // steps are drawn from 1: the window's first to its last
    band = ChartBand{w.burst().at_step() + 1.0, w.burst().at_step() + 1.0 + w.burst().steps() - 1,
                     absl::StrCat(w.burst().kind(), " burst")};
  }
  LineChart(
      sec, "step time (ms) over the measured steps", std::move(series),
      [](double x) { return absl::StrFormat("step %.0f", x); }, band);
  WaitHeatmap(sec, w);
  xmlNodePtr ul = Html::El(sec, "ul");
  for (const std::string& line : WorkloadLines(w)) Html::El(ul, "li", line);
}

}  // namespace

std::string Sha256Hex(const std::string& data) {
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  if (EVP_Digest(data.data(), data.size(), md, &len, EVP_sha256(), nullptr) != 1) return "";
  std::string hex;
  for (unsigned int i = 0; i < len; ++i) absl::StrAppend(&hex, absl::StrFormat("%02x", md[i]));
  return hex;
}

namespace {

// Beside the verdict in a record's title: the gate's state, in words a
// reader who stops there cannot take for an acceptance.
void GateBadge(xmlNodePtr heading, const v1::GateChecklist& gate) {
  xmlNodePtr b =
      Html::El(heading, "span",
               gate.complete() ? " production gate complete" : " production gate incomplete");
  Html::Attr(b, "class", absl::StrCat("v ", gate.complete() ? "PASS" : "FAIL"));
}

// The run's scope, who, when and the profile that judged it.
// The run's heading: id, verdict, and how much was judged right under it
// (a PASS over skips validated nothing).
void RunHeading(xmlNodePtr body, const v1::StageRun& run, const char* heading,
                const std::string& title, const v1::GateChecklist* gate = nullptr) {
  xmlNodePtr h1 = Html::El(body, heading, absl::StrCat(title, run.run_id(), " "));
  Badge(h1, run.verdict());
  if (gate != nullptr) GateBadge(h1, *gate);
  xmlNodePtr judged = Html::El(body, "p", CoverageLine(CoverageOf(run), "results"));
  Html::Attr(judged, "class", "coverage");
}

// The production gate, first: what the record shows of each item, what it
// rests on (links into the record), and what is missing.
void GateSection(xmlNodePtr body, const v1::GateChecklist& gate) {
  xmlNodePtr sec = Html::El(body, "section");
  Html::Attr(sec, "id", "gate");
  xmlNodePtr h = Html::El(sec, "h2", "Production gate ");
  xmlNodePtr badge = Html::El(h, "span", gate.complete() ? "complete" : "incomplete");
  Html::Attr(badge, "class", absl::StrCat("v ", gate.complete() ? "PASS" : "FAIL"));
  Html::Attr(Html::El(sec, "p", gate.headline()), "class", "gate-headline");
  Html::El(sec, "p", absl::StrCat("Organisational items from the profile: ", gate.profile()));
  xmlNodePtr tb = Table(sec, {"item", "state", "why", "rests on"});
  for (const v1::GateItem& g : gate.items()) {
    xmlNodePtr tr = Html::El(tb, "tr");
    Html::Attr(tr, "data-item", g.item());
    Html::El(tr, "td", g.title());
    static const std::map<v1::GateState, const char*> kClass = {{v1::GATE_MET, "PASS"},
                                                                {v1::GATE_NOT_MET, "FAIL"},
                                                                {v1::GATE_NOT_RUN, "WARN"},
                                                                {v1::GATE_NOT_APPLICABLE, "SKIP"},
                                                                {v1::GATE_WAIVED, "WARN"}};
    xmlNodePtr state = Html::El(tr, "td");
    const auto cls = kClass.find(g.state());
    Html::Attr(Html::El(state, "span", coordinator::GateStateName(g.state())), "class",
               absl::StrCat("v ", cls == kClass.end() ? "SKIP" : cls->second));
    xmlNodePtr why = Html::El(tr, "td", g.why());
    if (g.values_size() > 0) Html::El(why, "div", absl::StrJoin(g.values(), "; "));
    if (g.nodes_not_covered_size() > 0) {
      Html::El(why, "div",
               absl::StrCat("not covered: ", absl::StrJoin(g.nodes_not_covered(), ", ")));
    }
    for (const std::string& w : g.waivers()) Html::Attr(Html::El(why, "div", w), "class", "waiver");
    xmlNodePtr rests = Html::El(tr, "td");
    for (int i = 0; i < g.runs_size(); ++i) {
      xmlNodePtr a = Html::El(rests, "a", i < g.evidence_size() ? g.evidence(i) : g.runs(i));
      Html::Attr(a, "href", "#" + AnchorOf(g.runs(i), g.section()));
      Html::El(rests, "br");
    }
  }
}

// Who ran it, when, with what profile: the run's particulars.
void RunDetails(xmlNodePtr body, const v1::StageRun& run) {
  int counts[6] = {0, 0, 0, 0, 0, 0};
  std::vector<std::string> nodes(run.nodes().begin(), run.nodes().end());
  for (const v1::StageReport& r : run.node_reports()) {
    for (const v1::ProbeResult& p : r.results()) ++counts[std::clamp<int>(p.verdict(), 0, 5)];
  }
  for (const v1::PairResult& p : run.pairs()) ++counts[std::clamp<int>(p.result().verdict(), 0, 5)];
  xmlNodePtr summary = Html::El(body, "table");
  Html::Attr(summary, "class", "meta");
  std::set<std::string> rails;
  for (const v1::PairResult& p : run.pairs()) rails.insert(p.rail());
  const std::string profile = run.profile().source().empty() ? "none" : run.profile().source();
  for (const auto& [k, v] : std::vector<std::pair<std::string, std::string>>{
           {"stage", StageName(run.stage())},
           {"nodes", absl::StrCat(nodes.size(), ": ", absl::StrJoin(nodes, ", "))},
           {"rails", rails.empty() ? "-" : absl::StrJoin(rails, ", ")},
           {"state", run.state()},
           {"results", absl::StrFormat("%d PASS, %d WARN, %d FAIL, %d ERROR, %d SKIP",
                                       counts[v1::PASS], counts[v1::WARN], counts[v1::FAIL],
                                       counts[v1::ERROR], counts[v1::SKIP])},
           {"run by", run.operator_identity().empty() ? "-" : run.operator_identity()},
           {"started", Time(run.started())},
           {"finished", Time(run.finished())},
           {"profile", run.profile().source().empty()
                           ? "none (judged only on what is wrong on its face)"
                           : absl::StrCat(profile, ", sha256 ", Sha256Hex(run.profile().yaml()))},
           {"record made by", absl::StrCat("nodeprobe ", NODEPROBE_VERSION)}}) {
    Row(summary, {k, v});
  }
  if (!run.profile().yaml().empty()) {
    xmlNodePtr d = Html::El(body, "details");
    Html::Attr(d, "id", AnchorOf(run.run_id(), "profile"));
    Html::El(d, "summary", "the profile that judged this run");
    Html::El(d, "pre", run.profile().yaml());
  }
}

// Every WARN/FAIL/ERROR finding of the run, `prefix` before where it is.
void CollectRun(std::vector<Attention>* out, const v1::StageRun& run, const std::string& prefix) {
  std::vector<Attention>& items = *out;
  for (const v1::StageReport& r : run.node_reports()) {
    for (const v1::ProbeResult& p : r.results()) Collect(&items, prefix + r.node(), p.probe(), p.findings());
  }
  for (const v1::PairResult& p : run.pairs()) {
    Collect(&items, prefix + absl::StrCat(RoundTag(p), p.from_node(), " -> ", p.to_node(), " [", p.rail(), "]"),
            PairFigure(p), p.result().findings());
  }
  for (const v1::ProbeResult& c : run.collectives()) {
    Collect(&items, prefix + "all nodes", absl::StrCat("nccl, ", c.collective().nranks(), " ranks"),
            c.findings());
  }
  for (const v1::CongestionResult& c : run.congestion()) {
    Collect(&items, prefix + c.receiver(), CongestionLine(c), c.findings());
  }
  for (const v1::FailureResult& f : run.failures()) {
    Collect(&items, prefix + f.node(), absl::StrCat(f.scenario(), " [", f.rail(), "]"), f.findings());
  }
  Collect(&items, prefix + "run", "", run.findings());
}

// What needs attention, worst first: this is what the reader came for.
void AttentionSection(xmlNodePtr body, std::vector<Attention> items) {
  std::stable_sort(items.begin(), items.end(), [](const Attention& a, const Attention& b) {
    return VerdictRank(a.severity) > VerdictRank(b.severity);
  });
  v1::Verdict worst = v1::PASS;
  for (const Attention& a : items) worst = WorseVerdict(worst, a.severity);
  xmlNodePtr attention = Section(body, "Needs attention", worst);
  Html::Attr(attention, "id", "attention");
  if (items.empty()) {
    Html::El(attention, "p", "Nothing: no WARN, FAIL or ERROR finding.");
  } else {
    xmlNodePtr tb = Table(attention, {"verdict", "where", "what", "code", "finding", "fix"});
    for (const Attention& a : items) {
      xmlNodePtr tr = Html::El(tb, "tr");
      VerdictCell(tr, a.severity);
      Html::El(tr, "td", a.where);
      Html::El(tr, "td", a.what);
      Html::El(tr, "td", a.finding->code());
      xmlNodePtr msg = Html::El(tr, "td", absl::StrCat(
          a.finding->device().empty() ? "" : absl::StrCat("[", a.finding->device(), "] "),
          a.finding->message()));
      if (const std::string note = ExceptionNote(*a.finding); !note.empty()) {
        Html::El(msg, "div", note);
      }
      Html::El(tr, "td", a.finding->remediation());
    }
  }
}

// The probe results of the run's nodes that `keep` picks, each with its
// node, and the worst of their verdicts: what a per-node section shows.
struct NodeResults {
  std::vector<std::pair<std::string, const v1::ProbeResult*>> found;
  v1::Verdict verdict = v1::SKIP;
};
NodeResults NodeResultsWhere(const v1::StageRun& run,
                             const std::function<bool(const v1::ProbeResult&)>& keep) {
  NodeResults out;
  for (const v1::StageReport& r : run.node_reports()) {
    for (const v1::ProbeResult& p : r.results()) {
      if (!keep(p)) continue;
      out.found.emplace_back(r.node(), &p);
      out.verdict = WorseVerdict(out.verdict, p.verdict());
    }
  }
  return out;
}

// Each node's PCIe links (the pcie probe's measurements): what trained
// beside what the device and its slot can do; a link below is marked.
void PcieSection(xmlNodePtr body, const v1::StageRun& run) {
  struct Link {
    std::string role;
    double speed = 0, width = 0, exp_speed = 0, exp_width = 0;
  };
  const NodeResults pcie = NodeResultsWhere(run, [](const v1::ProbeResult& p) {
    return p.probe() == "pcie" && p.measurements_size() > 0;
  });
  if (pcie.found.empty()) return;
  xmlNodePtr sec = Section(body, "PCIe links", pcie.verdict, AnchorOf(run.run_id(), "pcie"));
  xmlNodePtr tb = Table(sec, {"node", "device", "role", "trained", "capable"});
  for (const auto& [node, p] : pcie.found) {
    std::map<std::string, Link> links;  // by device
    for (const v1::Measurement& m : p->measurements()) {
      auto dev = m.labels().find("device");
      if (dev == m.labels().end()) continue;
      Link& l = links[dev->second];
      if (auto role = m.labels().find("role"); role != m.labels().end()) l.role = role->second;
      if (m.name() == "pcie_link_speed") l.speed = m.value();
      if (m.name() == "pcie_link_width") l.width = m.value();
      if (m.name() == "pcie_expected_speed") l.exp_speed = m.value();
      if (m.name() == "pcie_expected_width") l.exp_width = m.value();
    }
    for (const auto& [dev, l] : links) {
      const bool known = l.exp_speed > 0 && l.exp_width > 0;
      xmlNodePtr tr = Row(tb, {node, dev, l.role, absl::StrFormat("%g GT/s x%g", l.speed, l.width),
                               known ? absl::StrFormat("%g GT/s x%g", l.exp_speed, l.exp_width)
                                     : "-"});
      if (known && (l.speed < l.exp_speed || l.width < l.exp_width)) {
        Html::Attr(xmlGetLastChild(tr), "class", "drift");
      }
    }
  }
}

// What each port is cabled to (the cabling probe), against the rail plan.
void CablingSection(xmlNodePtr body, const v1::StageRun& run) {
  const NodeResults cabling = NodeResultsWhere(run, [](const v1::ProbeResult& p) {
    return p.has_cabling() && p.cabling().links_size() > 0;
  });
  if (cabling.found.empty()) return;
  xmlNodePtr sec = Section(body, "Cabling", cabling.verdict, AnchorOf(run.run_id(), "cabling"));
  xmlNodePtr tb = Table(sec, {"node", "interface", "RDMA port", "switch", "switch port",
                              "rail plan"});
  for (const auto& [node, p] : cabling.found) {
    for (const v1::CablingLink& l : p->cabling().links()) {
      const std::string& port = l.neighbor_port_descr().empty() ? l.neighbor_port()
                                                                : l.neighbor_port_descr();
      xmlNodePtr tr = Row(tb, {node, l.interface(), l.rdma_device(), l.neighbor_system(), port,
                               l.expected().empty() ? "-" : l.expected()});
      const bool mismatch =
          std::any_of(p->findings().begin(), p->findings().end(), [&](const v1::Finding& f) {
            return f.code() == findings::kCablingRailMismatch.code && f.device() == l.interface();
          });
      if (mismatch) Html::Attr(xmlGetLastChild(tr), "class", "drift");
    }
  }
}

// The path MTU measured between the nodes' workload addresses.
void MtuSection(xmlNodePtr body, const v1::StageRun& run) {
  std::vector<const v1::PairResult*> paths;
  v1::Verdict verdict = v1::SKIP;
  for (const v1::PairResult& p : run.pairs()) {
    if (!p.result().has_mtu() || p.result().mtu().paths_size() == 0) continue;
    paths.push_back(&p);
    verdict = WorseVerdict(verdict, p.result().verdict());
  }
  if (paths.empty()) return;
  xmlNodePtr sec =
      Section(body, "MTU from the workload path", verdict, AnchorOf(run.run_id(), "mtu"));
  xmlNodePtr tb = Table(sec, {"from", "to", "rail", "direction", "path MTU", "interface MTU",
                              "limited by"});
  for (const v1::PairResult* p : paths) {
    for (const v1::PathMtu& m : p->result().mtu().paths()) {
      std::string limit = m.blackhole() ? "a black hole (no ICMP)"
                          : !m.limiting_hop().empty()
                              ? absl::StrCat(m.limiting_hop(), " (ICMP ", m.icmp_mtu(), ")")
                              : "-";
      xmlNodePtr tr = Row(tb, {p->from_node(), p->to_node(), p->rail(), m.direction(),
                               absl::StrCat(m.path_mtu()), absl::StrCat(m.iface_mtu()), limit});
      if (m.path_mtu() < m.iface_mtu()) Html::Attr(xmlGetLastChild(tr), "class", "drift");
    }
  }
}

// Nodes, versions, pairs, collectives, congestion, failure, exceptions.
// `items`: the run's own attention items (its exceptions are among them).
// Nodes x probes: every result of every node.
void NodesSection(xmlNodePtr body, const v1::StageRun& run) {
  v1::Verdict nodes_verdict = v1::SKIP;
  for (const v1::StageReport& r : run.node_reports()) {
    nodes_verdict = WorseVerdict(nodes_verdict, CombineVerdicts(r.results()));
  }
  xmlNodePtr nodes_sec = Section(body, "Nodes", nodes_verdict, AnchorOf(run.run_id(), "nodes"));
  if (run.node_reports_size() > 0) {
    xmlNodePtr tb = Table(nodes_sec, {"node", "probe", "verdict", "findings", "reason"});
    for (const v1::StageReport& r : run.node_reports()) {
      for (const v1::ProbeResult& p : r.results()) {
        std::vector<std::string> codes;
        for (const v1::Finding& f : p.findings()) codes.push_back(f.code());
        xmlNodePtr tr = Html::El(tb, "tr");
        Html::El(tr, "td", r.node());
        Html::El(tr, "td", p.probe());
        VerdictCell(tr, p.verdict());
        Html::El(tr, "td", absl::StrJoin(codes, ", "));
        Html::El(tr, "td", p.reason());
      }
    }
  }
}

void TopologySection(xmlNodePtr body, const v1::StageRun& run) {
  // Topology: each node's GPU x NIC path classes (nvidia-smi topo's) and
  // the rail NCCL would pick per GPU; a path beyond PXB is where GPUDirect
  // RDMA is off by NCCL's default, so it is marked.
  const NodeResults topologies = NodeResultsWhere(run, [](const v1::ProbeResult& p) {
    return p.has_topology() && p.topology().gpus_size() > 0;
  });
  if (!topologies.found.empty()) {
    xmlNodePtr topo = Section(body, "Topology (GPU x NIC)", topologies.verdict,
                              AnchorOf(run.run_id(), "topology"));
    for (const auto& [node, p] : topologies.found) {
      const v1::Topology& t = p->topology();
      Html::El(topo, "h3", absl::StrCat(node, " (", t.source(), ")"));
      std::vector<std::string> head = {"GPU"};
      for (const v1::TopologyDevice& nic : t.nics()) {
        head.push_back(absl::StrCat(nic.label(), nic.rdma_devices().empty() ? "" : " ",
                                    absl::StrJoin(nic.rdma_devices(), ",")));
      }
      head.push_back("nearest rail");
      head.push_back("GPUDirect by default");
      xmlNodePtr tb = Table(topo, head);
      for (int g = 0; g < t.gpus_size(); ++g) {
        xmlNodePtr tr = Html::El(tb, "tr");
        Html::El(tr, "td", absl::StrCat(t.gpus(g).label(), " ", t.gpus(g).pci_address()));
        if (g < t.matrix_size()) {
          for (const std::string& path : t.matrix(g).paths()) {
            xmlNodePtr td = Html::El(tr, "td", path);
            if (path == "NODE" || path == "SYS" || path == "PHB") Html::Attr(td, "class", "drift");
          }
        }
        const v1::GpuRail* rail = nullptr;
        for (const v1::GpuRail& r : t.rails()) {
          if (r.gpu() == t.gpus(g).label()) rail = &r;
        }
        Html::El(tr, "td", rail ? absl::StrCat(absl::StrJoin(rail->nics(), ","), " (",
                                               rail->path(), ")")
                                : "-");
        Html::El(tr, "td", rail ? (rail->gdr_by_default() ? "yes" : "no") : "-");
      }
    }
  }
}

// A node x row table with drift marked: the version matrix and the
// configuration matrix of the nodes in a run.
void MatrixSection(xmlNodePtr body, const v1::StageRun& run, const std::string& title,
                   const std::string& anchor, const char* first_column,
                   const std::vector<coordinator::NodeComponents>& fleet) {
  const std::vector<coordinator::ComponentRow> matrix = coordinator::VersionMatrix(fleet);
  bool drift = false;
  for (const auto& row : matrix) drift |= !row.drifted.empty();
  xmlNodePtr sec = Section(body, title,
                           matrix.empty() ? v1::SKIP
                           : drift        ? v1::WARN
                                          : v1::PASS,
                           AnchorOf(run.run_id(), anchor));
  if (matrix.empty()) return;
  std::vector<std::string> head = {first_column};
  for (const auto& n : fleet) head.push_back(n.node);
  xmlNodePtr tb = Table(sec, head);
  for (const auto& row : matrix) {
    xmlNodePtr tr = Html::El(tb, "tr");
    Html::El(tr, "td", row.component);
    for (const auto& n : fleet) {
      auto v = row.versions.find(n.node);
      xmlNodePtr td = Html::El(tr, "td", v == row.versions.end() ? "-" : v->second);
      if (std::find(row.drifted.begin(), row.drifted.end(), n.node) != row.drifted.end()) {
        Html::Attr(td, "class", "drift");
        Html::Attr(td, "title", absl::StrCat("the fleet's majority: ", row.majority));
      }
    }
  }
}

void VersionsSection(xmlNodePtr body, const v1::StageRun& run) {
  std::vector<coordinator::NodeComponents> versions, config;
  for (const v1::StageReport& r : run.node_reports()) {
    for (const v1::ProbeResult& p : r.results()) {
      if (!p.has_inventory()) continue;
      versions.push_back(
          {r.node(), {p.inventory().components().begin(), p.inventory().components().end()}});
    }
    const auto settings = coordinator::SettingsOf(r);
    if (!settings.empty())
      config.push_back({r.node(), coordinator::SettingsAsComponents(settings)});
  }
  MatrixSection(body, run, "Version matrix", "versions", "component", versions);
  // Only runs that read RoCE or host settings have one.
  if (!config.empty()) {
    MatrixSection(body, run, "Configuration matrix", "config", "setting", config);
  }
}

void PairsSection(xmlNodePtr body, const v1::StageRun& run) {
  // Between the nodes.
  if (run.pairs_size() > 0) {
    v1::Verdict pv = v1::SKIP;
    for (const v1::PairResult& p : run.pairs()) pv = WorseVerdict(pv, p.result().verdict());
    xmlNodePtr pairs = Section(body, "Between the nodes", pv, AnchorOf(run.run_id(), "pairs"));
    xmlNodePtr tb = Table(pairs, {"round", "from", "to", "rail", "measured", "verdict"});
    for (const v1::PairResult& p : run.pairs()) {
      xmlNodePtr tr = Html::El(tb, "tr");
      Html::El(tr, "td", RoundTag(p));
      Html::El(tr, "td", p.from_node());
      Html::El(tr, "td", p.to_node());
      Html::El(tr, "td", p.rail());
      Html::El(tr, "td", PairFigure(p));
      VerdictCell(tr, p.result().verdict());
    }
  }
}

// NCCL across the nodes, congestion, failure injection: what the stages
// beyond two-node add.
void StageSections(xmlNodePtr body, const v1::StageRun& run) {
  for (const v1::ProbeResult& c : run.collectives()) {
    xmlNodePtr sec =
        Section(body, absl::StrCat("NCCL across the nodes (", c.collective().nranks(), " ranks)"),
                c.verdict(), AnchorOf(run.run_id(), "collectives"));
    CollectiveChart(sec, c.collective());
    xmlNodePtr ul = Html::El(sec, "ul");
    for (const std::string& line : CollectiveLines(c)) Html::El(ul, "li", line);
  }
  if (run.congestion_size() > 0) {
    v1::Verdict cv = v1::SKIP;
    for (const v1::CongestionResult& c : run.congestion()) cv = WorseVerdict(cv, c.verdict());
    xmlNodePtr sec = Section(body, "Congestion", cv, AnchorOf(run.run_id(), "congestion"));
    xmlNodePtr tb = Table(sec, {"receiver", "pattern", "measured", "verdict"});
    for (const v1::CongestionResult& c : run.congestion()) {
      xmlNodePtr tr = Html::El(tb, "tr");
      Html::El(tr, "td", c.receiver());
      Html::El(tr, "td", c.pattern());
      Html::El(tr, "td", CongestionLine(c));
      VerdictCell(tr, c.verdict());
    }
  }
  if (run.soak().series_size() > 0) {
    v1::Verdict sv = v1::PASS;
    for (const v1::Finding& f : run.findings()) {
      if (absl::StartsWith(f.code(), "SOAK_")) sv = WorseVerdict(sv, f.severity());
    }
    xmlNodePtr sec = Section(body,
                             absl::StrFormat("Soak: %.0f s, %d rounds", run.soak().duration_s(),
                                             static_cast<int>(run.soak().intervals())),
                             sv, AnchorOf(run.run_id(), "soak"));
    SoakChart(sec, run.soak());
    xmlNodePtr tb = Table(sec, {"direction", "figures", "mean", "min", "max", "spread", "drift"});
    for (const std::vector<std::string>& row : SoakRows(run.soak())) Row(tb, row);
  }
  if (run.has_workload()) WorkloadSection(body, run);
  if (run.failures_size() > 0) {
    v1::Verdict fv = v1::SKIP;
    for (const v1::FailureResult& f : run.failures()) fv = WorseVerdict(fv, f.verdict());
    xmlNodePtr sec = Section(body, "Failure injection", fv, AnchorOf(run.run_id(), "failures"));
    for (const v1::FailureResult& f : run.failures()) {
      Html::El(sec, "p", absl::StrCat(f.scenario(), " on ", f.node(), " [", f.rail(), "], run by ",
                                      f.operator_identity(), ": transfer ", f.transfer_outcome()));
      xmlNodePtr ul = Html::El(sec, "ul");
      for (const std::string& a : f.actions()) Html::El(ul, "li", a);
    }
  }
}

void ExceptionsSection(xmlNodePtr body, const std::vector<Attention>& items) {
  // Exceptions: what the profile waived, who owns it, until when; and the
  // ones that had expired and so were not applied.
  std::vector<Attention> waived;
  for (const Attention& a : items) {
    if (!a.finding->exception_reason().empty() || a.finding->exception_expired()) {
      waived.push_back(a);
    }
  }
  bool expired = false;
  for (const Attention& a : waived) expired |= a.finding->exception_expired();
  xmlNodePtr exc = Section(body, "Exceptions", waived.empty() ? v1::SKIP
                                               : expired      ? v1::FAIL
                                                              : v1::WARN);
  if (waived.empty()) {
    Html::El(exc, "p", "None applied.");
  } else {
    xmlNodePtr tb = Table(exc, {"where", "code", "device", "owner", "expires", "status"});
    for (const Attention& a : waived) {
      Row(tb, {a.where, a.finding->code(), a.finding->device(), a.finding->exception_owner(),
               a.finding->exception_expires(),
               a.finding->exception_expired() ? "expired: not applied"
                                              : a.finding->exception_reason()});
    }
  }
}

// Every section of one run's record, in reading order.
void RunSections(xmlNodePtr body, const v1::StageRun& run, const std::vector<Attention>& items) {
  NodesSection(body, run);
  TopologySection(body, run);
  PcieSection(body, run);
  CablingSection(body, run);
  VersionsSection(body, run);
  MtuSection(body, run);
  PairsSection(body, run);
  StageSections(body, run);
  ExceptionsSection(body, items);
}

// The page around the record: head, style, and the sorter at the end.
struct Page {
  Html html;
  xmlNodePtr body = nullptr;
  explicit Page(const std::string& title) {
    xmlNodePtr head = Html::El(html.root(), "head");
    xmlNodePtr meta = Html::El(head, "meta");
    Html::Attr(meta, "charset", "utf-8");
    Html::El(head, "title", title);
    Html::Raw(Html::El(head, "style"), kStyle);
    body = Html::El(html.root(), "body");
  }
  std::string Finish() {
    Html::Raw(Html::El(body, "script"), kScript);
    return html.Write();
  }
};

}  // namespace

std::string HtmlRun(const v1::StageRun& run) {
  const v1::GateChecklist gate = coordinator::GateOf({run});
  Page page(absl::StrCat("nodeprobe ", run.run_id(), ": ", VerdictAndGate(run.verdict(), gate)));
  // The gate and what needs attention first: what the reader came for.
  RunHeading(page.body, run, "h1", "Acceptance record: run ", &gate);
  GateSection(page.body, gate);
  std::vector<Attention> items;
  CollectRun(&items, run, "");
  AttentionSection(page.body, items);
  RunDetails(page.body, run);
  RunSections(page.body, run, items);
  return page.Finish();
}

std::string HtmlDiff(const v1::RecordDiff& diff) {
  Page page(absl::StrCat("nodeprobe: ", diff.old().run_id(), " -> ", diff.new_().run_id()));
  Html::El(page.body, "h1", "What changed between two acceptance records");
  xmlNodePtr ul = Html::El(page.body, "ul");
  Html::El(ul, "li", absl::StrCat("Old: ", DiffSide(diff.old())));
  Html::El(ul, "li", absl::StrCat("New: ", DiffSide(diff.new_())));
  Html::El(ul, "li", DiffOutcome(diff));
  for (const DiffSection& s : DiffSections(diff)) {
    xmlNodePtr sec = Html::El(page.body, "section");
    Html::El(sec, "h2", s.title);
    if (s.rows.empty()) {
      Html::El(sec, "p", "None.");
      continue;
    }
    xmlNodePtr tb = Table(sec, s.head);
    for (const std::vector<std::string>& row : s.rows) Row(tb, row);
  }
  return page.Finish();
}

namespace {

// A trend chart's class median and its band (3 spreads) as flat lines over
// the span of `line`, one of `series` (a map's entries stay put as it grows).
void AddBaselineBand(const v1::FigureTrend& f, const ChartSeries::mapped_type& line,
                     ChartSeries* series) {
  if (f.baseline_runs() == 0 || line.empty()) return;
  const double x1 = line.back().first;
  for (const auto& [name, y] :
       {std::pair{"class median", f.baseline_median()},
        std::pair{"median - 3 spread", f.baseline_median() - 3 * f.baseline_spread()},
        std::pair{"median + 3 spread", f.baseline_median() + 3 * f.baseline_spread()}}) {
    (*series)[name] = {{0, y}, {x1, y}};
  }
}

}  // namespace

std::string HtmlTrend(const v1::NodeTrend& t) {
  Page page(absl::StrCat("nodeprobe trend: ", t.node()));
  Html::El(page.body, "h1", absl::StrCat("Trend of ", t.node()));
  Html::El(page.body, "p",
           absl::StrCat(t.runs(), " accepted runs; class ",
                        t.node_class().empty() ? "unknown" : t.node_class()));
  for (const v1::FigureTrend& f : t.figures()) {
    xmlNodePtr sec = Html::El(page.body, "section");
    Html::El(sec, "h2", f.figure());
    // x: days since the first point; the class's median and its band
    // (3 spreads) as flat lines beside the node's own.
    const double first = f.points_size() > 0 ? static_cast<double>(f.points(0).seconds()) : 0;
    ChartSeries series;
    for (const v1::FigureTrend::Point& p : f.points()) {
      series[t.node()].push_back({(static_cast<double>(p.seconds()) - first) / 86400, p.value()});
    }
    AddBaselineBand(f, series[t.node()], &series);
    LineChart(sec, f.figure(), series,
              [&](double x) { return Time(TimestampOf(first + x * 86400)); });
    xmlNodePtr tb = Table(sec, {"run", "started", "value", "of the class median"});
    for (const v1::FigureTrend::Point& p : f.points()) {
      Row(tb, {p.run_id(), Time(TimestampOf(static_cast<double>(p.seconds()))),
               absl::StrFormat("%.4g", p.value()),
               f.baseline_median() > 0 ? absl::StrFormat("%.3f", p.value() / f.baseline_median())
                                       : "-"});
    }
  }
  return page.Finish();
}

std::string HtmlFleetTrend(const v1::FleetTrend& t) {
  Page page("nodeprobe fleet trend");
  Html::El(page.body, "h1", "Fleet trend: each node class's figures over its accepted runs");
  if (t.classes_size() == 0) Html::El(page.body, "p", "No accepted run measured a figure.");
  for (const v1::ClassTrend& c : t.classes()) {
    xmlNodePtr cls = Html::El(page.body, "section");
    Html::El(cls, "h2", absl::StrCat("Class ", c.key(), " (", c.runs(), " runs)"));
    for (const v1::FigureTrend& f : c.figures()) {
      xmlNodePtr sec = Html::El(cls, "section");
      Html::El(sec, "h3", f.figure());
      const double first = f.points_size() > 0 ? static_cast<double>(f.points(0).seconds()) : 0;
      ChartSeries series;
      for (const v1::FigureTrend::Point& p : f.points()) {
        const double x = (static_cast<double>(p.seconds()) - first) / 86400;
        series["nodes' median"].push_back({x, p.value()});
        series["lowest node"].push_back({x, p.low()});
        series["highest node"].push_back({x, p.high()});
      }
      AddBaselineBand(f, series["nodes' median"], &series);
      LineChart(sec, f.figure(), series,
                [&](double x) { return Time(TimestampOf(first + x * 86400)); });
      xmlNodePtr tb = Table(sec, {"run", "started", "nodes", "median", "lowest", "highest"});
      for (const v1::FigureTrend::Point& p : f.points()) {
        Row(tb, {p.run_id(), Time(TimestampOf(static_cast<double>(p.seconds()))),
                 absl::StrCat(p.nodes()), absl::StrFormat("%.4g", p.value()),
                 absl::StrFormat("%.4g", p.low()), absl::StrFormat("%.4g", p.high())});
      }
    }
  }
  return page.Finish();
}

std::string HtmlCampaign(const std::vector<v1::StageRun>& runs) {
  v1::Verdict worst = v1::SKIP;
  for (const v1::StageRun& r : runs) worst = WorseVerdict(worst, r.verdict());
  const v1::GateChecklist gate = coordinator::GateOf(runs);
  Page page(
      absl::StrCat("nodeprobe campaign of ", runs.size(), " runs: ", VerdictAndGate(worst, gate)));
  xmlNodePtr h1 = Html::El(page.body, "h1", absl::StrCat("Acceptance record: ", runs.size(),
                                                          " runs "));
  Badge(h1, worst);
  GateBadge(h1, gate);
  xmlNodePtr judged = Html::El(page.body, "p", CoverageLine(CoverageOf(runs), "results"));
  Html::Attr(judged, "class", "coverage");
  GateSection(page.body, gate);
  xmlNodePtr tb = Table(page.body, {"run", "stage", "nodes", "verdict", "started", "profile"});
  for (const v1::StageRun& r : runs) {
    xmlNodePtr tr = Html::El(tb, "tr");
    Html::El(tr, "td", r.run_id());
    Html::El(tr, "td", StageName(r.stage()));
    Html::El(tr, "td", absl::StrJoin(r.nodes(), ", "));
    VerdictCell(tr, r.verdict());
    Html::El(tr, "td", Time(r.started()));
    Html::El(tr, "td", r.profile().source().empty()
                           ? "none"
                           : absl::StrCat(r.profile().source(), ", sha256 ",
                                          Sha256Hex(r.profile().yaml()).substr(0, 12)));
  }
  // What needs attention across the campaign, worst first, then each run.
  std::vector<std::vector<Attention>> per_run;
  std::vector<Attention> all;
  for (const v1::StageRun& r : runs) {
    per_run.emplace_back();
    CollectRun(&per_run.back(), r, absl::StrCat(r.run_id(), ": "));
    all.insert(all.end(), per_run.back().begin(), per_run.back().end());
  }
  AttentionSection(page.body, all);
  for (size_t i = 0; i < runs.size(); ++i) {
    xmlNodePtr article = Html::El(page.body, "article");
    RunHeading(article, runs[i], "h2", "Run ");
    RunDetails(article, runs[i]);
    RunSections(article, runs[i], per_run[i]);
  }
  return page.Finish();
}

}  // namespace nodeprobe::cli
