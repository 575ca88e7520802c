#include "report/html_page.hpp"

#include "report/document.hpp"

namespace roofline::report {

namespace {

constexpr const char* css = R"CSS(
:root { color-scheme: light; }
body { font-family: system-ui, -apple-system, "Segoe UI", "DejaVu Sans", Helvetica, Arial, sans-serif; margin: 0 auto;
       max-width: 1280px; padding: 1.5rem 2rem 4rem; color: #1d1d1f; background: #ffffff; line-height: 1.45; }
h1 { font-size: 1.7rem; margin-bottom: 0.3rem; }
h2 { font-size: 1.3rem; margin-top: 2.2rem; border-bottom: 1px solid #d8dde3; padding-bottom: 0.25rem; }
h3 { font-size: 1.05rem; margin: 1.4rem 0 0.5rem; color: #333; }
nav ul { list-style: none; padding: 0; display: flex; flex-wrap: wrap; gap: 0.4rem 1rem; font-size: 0.92rem; }
nav a { color: #1f4fa8; text-decoration: none; } nav a:hover { text-decoration: underline; }
figure { margin: 1.5rem 0; overflow-x: auto; } figure svg { max-width: 100%; height: auto; border: 1px solid #e3e6ea; }
div.multiples { display: grid; grid-template-columns: repeat(auto-fill, minmax(560px, 1fr)); gap: 0.5rem; } div.multiples figure { margin: 0.5rem 0; }
code { background: #f2f4f7; padding: 0.05rem 0.3rem; border-radius: 3px; font-size: 0.9em; }
.tw { overflow-x: auto; margin: 0.6rem 0 1rem; max-width: 100%; }
table { border-collapse: collapse; font-size: 0.88rem; font-variant-numeric: tabular-nums; }
th, td { border: 1px solid #d8dde3; padding: 0.3rem 0.55rem; text-align: left; vertical-align: top; overflow-wrap: normal; word-break: normal; hyphens: manual; }
th.num, td.num { text-align: right; }
td.num { white-space: nowrap; }
td > div.long { max-width: 26em; }
ol.notes { font-size: 0.85rem; color: #444; margin-top: -0.4rem; }
details { margin: 0.8rem 0; border-top: 1px solid #d8dde3; }
details > summary { cursor: pointer; padding: 0.3rem 0; }
details > summary h2 { display: inline; border: 0; font-size: 1.15rem; margin: 0; }
div.headline { background: #f4f8ff; border-left: 4px solid #1f4fa8; padding: 0.2rem 1rem; margin: 0.8rem 0 1rem; font-size: 1.02rem; }
div.headline p { margin: 0.5rem 0; }
p.warning { background: #fff4e5; border-left: 4px solid #e67e22; padding: 0.5rem 0.8rem; }
th { background: #f3f5f8; cursor: pointer; user-select: none; position: sticky; top: 0; }
th:hover { background: #e4e9f0; }
th[data-sort="asc"]::after { content: " \25B2"; font-size: 0.7em; }
th[data-sort="desc"]::after { content: " \25BC"; font-size: 0.7em; }
tbody tr:nth-child(even) { background: #fafbfc; }
tbody tr:hover { background: #eef4ff; }
)CSS";

constexpr const char* script = R"JS(
(function () {
  "use strict";
  function key(td) {
    var v = td ? td.getAttribute("data-v") : null;
    return v === null ? null : parseFloat(v);
  }
  var tables = document.querySelectorAll("table.sortable");
  Array.prototype.forEach.call(tables, function (t) {
    if (!t.tHead || !t.tBodies.length) return;
    var ths = t.tHead.rows[0].cells;
    Array.prototype.forEach.call(ths, function (th, i) {
      th.addEventListener("click", function () {
        var asc = th.getAttribute("data-sort") !== "asc";
        Array.prototype.forEach.call(ths, function (h) { h.removeAttribute("data-sort"); });
        th.setAttribute("data-sort", asc ? "asc" : "desc");
        var body = t.tBodies[0];
        var rows = Array.prototype.slice.call(body.rows);
        rows.sort(function (a, b) {
          var x = a.cells[i], y = b.cells[i];
          var kx = key(x), ky = key(y), c;
          if (kx !== null && ky !== null) c = kx - ky;
          else if (kx !== null) c = -1;
          else if (ky !== null) c = 1;
          else c = (x ? x.textContent : "").localeCompare(y ? y.textContent : "");
          return asc ? c : -c;
        });
        rows.forEach(function (r) { body.appendChild(r); });
      });
    });
  });
  var ok = document.createElement("div");
  ok.id = "roofline-js-ok";
  ok.setAttribute("data-tables", String(tables.length));
  ok.hidden = true;
  document.body.appendChild(ok);
})();
)JS";

}  // namespace

std::string html_page(const std::string& title, const std::string& body) {
  std::string o = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
  o += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n";
  o += "<link rel=\"icon\" href=\"data:,\">\n";
  o += "<title>" + html_escape(title) + "</title>\n<style>" + std::string(css) + "</style>\n</head>\n<body>\n";
  o += body;
  o += "<script>" + std::string(script) + "</script>\n</body>\n</html>\n";
  return o;
}

}  // namespace roofline::report
