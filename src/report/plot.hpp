// A roofline figure as data, and its drawing as plain SVG 1.1 (no script, no external font, no
// CSS beyond presentation attributes) so it renders in browsers and inside GitHub markdown.
// Axes: log10 arithmetic intensity (FLOP/B) against log10 performance (FLOP/s), decade ticks.
#pragma once
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace roofline::report {

/// A roof: min(peak, intensity × bw), one <path class="roof …">. Without bw it is flat. `part`
/// draws only the flat part (a compute roof from its ridge rightwards) or only the diagonal (a
/// memory roof up to the peak it is capped at); "both" draws the whole min().
struct plot_roof {
  std::string label;  ///< legend text, e.g. "fp16 tensor measured 712 TFLOP/s"
  std::string short_label;  ///< text on the flat part (placed only where it fits)
  std::string color;
  bool dashed = false;  ///< nominal roofs are dashed, measured ones solid
  double peak = 0;
  std::optional<double> bw;
  double width = 2;
  std::string cls;  ///< extra class tokens; the last is the roof's own (the legend's ref)
  std::string part = "both";  ///< both | flat | diagonal
};

/// A marked point: an op (hollow = predicted, filled = measured), a ridge point, a sweep point.
struct plot_point {
  double x = 0, y = 0;  ///< FLOP/B, FLOP/s
  bool filled = true;
  std::string color;
  std::string shape = "circle";  ///< circle | square | diamond | triangle
  double size = 5;
  std::string cls;    ///< class tokens: "op-pred scenario-0", "op-meas …", "ridge …", "sweep-point"
  std::string title;  ///< hover text (<title>)
  std::string label;  ///< text beside it, placed without overlap ("" = none)
  int number = 0;     ///< >0: the number shown (and listed) where the label does not fit
  int group = -1;     ///< points of one group share one label (predicted + measured of an op)
  std::string legend_text;  ///< the numbered legend's line when only the number fits
};

/// The op key beside the figure: one group per scenario (its colour), each op as "number name".
struct key_group {
  std::string title, color;
  std::vector<std::pair<int, std::string>> entries;
};

struct plot_link {  ///< predicted → measured of one op
  double x0, y0, x1, y1;
  std::string color;
};

struct plot_trace {  ///< a polyline, e.g. the decode batch sweep
  std::vector<std::pair<double, double>> pts;
  std::string color, label, cls = "sweep";
};

/// A vertical line across the whole chart at x (a knee), its label inside the frame at the top (or
/// the bottom), so that it reads without the legend.
struct plot_vline {
  double x = 0;
  std::string color, label, cls;
  bool label_at_top = true;
};

/// A legend entry. `ref` is a class token of the drawn elements it stands for: draw_svg keeps an
/// entry only when an element with that token was drawn, so the legend never promises more.
struct legend_item {
  enum class kind { solid, dashed, hollow, filled, diamond, hollow_diamond, square, triangle, cross } k = kind::solid;
  std::string color, label, ref;
};

/// One point of the bandwidth-against-working-set chart drawn under the roofline.
struct bw_point {
  double working_set = 0, bytes_per_s = 0;
  std::string pattern, level;
  bool rejected = false;
  std::string title;  ///< hover text
};

struct plot {
  std::string title, subtitle;
  std::vector<plot_roof> roofs;
  std::vector<plot_trace> traces;
  std::vector<plot_vline> vlines;
  std::vector<plot_link> links;
  std::vector<plot_point> points;  ///< drawn in order; labels placed in order
  std::vector<legend_item> legend;
  std::vector<std::string> notes;  ///< shown under the legend (e.g. ops not plottable)
  std::vector<key_group> key;      ///< non-empty: the op key under the legend; every point number in it
  std::string key_title = "Op key (# = the op table's number)";
  std::vector<bw_point> bandwidth;  ///< non-empty: a second chart, bandwidth against working set
  // The axes (defaults: the roofline's). Another log-log chart (the fleet's collective time against
  // message bytes) sets its own labels and tick units.
  std::string x_label = "arithmetic intensity (FLOP/B, log scale)";
  std::string y_label = "performance (FLOP/s, log scale)";
  std::string x_unit;             ///< x tick labels: "" plain numbers (0.1, 1, 10), else SI with this unit ("1 kB")
  std::string y_unit = "FLOP/s";  ///< y tick labels: SI with this unit
  int max_x_decades = 9;          ///< widest x range drawn (the left end is cut beyond it)
  /// Explicit x ticks, ascending (the batches of a sweep: 1, 2, 4, … 256): the x axis then runs from the
  /// first to the last, and only these are labelled. Empty: the axes rule of draw_svg.
  std::vector<double> x_ticks;
};

/// Draws the figure, 1200 px wide. Deterministic (fixed-precision coordinates, input order).
///
/// The axes fit the data: each runs from a "nice" value (1, 2 or 5 × 10^k) at or below the smallest
/// value drawn to one at or above the largest, so the margin is under a decade. A figure with roofs
/// pads its x axis for the roof labels (× 2.5 right of the last point) and keeps at least four decades
/// of x and three of y, so that a memory roof's diagonal shows; its y axis reaches down to the lowest
/// point or where the lowest memory roof enters, whichever is lower, and no further. Ticks: every decade when an axis spans three decades or more, else
/// 1, 2 and 5 × 10^k; `x_ticks` replaces the x rule.
std::string draw_svg(const plot& p);

/// Stacks SVG documents (draw_svg's, draw_ratio_svg's) vertically in one: each becomes a nested <svg>
/// at its y offset; empty parts are skipped; "" when all are. `title` is the whole figure's <title>.
std::string stack_svgs(const std::vector<std::string>& parts, const std::string& title);

/// One bar of a ratio chart: B ÷ A of one quantity.
struct ratio_bar {
  std::string label;  ///< the quantity ("fp16 compute roof, measured")
  double ratio = 0;   ///< B ÷ A (> 0)
  std::string detail; ///< the two values, shown after the ratio ("756 → 703 TFLOP/s")
};

/// A horizontal bar chart of ratios on a log axis centred on 1× (bars right of it: B is higher),
/// 1200 px wide, one row per bar; the axis spans the nearest 1-2-5 bounds around the bars, at least
/// 0.5×–2×. Plain SVG 1.1 like draw_svg.
std::string draw_ratio_svg(const std::string& title, const std::string& subtitle, const std::vector<ratio_bar>& bars);

/// Colour of a precision (fp64 purple, fp32 blue, tf32 teal, bf16 brown, fp16 red, fp8 green, …).
std::string precision_color(const std::string& precision);
/// Colour of the i-th op scenario (decode b1, decode b32, prefill, …).
std::string scenario_color(std::size_t i);
/// Colour of a memory level (l1 pink, l2 olive, l3/llc gold, device memory near-black, others grey).
std::string level_color(const std::string& level);
/// Colour of an access pattern's line in the bandwidth chart (read, write, copy, triad).
std::string pattern_color(const std::string& pattern);

}  // namespace roofline::report
