// The figure never promises what it does not draw: every legend entry names a drawn element, every
// numbered entry is a number drawn in the plot (and the reverse), one roof and one colour per
// memory level, no rejected or transition point as a roof, labels apart (geometrically), and the
// bandwidth-against-working-set chart with one point per measured bandwidth result.
#include <gtest/gtest.h>

#include <sstream>

#include <map>
#include <regex>
#include <set>

#include "roofline/error.hpp"
#include "roofline/report.hpp"
#include "roofline/units.hpp"
#include "roofline/vocabulary.hpp"
#include "test_util.hpp"

namespace roofline {
namespace {

using test::count;

/// Class tokens of every element drawn before the legend.
std::set<std::string> drawn_tokens(const std::string& svg) {
  const std::string body = svg.substr(0, svg.find("<g class=\"legend\""));
  std::set<std::string> out;
  static const std::regex cls("class=\"([^\"]*)\"");
  for (auto it = std::sregex_iterator(body.begin(), body.end(), cls); it != std::sregex_iterator(); ++it) {
    std::string v = (*it)[1];
    std::size_t i = 0;
    while (i < v.size()) {
      const auto j = v.find(' ', i);
      out.insert(v.substr(i, j == std::string::npos ? std::string::npos : j - i));
      if (j == std::string::npos) break;
      i = j + 1;
    }
  }
  return out;
}

std::vector<std::string> legend_refs(const std::string& svg) {
  std::vector<std::string> out;
  static const std::regex ref("class=\"legend-item\" data-ref=\"([^\"]*)\"");
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), ref); it != std::sregex_iterator(); ++it) out.push_back((*it)[1]);
  return out;
}

/// The figure's panel (the model's precision) and every small multiple (each other measured precision).
std::vector<std::string> every_panel(const results& r) {
  std::vector<std::string> out{render_svg(r)};
  for (const auto& p : other_figure_precisions(r)) out.push_back(render_svg(r, p));
  return out;
}

/// A results file with the shapes issue 15 found on the H200: a rejected L2 point faster than L1,
/// an "l2+dram" transition point, a latency-bound op.
results with_rejected_and_transition() {
  results r = load_results(test::data("results-cpu.json"));
  bandwidth_result bad;
  bad.pattern = "read";
  bad.level = "l2";
  bad.working_set_bytes = 1 << 20;
  bad.bytes_per_s = 900e9;  // above the 181 GB/s L1 point: breaks "a cache level is not faster than the one above it"
  bad.rejected = true;
  bad.rejected_reason = "faster than L1 (181 GB/s)";
  r.measured.bandwidth.push_back(bad);
  bandwidth_result mixed;
  mixed.pattern = "read";
  mixed.level = "l2+dram";
  mixed.working_set_bytes = 64 << 20;
  mixed.bytes_per_s = 500e9;
  r.measured.bandwidth.push_back(mixed);
  r.ops[7].bound = "latency";  // rmsnorm, decode b1
  return r;
}

TEST(FigureTruth, EveryLegendEntryNamesADrawnElement) {
  for (const char* f : {"results-gpu.json", "results-cpu.json"}) {
    const std::string svg = render_svg(load_results(test::data(f)));
    const auto drawn = drawn_tokens(svg);
    const auto refs = legend_refs(svg);
    EXPECT_GT(refs.size(), 5u) << f;
    for (const auto& ref : refs) {
      EXPECT_FALSE(ref.empty()) << f << ": a legend entry without a drawn element to point at";
      EXPECT_TRUE(drawn.count(ref)) << f << ": legend entry '" << ref << "' but nothing drawn with that class";
    }
  }
}

TEST(FigureTruth, EveryLegendMarkerLooksLikeWhatItStandsFor) {
  // roofline.svg drew the nominal ridge hollow and its legend showed it filled, like the measured one:
  // a legend line is dashed as its roof is, a legend shape is hollow or filled as (one of) its drawn
  // elements is.
  for (const char* f : {"results-gpu.json", "results-cpu.json", "h200-2026-12-03/results.json"}) {
    const results r = load_results(test::data(f));
    for (const std::string& svg : every_panel(r)) {
      const std::string body = svg.substr(0, svg.find("<g class=\"legend\""));
      static const std::regex item("<g class=\"legend-item\" data-ref=\"([^\"]+)\">(<[^>]*>)");
      static const std::regex drawn_el("<(path|circle|rect)\\b([^>]*)>");
      int checked = 0;
      for (auto it = std::sregex_iterator(svg.begin(), svg.end(), item); it != std::sregex_iterator(); ++it) {
        const std::string ref = (*it)[1], marker = (*it)[2];
        const bool line = marker.rfind("<line", 0) == 0;
        const bool dashed = marker.find("stroke-dasharray") != std::string::npos;
        const bool hollow = marker.find("fill=\"#ffffff\"") != std::string::npos;
        bool match = false, any = false;
        for (auto d = std::sregex_iterator(body.begin(), body.end(), drawn_el); d != std::sregex_iterator(); ++d) {
          const std::string attrs = (*d)[2];
          const auto c = attrs.find("class=\"");
          if (c == std::string::npos) continue;
          const std::string cls = " " + attrs.substr(c + 7, attrs.find('"', c + 7) - c - 7) + " ";
          if (cls.find(" " + ref + " ") == std::string::npos) continue;
          any = true;
          match |= line ? (attrs.find("stroke-dasharray") != std::string::npos) == dashed
                        : (attrs.find("fill=\"#ffffff\"") != std::string::npos) == hollow;
        }
        if (!any) continue;
        ++checked;
        EXPECT_TRUE(match) << f << ": the legend's " << ref << " marker (" << (line ? (dashed ? "dashed" : "solid") : (hollow ? "hollow" : "filled"))
                           << ") looks like nothing drawn with that class";
      }
      EXPECT_GT(checked, 3) << f;
    }
  }
}

TEST(FigureTruth, AnInt8PanelSpeaksOpsNotFlops) {
  // The H200 run measured int8 (tensor-core GEMM, integer operations): its panel's roofs are in
  // OP/s, so are its axes, ticks and ridge notes (units::work_unit), never FLOP/s or FLOP/B.
  const results r = load_results(test::data("h200-2026-12-03/results.json"));
  const std::string svg = render_svg(r, "int8");
  EXPECT_NE(svg.find(">arithmetic intensity (OP/B, log scale)<"), std::string::npos);
  EXPECT_NE(svg.find(">performance (OP/s, log scale)<"), std::string::npos);
  EXPECT_NE(svg.find(" POP/s</text>"), std::string::npos);  // a tick label
  EXPECT_NE(svg.find("int8 tensor measured " + units::compute_rate(best_compute_on(r.measured, "int8", "gemm")->flops_per_s, "int8")),
            std::string::npos);
  EXPECT_EQ(svg.find("FLOP"), std::string::npos) << svg.substr(svg.find("FLOP") - 80, 160);
  EXPECT_NE(render_svg(r).find(">performance (FLOP/s, log scale)<"), std::string::npos);  // fp16 stays FLOP/s
}

TEST(FigureTruth, ACpuFigureWithoutNominalBandwidthPromisesNoNominalRidge) {
  const std::string svg = render_svg(load_results(test::data("results-cpu.json")));
  EXPECT_EQ(count(svg, "ridge-nominal"), 0u);  // neither drawn nor in the legend
  EXPECT_GT(count(svg, "class=\"ridge ridge-measured\""), 0u);
  EXPECT_NE(svg.find("data-ref=\"ridge-measured\""), std::string::npos);
}

TEST(FigureTruth, EveryOpIsNumberedInTheKeyAndEveryDrawnNumberIsInIt) {
  // Points carry the op table's number (several close points share one label, "3,7,27"); the key
  // beside the figure lists every plotted op once, by that number: readable in a PNG, no hovering.
  for (const char* f : {"results-gpu.json", "results-cpu.json", "h200-2026-12-03/results.json"}) {
    const results r = load_results(test::data(f));
    const std::string svg = render_svg(r);
    std::set<int> drawn, listed, plotted;
    static const std::regex num("class=\"point-number\"[^>]*>([0-9,]+)<");
    static const std::regex entry("class=\"key-entry\" data-n=\"([0-9]+)\">([0-9]+) ([^<]+)<");
    for (auto it = std::sregex_iterator(svg.begin(), svg.end(), num); it != std::sregex_iterator(); ++it) {
      std::stringstream ss((*it)[1]);
      for (std::string n; std::getline(ss, n, ',');) EXPECT_TRUE(drawn.insert(std::stoi(n)).second) << f << ": #" << n << " drawn twice";
    }
    for (auto it = std::sregex_iterator(svg.begin(), svg.end(), entry); it != std::sregex_iterator(); ++it) {
      const int n = std::stoi((*it)[1]);
      EXPECT_TRUE(listed.insert(n).second) << f << ": #" << n << " twice in the key";
      EXPECT_EQ(std::to_string(n), (*it)[2].str());
      EXPECT_EQ((*it)[3].str(), r.ops.at(static_cast<std::size_t>(n - 1)).name) << f << ": the key's #" << n << " is the op table's";
    }
    std::set<int> every;
    for (std::size_t i = 0; i < r.ops.size(); ++i) {
      every.insert(static_cast<int>(i + 1));
      if (r.ops[i].flops > 0 && r.ops[i].bytes > 0 && r.ops[i].predicted_s > 0) plotted.insert(static_cast<int>(i + 1));
    }
    // every op, the plotted ones under their scenario, the others (embed_tokens: no FLOPs) named
    // under "not plotted" (the H200 run had three, counted but not named)
    EXPECT_EQ(listed, every) << f;
    const auto not_plotted = svg.find(">not plotted (0 FLOP, 0 B or no time)</text>");
    EXPECT_EQ(not_plotted == std::string::npos, plotted.size() == every.size()) << f;
    for (int n : every)
      if (!plotted.count(n))
        EXPECT_GT(svg.find("class=\"key-entry\" data-n=\"" + std::to_string(n) + "\""), not_plotted) << f << ": #" << n << " not under 'not plotted'";
    for (int n : drawn) EXPECT_TRUE(listed.count(n)) << f << ": #" << n << " drawn but not in the key";
    EXPECT_GE(drawn.size() * 10, plotted.size() * 8) << f << ": at least 80% of the ops numbered in the plot";
    EXPECT_EQ(svg.find("hover a point"), std::string::npos) << f << ": nothing asks a PNG reader to hover";
  }
}

TEST(FigureTruth, LegendPairsLikeWithLike) {
  // Every compute roof names its engine; a measured roof is paired with the nominal peak of the same
  // engine (the H200's fp16: tensor 989 with the GEMM's 703, vector 134 with the FMA chains' 130).
  for (const char* f : {"results-gpu.json", "results-cpu.json", "h200-2026-12-03/results.json"}) {
    const results r = load_results(test::data(f));
    for (const std::string& drawn : every_panel(r)) {
    // a legend entry wrapped onto two lines, read as one
    const std::string svg = std::regex_replace(drawn, std::regex("</text><text x=\"[0-9.]+\" y=\"[0-9.]+\">"), " ");
    static const std::regex item(R"re(data-ref="roof-([a-z0-9]+)(-vector)?-(nominal|measured)">.*?<text[^>]*>([a-z0-9]+) (tensor|vector) (nominal|measured) ([^<]+)<)re");
    std::map<std::string, std::set<std::string>> sides;  // precision+engine → {nominal, measured}
    int entries = 0;
    for (auto it = std::sregex_iterator(svg.begin(), svg.end(), item); it != std::sregex_iterator(); ++it) {
      ++entries;
      const std::string prec = (*it)[4], engine = (*it)[5], side = (*it)[6];
      EXPECT_EQ((*it)[1].str(), prec);
      EXPECT_EQ((*it)[3].str(), side);
      EXPECT_EQ((*it)[2].matched, engine == "vector" && peak_for(r.nominal, prec) && peak_for(r.nominal, prec)->engine == "tensor") << f;
      // the value is the one of that engine; a nominal peak without a measurement of its engine says so
      std::string value = (*it)[7];
      const std::string alone = ", not measured";
      const bool unpaired = value.size() > alone.size() && value.compare(value.size() - alone.size(), alone.size(), alone) == 0;
      if (unpaired) value.resize(value.size() - alone.size());
      sides[prec + " " + engine].insert(side);
      if (unpaired) sides[prec + " " + engine].insert("measured");  // said, not silently missing
      if (side == "measured") {
        // the "-vector" roof is the FMA chains'; the precision's own roof is its best GEMM (else FMA)
        const compute_result* c = (*it)[2].matched ? best_compute_on(r.measured, prec, "vector") : best_compute_on(r.measured, prec, "gemm");
        if (!c) c = best_compute_on(r.measured, prec, "vector");
        ASSERT_NE(c, nullptr) << f << " " << prec << " " << engine;
        // … and says which it is: "(GEMM n = …)" or "(FMA chains)" (a CPU's fp32 "vector" roof is its GEMM)
        const std::string what = c == best_compute_on(r.measured, prec, "gemm") ? " (GEMM" : " (FMA chains)";
        const auto at = value.find(what);
        ASSERT_NE(at, std::string::npos) << f << " " << prec << " " << engine << ": " << value;
        value.resize(at);
        EXPECT_EQ(value, units::compute_rate(c->flops_per_s, prec)) << f << " " << prec << " " << engine;
      } else {
        bool found = false;
        for (const auto& np : r.nominal.peaks)
          found |= np.precision == prec && np.engine == engine && units::compute_rate(np.flops_per_s, prec) == value;
        EXPECT_TRUE(found) << f << ": no " << prec << " " << engine << " nominal peak of " << value;
      }
    }
    EXPECT_GE(entries, 2) << f;
    for (const auto& [key, s] : sides)
      EXPECT_EQ(s.size(), 2u) << f << ": " << key << " has no partner of its engine in " << svg.substr(0, svg.find("</title>"));
    }
  }
}

TEST(FigureTruth, OneRoofAndOneColourPerMemoryLevelLabelledWithLevelAndPattern) {
  const std::string svg = render_svg(load_results(test::data("results-cpu.json")));
  // the CPU fixture measured l1, l2, llc and dram: one measured memory roof each
  std::map<std::string, std::string> colour;
  static const std::regex roof("<path class=\"roof memory measured roof-level-([a-z0-9+]+)\" d=\"[^\"]*\" stroke=\"(#[0-9a-f]{6})\"");
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), roof); it != std::sregex_iterator(); ++it) {
    EXPECT_EQ(colour.count((*it)[1]), 0u) << "two roofs for level " << (*it)[1];
    colour[(*it)[1]] = (*it)[2];
  }
  EXPECT_EQ(colour.size(), 4u);
  std::set<std::string> distinct;
  for (const auto& [lvl, c] : colour) distinct.insert(c);
  EXPECT_EQ(distinct.size(), colour.size()) << "each level its own colour";
  for (const char* label : {">L1 read 181 GB/s<", ">L2 read 96.5 GB/s<", ">LLC read 41.0 GB/s<", ">DRAM read 9.80 GB/s<"})
    EXPECT_NE(svg.find(label), std::string::npos) << label;
}

TEST(FigureTruth, RejectedAndTransitionPointsAreNeverRoofs) {
  const std::string svg = render_svg(with_rejected_and_transition());
  EXPECT_EQ(svg.find("900 GB/s"), svg.find("900 GB/s — rejected"));  // only in the bandwidth chart's hover text
  EXPECT_NE(svg.find("L2 read at 1.00 MiB: 900 GB/s — rejected, not a roof: faster than L1 (181 GB/s)"), std::string::npos);
  EXPECT_EQ(count(svg, "roof-level-l2+dram"), 0u);
  EXPECT_EQ(count(svg, "L2+DRAM read"), 1u);  // the transition point's hover text in the chart, nothing else
  EXPECT_NE(svg.find(">L2 read 96.5 GB/s<"), std::string::npos);  // the L2 roof is the good L2 point
  EXPECT_EQ(count(svg, "class=\"bw-point bw-rejected\""), 1u);
  EXPECT_NE(svg.find("data-ref=\"bw-rejected\""), std::string::npos);
}

TEST(FigureTruth, LatencyBoundOpsHaveTheirOwnMarkerAndLegendEntry) {
  const std::string plain = render_svg(load_results(test::data("results-cpu.json")));
  EXPECT_EQ(count(plain, "op-latency"), 0u);
  const std::string svg = render_svg(with_rejected_and_transition());
  EXPECT_EQ(count(svg, "class=\"op-pred op-latency scenario-0\""), 1u);
  EXPECT_NE(svg.find("data-ref=\"op-latency\""), std::string::npos);
}

TEST(FigureTruth, TheBandwidthChartDrawsEveryMeasuredPoint) {
  for (const char* f : {"results-gpu.json", "results-cpu.json"}) {
    const results r = load_results(test::data(f));
    const std::string svg = render_svg(r);
    EXPECT_EQ(count(svg, "class=\"bw-point "), r.measured.bandwidth.size()) << f;
    EXPECT_NE(svg.find("Bandwidth against working set"), std::string::npos);
    std::set<std::string> levels;
    for (const auto& b : r.measured.bandwidth) levels.insert(b.level);
    EXPECT_EQ(count(svg, "class=\"level-label\""), levels.size()) << f << ": every level named once";
  }
}

TEST(FigureTruth, NoTwoLabelsOverlap) {
  // Every placed text box (op labels and numbers, roof labels, level names) is disjoint from every other.
  for (const results& r : {load_results(test::data("results-gpu.json")), load_results(test::data("results-cpu.json")),
                           with_rejected_and_transition(), load_results(test::data("h200-2026-12-03/results.json"))}) {
    const auto panels = every_panel(r);
    for (const std::string& svg : panels) {
    struct box { double x0, y0, x1, y1; };
    std::vector<box> boxes;
    for (const char* cls : {"class=\"point-label\"", "class=\"point-number\"", "class=\"roof-label\"", "class=\"level-label\""})
      for (auto p = svg.find(cls); p != std::string::npos; p = svg.find(cls, p + 1)) {
        double x = 0, y = 0, size = 0;
        std::sscanf(svg.c_str() + p, "class=\"%*[^\"]\" x=\"%lf\" y=\"%lf\" font-size=\"%lf\"", &x, &y, &size);
        const auto gt = svg.find('>', p), lt = svg.find('<', gt);
        std::size_t glyphs = 0;
        for (std::size_t i = gt + 1; i < lt; ++i)
          if ((static_cast<unsigned char>(svg[i]) & 0xC0) != 0x80) ++glyphs;
        boxes.push_back({x, y - size * 0.85, x + 0.58 * size * static_cast<double>(glyphs), y + size * 0.2});
      }
    EXPECT_GT(boxes.size(), &svg == &panels.front() ? 4u : 1u);  // the model's panel has ops; the others roofs alone
    for (std::size_t i = 0; i < boxes.size(); ++i)
      for (std::size_t j = i + 1; j < boxes.size(); ++j) {
        const box& a = boxes[i];
        const box& b = boxes[j];
        EXPECT_FALSE(a.x0 < b.x1 - 0.5 && b.x0 < a.x1 - 0.5 && a.y0 < b.y1 - 0.5 && b.y0 < a.y1 - 0.5)
            << r.device.name << ": label " << i << " overlaps label " << j;
      }
    }
  }
}

TEST(FigureTruth, NoLabelTouchesAPoint) {
  // Every op label and number (with its white background box) keeps at least 1 px from every point's
  // marker (its outline and half its 1.8 px stroke): a label that touches a neighbour reads as its.
  static const std::regex circle(R"re(<circle class="[^"]*" fill="[^"]*" stroke="[^"]*" stroke-width="1.8" cx="([-0-9.]+)" cy="([-0-9.]+)" r="([0-9.]+)")re");
  static const std::regex square(R"re(<rect class="[^"]*" fill="[^"]*" stroke="[^"]*" stroke-width="1.8" x="([-0-9.]+)" y="([-0-9.]+)" width="([0-9.]+)" height="([0-9.]+)")re");
  static const std::regex path(R"re(<path class="[^"]*" fill="[^"]*" stroke="[^"]*" stroke-width="1.8" d="([^"]+)")re");
  static const std::regex number(R"re([-0-9.]+)re");
  struct box { double x0, y0, x1, y1; };
  for (const results& r : {load_results(test::data("results-gpu.json")), load_results(test::data("results-cpu.json")),
                           load_results(test::data("h200-2026-12-03/results.json"))}) {
    const std::string svg = render_svg(r);
    const auto g0 = svg.find("<g class=\"points\">"), g1 = svg.find("</g>", g0);
    ASSERT_NE(g0, std::string::npos);
    const std::string pts = svg.substr(g0, g1 - g0);
    std::vector<box> markers;
    for (auto it = std::sregex_iterator(pts.begin(), pts.end(), circle); it != std::sregex_iterator(); ++it) {
      const double cx = std::stod((*it)[1]), cy = std::stod((*it)[2]), rr = std::stod((*it)[3]) + 0.9;
      markers.push_back({cx - rr, cy - rr, cx + rr, cy + rr});
    }
    for (auto it = std::sregex_iterator(pts.begin(), pts.end(), square); it != std::sregex_iterator(); ++it) {
      const double x = std::stod((*it)[1]), y = std::stod((*it)[2]);
      markers.push_back({x - 0.9, y - 0.9, x + std::stod((*it)[3]) + 0.9, y + std::stod((*it)[4]) + 0.9});
    }
    for (auto it = std::sregex_iterator(pts.begin(), pts.end(), path); it != std::sregex_iterator(); ++it) {
      const std::string d = (*it)[1];
      std::vector<double> v;
      for (auto n = std::sregex_iterator(d.begin(), d.end(), number); n != std::sregex_iterator(); ++n) v.push_back(std::stod((*n)[0]));
      box b{1e9, 1e9, -1e9, -1e9};
      for (std::size_t i = 0; i + 1 < v.size(); i += 2)
        b = {std::min(b.x0, v[i]), std::min(b.y0, v[i + 1]), std::max(b.x1, v[i]), std::max(b.y1, v[i + 1])};
      markers.push_back({b.x0 - 0.9, b.y0 - 0.9, b.x1 + 0.9, b.y1 + 0.9});
    }
    EXPECT_GT(markers.size(), 4u) << r.device.name;
    int labels = 0;
    for (const char* cls : {"<rect class=\"label-bg\" x=\""})
      for (auto p = svg.find(cls); p != std::string::npos; p = svg.find(cls, p + 1)) {
        // only op labels and numbers: the text after the background box
        const auto t = svg.find("<text class=\"", p);
        const std::string kind = svg.substr(t + 13, svg.find('"', t + 13) - t - 13);
        if (kind != "point-label" && kind != "point-number") continue;
        double x = 0, y = 0, w = 0, h = 0;
        std::sscanf(svg.c_str() + p, "<rect class=\"label-bg\" x=\"%lf\" y=\"%lf\" width=\"%lf\" height=\"%lf\"", &x, &y, &w, &h);
        ++labels;
        for (const box& m : markers)
          EXPECT_FALSE(x < m.x1 + 1 && m.x0 < x + w + 1 && y < m.y1 + 1 && m.y0 < y + h + 1)
              << r.device.name << ": " << kind << " at (" << x << ", " << y << ") touches the point at (" << m.x0 << ", " << m.y0 << ")";
      }
    EXPECT_GT(labels, 2) << r.device.name;
  }
}

TEST(FigureTruth, SmallMultiplesShowEveryOtherMeasuredPrecisionWithRoofsOnly) {
  // The H200 run of 2026-12-03 measured seven precisions; the ops ran in fp16: report.html shows the
  // fp16 figure and, collapsed under it, one panel for each of the six others, without op points.
  const results r = load_results(test::data("h200-2026-12-03/results.json"));
  const auto others = other_figure_precisions(r);
  EXPECT_EQ(others, (std::vector<std::string>{"fp64", "fp32", "tf32", "bf16", "fp8", "int8"}));
  const std::string html = render_html(r);
  EXPECT_EQ(count(html, "<details class=\"multiples\""), 1u);
  EXPECT_EQ(count(html, "<svg"), 1u + others.size());  // the figure (its bandwidth chart inside it), the panels
  EXPECT_GT(html.find("<details class=\"multiples\""), html.find("<section id=\"ops\">"));  // collapsed, at the end
  for (const auto& p : others) {
    const std::string svg = render_svg(r, p);
    EXPECT_NE(svg.find("Roofline: NVIDIA H200 · " + p), std::string::npos) << p;
    EXPECT_EQ(count(svg, "class=\"point-number\""), 0u) << p;
    EXPECT_NE(svg.find("the model's ops ran in fp16"), std::string::npos) << p;
  }
  EXPECT_GT(count(render_svg(r), "class=\"point-number\""), 0u);
  EXPECT_THROW(render_svg(r, "fp4"), input_error);  // nothing measured or nominal for it
}

}  // namespace
}  // namespace roofline
