// The self-contained HTML page around a report body: inline CSS, inline sorting script, no network
// (no external font, script, style or image; the favicon is a data: URL).
#pragma once
#include <string>

namespace roofline::report {

/// A full HTML5 page. Tables wrap only at word boundaries (never inside a word); a table wider than
/// the page scrolls sideways inside its `div.tw`, the page itself never does. `body` is trusted HTML (already escaped). Clicking a header of any
/// `table.sortable` sorts it by the cells' data-v numbers (else their text); when the script has
/// run it appends `<div id="roofline-js-ok">` (the browser test looks for it).
std::string html_page(const std::string& title, const std::string& body);

}  // namespace roofline::report
