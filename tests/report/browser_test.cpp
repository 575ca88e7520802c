// report.html as a user opens it: headless Chromium (Debian's `chromium`) loads the file, runs its
// script, and we check the dumped DOM and the console. Skipped only when chromium is not installed.
#include <gtest/gtest.h>

#include <filesystem>

#include "roofline/report.hpp"
#include "test_util.hpp"

namespace roofline {
namespace {

namespace fs = std::filesystem;

std::string chromium() {
  for (const char* p : {"/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"})
    if (fs::exists(p)) return p;
  return "";
}

/// Loads `file` headless; returns the DOM after scripts ran (stdout) and the browser log (stderr).
test::run_result load(const std::string& browser, const std::string& file, const test::temp_dir& d) {
  return test::run_command("timeout 120 " + browser +
                           " --headless --no-sandbox --disable-gpu --no-first-run --no-default-browser-check"
                           " --user-data-dir=" + (d / "profile") +
                           " --enable-logging=stderr --v=0 --window-size=1300,900 --virtual-time-budget=3000 --dump-dom file://" + file);
}

/// Console errors in a Chromium log: lines of the form `...:CONSOLE(n)] "message", source: ...`
/// at level ERROR or with an uncaught exception.
std::string console_errors(const std::string& log) {
  std::string bad;
  std::size_t start = 0;
  while (start < log.size()) {
    const auto end = log.find('\n', start);
    const std::string line = log.substr(start, end == std::string::npos ? std::string::npos : end - start);
    if (line.find("CONSOLE") != std::string::npos &&
        (line.find("ERROR") != std::string::npos || line.find("Uncaught") != std::string::npos))
      bad += line + "\n";
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return bad;
}

TEST(Browser, ReportHtmlLoadsWithoutConsoleErrorsAndDrawsEverything) {
  const std::string browser = chromium();
  if (browser.empty()) GTEST_SKIP() << "chromium not installed (apt-get install chromium)";
  test::temp_dir d("browser");
  const results r = load_results(test::data("results-gpu.json"));
  const std::string html = render_html(r);
  write_file_atomic(d / "report.html", html);
  // A second copy with a probe that clicks the op table's "#" header twice (descending) and records
  // the first row's number: the sorting script works when it is the last op, 16.
  const std::string probe =
      "<script>(function(){var t=document.querySelector('#ops table.sortable');var th=t.tHead.rows[0].cells[0];"
      "th.click();th.click();var m=document.createElement('div');m.id='sort-check';"
      "m.textContent='first='+t.tBodies[0].rows[0].cells[0].textContent;document.body.appendChild(m);})();</script>";
  // ... and a recorder, first in <head>, of console.error calls and uncaught errors (Chromium logs
  // console.error at INFO level, so the log alone cannot tell it from console.log).
  const std::string recorder =
      "<script>window.__errs=[];(function(){var e=console.error;console.error=function(){"
      "window.__errs.push(Array.prototype.join.call(arguments,' '));e.apply(console,arguments);};"
      "window.addEventListener('error',function(ev){window.__errs.push(String(ev.message));});})();</script>";
  const std::string report_errors =
      "<script>(function(){var m=document.createElement('div');m.id='console-errors';"
      "m.textContent='errors='+window.__errs.length+(window.__errs.length?': '+window.__errs.join(' | '):'');"
      "document.body.appendChild(m);})();</script>";
  std::string probed = html;
  probed.insert(probed.find("<head>") + 6, recorder);
  probed.insert(probed.rfind("</body>"), probe + report_errors);
  write_file_atomic(d / "probed.html", probed);

  const auto page = load(browser, d / "report.html", d);
  ASSERT_NE(page.out.find("id=\"roofline-js-ok\""), std::string::npos) << "the page script did not finish\n" << page.err;
  EXPECT_EQ(console_errors(page.err), "");
  // the inline SVG drew every roof of its panel and every op point: fp16's (nominal, measured) compute
  // roofs, the nominal HBM roof, the measured L2 and HBM roofs; 15 ops with FLOPs, 14 of them run
  // (the small multiples of the other precisions, collapsed at the end, draw roofs only)
  const std::string figure = page.out.substr(0, page.out.find("<details class=\"multiples\""));
  EXPECT_EQ(test::count(figure, "<path class=\"roof "), 5u);
  EXPECT_EQ(test::count(page.out, "class=\"op-pred "), 15u);
  EXPECT_EQ(test::count(page.out, "class=\"op-meas "), 14u);
  EXPECT_EQ(test::count(page.out, "class=\"bw-point "), r.measured.bandwidth.size());
  EXPECT_GT(test::count(page.out, "<path class=\"roof "), 5u);
  // every table is sortable and nothing refers to the network
  EXPECT_NE(page.out.find("data-tables=\"" + std::to_string(test::count(html, "<table class=\"sortable\">")) + "\""), std::string::npos);
  EXPECT_EQ(html.find("http://"), html.find("http://www.w3.org/2000/svg"));
  EXPECT_EQ(html.find("https://"), std::string::npos);

  // Layout at 1300 px: every <details> opened, no table wider than the space it has (no horizontal
  // scroll of a table, nor of the page).
  const std::string layout =
      "<script>(function(){Array.prototype.forEach.call(document.querySelectorAll('details'),function(x){x.open=true;});"
      "var wide=[];Array.prototype.forEach.call(document.querySelectorAll('table'),function(t){"
      "var w=t.parentNode.clientWidth;if(t.scrollWidth>w+1)wide.push(t.closest('section,details').id+':'+t.scrollWidth+'>'+w);});"
      "var m=document.createElement('div');m.id='layout-check';"
      "var de=document.documentElement;m.textContent='viewport='+window.innerWidth+' pagefits='+(de.scrollWidth<=de.clientWidth)+' wide='+wide.length+(wide.length?': '+wide.join(' '):'');"
      "document.body.appendChild(m);})();</script>";
  std::string laid = html;
  laid.insert(laid.rfind("</body>"), layout);
  write_file_atomic(d / "layout.html", laid);
  const auto lay = load(browser, d / "layout.html", d);
  const auto at = lay.out.find("<div id=\"layout-check\">");
  ASSERT_NE(at, std::string::npos) << lay.err;
  const std::string check = lay.out.substr(at, lay.out.find("</div>", at) - at);
  EXPECT_NE(check.find("viewport=1300 pagefits=true wide=0"), std::string::npos) << check;

  const auto sorted = load(browser, d / "probed.html", d);
  EXPECT_NE(sorted.out.find("<div id=\"sort-check\">first=16</div>"), std::string::npos) << sorted.err;
  EXPECT_NE(sorted.out.find("<div id=\"console-errors\">errors=0</div>"), std::string::npos) << sorted.out.substr(sorted.out.rfind("<div"));
  EXPECT_EQ(console_errors(sorted.err), "");
}

TEST(Browser, TheConsoleCheckCatchesAnUncaughtError) {
  // The check above is only worth something if it sees an error when there is one.
  const std::string browser = chromium();
  if (browser.empty()) GTEST_SKIP() << "chromium not installed (apt-get install chromium)";
  test::temp_dir d("browser-neg");
  write_file_atomic(d / "bad.html", "<!DOCTYPE html><html><body><script>undefined_function();</script></body></html>");
  const auto page = load(browser, d / "bad.html", d);
  EXPECT_NE(console_errors(page.err).find("Uncaught ReferenceError"), std::string::npos) << page.err;
}

}  // namespace
}  // namespace roofline
