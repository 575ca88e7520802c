// place.svg read back against place.json: the numbered points and their one key, the roofs each
// kernel was placed against, every roof labelled. Inputs: the H200 run of 2026-12-03 and the
// TinyLlama profiles taken on it (tests/data/h200-2026-12-03/README.md says how each was made).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <regex>
#include <set>
#include <sstream>

#include "roofline/json.hpp"
#include "roofline/report.hpp"
#include "roofline/units.hpp"
#include "roofline/vocabulary.hpp"
#include "svg_geometry.hpp"
#include "test_util.hpp"

namespace roofline {
namespace {

const std::string bin = ROOFLINE_BINARY;
const std::string h200 = test::data("h200-2026-12-03/results.json");
const std::string trace = "--trace " + test::data("h200-2026-12-03/torch-trace-tinyllama-eager.json.gz");
const std::string ncu = "--ncu " + test::data("h200-2026-12-03/ncu-tinyllama-decode-recommended-metrics.csv");

struct placed {
  std::string svg, out;
  json j;
};

placed place(const std::string& input, const std::string& tag, const std::string& extra = "") {
  test::temp_dir d("place-figure-" + tag);
  const auto r =
      test::run_command(bin + " place " + input + " --results " + h200 + " --out " + (d / "out") + " " + extra);
  EXPECT_EQ(r.code, 0) << r.err;
  return {read_file(d / "out/place.svg"), r.out, json::parse(read_file(d / "out/place.json"))};
}

/// The notes under the legend, their wrapped lines joined.
std::string notes(const std::string& svg) {
  std::string out;
  for (const auto& b : test::svg_text_boxes(svg))
    if (b.cls == "legend-note") out += (out.empty() ? "" : " ") + b.text;
  return out;
}

bool plotted(const json& k) {
  return k["intensity"].is_number() && k["intensity"].get<double>() > 0 && k["achieved_flops_per_s"].get<double>() > 0;
}

TEST(PlaceFigure, NumbersTheTopNKernelsByTimeInOneKeyAndCountsTheOthers) {
  // The eager TinyLlama trace has 3,743 kernels: a PNG cannot be hovered, so the --top N longest
  // drawn kernels carry place.csv's number, one key lists them, and a note counts the others.
  for (const auto& [top, extra] : {std::pair<std::size_t, std::string>{10, ""}, {5, "--top 5"}}) {
    const placed p = place(trace, "top" + std::to_string(top), extra);
    std::vector<std::pair<double, int>> drawn;  // (seconds, number) of every kernel with FLOPs and bytes
    for (const auto& k : p.j["kernels"])
      if (plotted(k)) drawn.emplace_back(k["seconds"].get<double>(), k["number"].get<int>());
    ASSERT_GT(drawn.size(), 1000u);
    std::stable_sort(drawn.begin(), drawn.end(), [](auto& a, auto& b) { return a.first > b.first; });
    std::set<int> want, listed, labelled;
    for (std::size_t i = 0; i < top; ++i) want.insert(drawn[i].second);
    static const std::regex entry("class=\"key-entry\" data-n=\"([0-9]+)\"");
    for (auto it = std::sregex_iterator(p.svg.begin(), p.svg.end(), entry); it != std::sregex_iterator(); ++it)
      EXPECT_TRUE(listed.insert(std::stoi((*it)[1])).second) << "#" << (*it)[1] << " twice in the key";
    EXPECT_EQ(listed, want) << "the key lists the " << top << " longest drawn kernels";
    static const std::regex num("class=\"point-number\"[^>]*>([0-9,]+)<");
    for (auto it = std::sregex_iterator(p.svg.begin(), p.svg.end(), num); it != std::sregex_iterator(); ++it) {
      std::stringstream ss((*it)[1]);
      for (std::string n; std::getline(ss, n, ',');) labelled.insert(std::stoi(n));
    }
    for (int n : labelled) EXPECT_TRUE(want.count(n)) << "#" << n << " drawn but not in the key";
    EXPECT_EQ(test::count(p.svg, "class=\"key-heading\""), 1u) << "one key";
    EXPECT_EQ(p.svg.find("Key (every kernel)"), std::string::npos);
    EXPECT_EQ(p.svg.find("hover"), std::string::npos) << "nothing asks a PNG reader to hover";
    EXPECT_NE(notes(p.svg).find(fmt::format("the other {} kernels are drawn unnumbered (place.csv lists them all)",
                                            drawn.size() - top)),
              std::string::npos);
  }
}

}  // namespace
}  // namespace roofline

namespace roofline {
namespace {

struct roof_path {
  std::string ref, color, legend;
  bool sloped = false;
};

/// Every drawn roof: its own class token (the legend's ref), colour, whether a segment slopes (a
/// memory roof's diagonal), and the legend text that names it ("" when none).
std::vector<roof_path> roofs(const std::string& svg) {
  std::vector<roof_path> out;
  static const std::regex path("<path class=\"roof ([^\"]*)\" d=\"([^\"]*)\" stroke=\"(#[0-9a-f]{6})\"");
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), path); it != std::sregex_iterator(); ++it) {
    roof_path r;
    const std::string cls = (*it)[1], d = (*it)[2];
    r.ref = cls.substr(cls.rfind(' ') + 1);
    r.color = (*it)[3];
    std::vector<double> ys;
    static const std::regex pt("[ML]([-0-9.]+) ([-0-9.]+)");
    for (auto q = std::sregex_iterator(d.begin(), d.end(), pt); q != std::sregex_iterator(); ++q)
      ys.push_back(std::stod((*q)[2]));
    for (std::size_t i = 1; i < ys.size(); ++i) r.sloped |= std::abs(ys[i] - ys[i - 1]) > 0.5;
    const auto item = svg.find("class=\"legend-item\" data-ref=\"" + r.ref + "\"");
    if (item != std::string::npos) {
      const auto end = svg.find("</g>", item);
      for (const auto& b : test::svg_text_boxes(svg.substr(item, end - item)))
        r.legend += (r.legend.empty() ? "" : " ") + b.text;
    }
    out.push_back(r);
  }
  return out;
}

TEST(PlaceFigure, TheKeyNamesEachKernelAsTheKernelTableShortensIt) {
  // The H100 training trace (tests/data/h100-2026-12-05/README.md): its four longest kernels are two
  // softmax backward and two forward passes whose names start "void at::native::(anonymous namespace)::";
  // cut at 32 characters they read the same four times. The key takes short_kernel_names' form (the
  // kernel table's): namespaces and `void ` dropped, a tag where two different kernels would read alike.
  test::temp_dir d("place-figure-key");
  const std::string data = test::data("h100-2026-12-05");
  const auto r = test::run_command(bin + " place --trace " + data + "/train-qwen2-2l.json.gz --results " + data +
                                   "/results.json --out " + (d / "out"));
  ASSERT_EQ(r.code, 0) << r.err;
  const std::string svg = read_file(d / "out/place.svg");
  EXPECT_NE(svg.find("data-n=\"304\">304 cunn_SoftMaxBackward&lt;4, float, … (1.67 ms)<"), std::string::npos) << svg;
  EXPECT_NE(svg.find("data-n=\"299\">299 cunn_SoftMaxForward&lt;4, float, f… (1.64 ms)<"), std::string::npos);
  EXPECT_EQ(svg.find(">304 void at::native"), std::string::npos);
  // two nvjet GEMMs whose first 26 characters agree: each with its tag, different
  const std::regex tagged("data-n=\"(306|307)\">[0-9]+ nvjet_sm90_tst_128x256_64x…(~[0-9a-f]{4}) ");
  std::set<std::string> tags;
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), tagged); it != std::sregex_iterator(); ++it) tags.insert((*it)[2]);
  EXPECT_EQ(tags.size(), 2u) << "306 and 307 are different kernels and read differently";
}

TEST(PlaceFigure, EveryRoofIsInTheLegendAndMemoryIsItsOwnLabelledRoof) {
  // The H200's DRAM roof was the diagonal of the fp32 roof, unlabelled and in fp32's blue: every
  // drawn roof has its legend entry, a sloped roof is a memory roof (its entry a bandwidth), and
  // memory roofs are coloured apart from every compute roof. roofline.svg keeps the same rule.
  std::vector<std::pair<std::string, std::string>> figs{{"place --trace", place(trace, "roofs-trace").svg},
                                                        {"place --ncu", place(ncu, "roofs-ncu").svg}};
  figs.emplace_back("roofline.svg", render_svg(load_results(h200)));
  for (const auto& [name, svg] : figs) {
    const auto rs = roofs(svg);
    ASSERT_GE(rs.size(), 2u) << name;
    std::set<std::string> compute_colors;
    for (const auto& r : rs)
      if (!r.sloped) compute_colors.insert(r.color);
    int memory = 0;
    for (const auto& r : rs) {
      EXPECT_FALSE(r.legend.empty()) << name << ": roof " << r.ref << " drawn without a legend entry";
      if (!r.sloped) {
        EXPECT_NE(r.legend.find("OP/s"), std::string::npos)
            << name << ": flat roof " << r.ref << " is '" << r.legend << "'";
        continue;
      }
      ++memory;
      EXPECT_NE(r.legend.find("B/s"), std::string::npos)
          << name << ": sloped roof " << r.ref << " is '" << r.legend << "', not a bandwidth";
      EXPECT_FALSE(compute_colors.count(r.color))
          << name << ": memory roof " << r.ref << " in a compute roof's colour " << r.color;
    }
    EXPECT_GE(memory, 1) << name;
  }
}

}  // namespace
}  // namespace roofline

namespace roofline {
namespace {

TEST(PlaceFigure, DrawsTheRoofEveryKernelIsPlacedAgainst) {
  // The ncu export of TinyLlama decode: 8 tensor-core GEMMs placed against the fp16 GEMM roof (755
  // TFLOP/s measured at n = 4096 on the H200), 26 fp16 and 21 fp32 elementwise kernels against the
  // vector roofs (130 and 65.7 TFLOP/s). The figure drew only the first fp16 roof it met (vector):
  // every roof of place.json's compute_roof_unscaled_flops_per_s is drawn, named by its source.
  for (const auto& [name, input] : {std::pair<std::string, std::string>{"ncu", ncu}, {"trace", trace}}) {
    const placed p = place(input, "like-" + name);
    std::set<std::pair<std::string, std::string>> want;
    for (const auto& k : p.j["kernels"])
      if (k["compute_roof_unscaled_flops_per_s"].is_number())
        want.insert({units::compute_rate(k["compute_roof_unscaled_flops_per_s"].get<double>(),
                                         k["precision"].get<std::string>()),
                     k["compute_roof_source"].get<std::string>()});
    ASSERT_GE(want.size(), name == "ncu" ? 3u : 2u) << name;
    for (const auto& [value, source] : want)
      EXPECT_NE(p.svg.find(": " + value + " (" + source + ")</title></path>"), std::string::npos)
          << name << ": no roof of " << value << " (" << source << ") drawn";
  }
}

}  // namespace
}  // namespace roofline

namespace roofline {
namespace {

TEST(PlaceFigure, TheSubtitlePromisesOnlyWhatIsDrawnAndNominalRoofsAreDrawnWhenKnown) {
  // place.svg said "dashed = nominal" and "hollow = baseline" with neither drawn. A subtitle's
  // promise needs its element: "dashed" a dashed roof, "solid" a solid one, "hollow" a hollow point.
  // The H200 run carries nominal peaks (fp16 tensor 989 TFLOP/s dense, NVIDIA H200 datasheet), so
  // place.svg draws them dashed beside the measured roofs, as roofline.svg does.
  const results h = load_results(h200);
  std::vector<std::pair<std::string, std::string>> figs{{"place --trace", place(trace, "promise-trace").svg},
                                                        {"place --ncu", place(ncu, "promise-ncu").svg}};
  figs.emplace_back("roofline.svg", render_svg(h));
  for (const auto& p : other_figure_precisions(h)) figs.emplace_back("roofline.svg " + p, render_svg(h, p));
  for (const auto& [name, svg] : figs) {
    std::string subtitle;
    for (const auto& b : test::svg_text_boxes(svg))
      if (b.cls == "figure-subtitle") subtitle += b.text + " ";
    ASSERT_FALSE(subtitle.empty()) << name;
    const std::string roofs_drawn =
        svg.substr(svg.find("<g class=\"roofs\""),
                   svg.find("</g>", svg.find("<g class=\"roofs\"")) - svg.find("<g class=\"roofs\""));
    const std::string points =
        svg.substr(svg.find("<g class=\"points\">"),
                   svg.find("</g>", svg.find("<g class=\"points\">")) - svg.find("<g class=\"points\">"));
    static const std::regex solid_roof(
        "<path class=\"roof [^\"]*\" d=\"[^\"]*\" stroke=\"#[0-9a-f]{6}\" stroke-width=\"[0-9.]+\">");
    if (subtitle.find("dashed") != std::string::npos)
      EXPECT_NE(roofs_drawn.find("stroke-dasharray"), std::string::npos) << name << ": " << subtitle;
    if (subtitle.find("solid") != std::string::npos)
      EXPECT_TRUE(std::regex_search(roofs_drawn, solid_roof)) << name << ": " << subtitle;
    if (subtitle.find("hollow") != std::string::npos)
      EXPECT_NE(points.find("fill=\"#ffffff\""), std::string::npos) << name << ": " << subtitle;
  }
  for (std::size_t i = 0; i < 2; ++i) {
    const std::string& svg = figs[i].second;
    EXPECT_NE(svg.find("fp16 tensor nominal " +
                       units::compute_rate(peak_for(h.nominal, "fp16", peak_engine::tensor)->flops_per_s, "fp16")),
              std::string::npos)
        << figs[i].first;
    EXPECT_NE(svg.find("class=\"roof memory nominal roof-dram-nominal\""), std::string::npos) << figs[i].first;
  }
}

}  // namespace
}  // namespace roofline

namespace roofline {
namespace {

TEST(PlaceText, TheClockMatchingIsSaidOnceNotOncePerKernel) {
  // The ncu export records each kernel's SM clock (1944–1980 MHz on the H200): `place` printed one
  // "clock:" line per kernel (51). Now one line gives the count and the range of clock_scale.
  const placed p = place(ncu, "clock");
  std::vector<double> scales;
  for (const auto& k : p.j["kernels"])
    if (k["clock_scale"].is_number()) scales.push_back(k["clock_scale"].get<double>());
  ASSERT_GT(scales.size(), 40u);
  std::size_t lines = 0;
  std::string line;
  for (std::size_t i = 0; (i = p.out.find("clock: ", i)) != std::string::npos; ++i)
    if (i == 0 || p.out[i - 1] == '\n') ++lines, line = p.out.substr(i, p.out.find('\n', i) - i);
  EXPECT_EQ(lines, 1u) << p.out;
  const auto [lo, hi] = std::minmax_element(scales.begin(), scales.end());
  EXPECT_NE(line.find(fmt::format("for {} kernels, {}–{}", scales.size(), units::sig(*lo, 4), units::sig(*hi, 4))),
            std::string::npos)
      << line;
}

}  // namespace
}  // namespace roofline
