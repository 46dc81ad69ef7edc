#include "report/html_page.hpp"

#include "report/html_escape.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>

namespace cachewise::report {

namespace {

constexpr std::string_view k_style = R"css(
:root{--bg:#fff;--fg:#1b1b1b;--muted:#5a5a5a;--grid:#d9d9d9;--card:#f4f5f7;--mark:#fde6b0;
--p0:#0072b2;--p1:#e69f00;--p2:#d55e00;--p3:#8c8c8c;--s0:#0072b2;--s1:#e69f00;--s2:#009e73;
--s3:#cc79a7;--s4:#d55e00;--gap:#cc79a7;--link:#005a8e;color-scheme:light dark}
@media (prefers-color-scheme:dark){:root{--bg:#141414;--fg:#e9e9e9;--muted:#a8a8a8;--grid:#3a3a3a;
--card:#1f2124;--mark:#6b4d00;--p0:#56b4e9;--p1:#e69f00;--p2:#f07c3a;--p3:#9a9a9a;--s0:#56b4e9;
--s1:#e69f00;--s2:#2fc29a;--s3:#e08fc0;--s4:#f07c3a;--gap:#e08fc0;--link:#7cc4ef}}
*{box-sizing:border-box}
body{margin:0 auto;max-width:1040px;padding:16px 20px 40px;background:var(--bg);color:var(--fg);
font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}
a{color:var(--link)}h1{font-size:22px;margin:4px 0}h2{font-size:18px;margin:28px 0 8px;
border-bottom:1px solid var(--grid);padding-bottom:4px}h3{font-size:15px;margin:16px 0 4px}
.muted,.note{color:var(--muted)}nav a{margin-right:12px}
.cards{display:grid;grid-template-columns:repeat(auto-fill,minmax(180px,1fr));gap:10px}
.card{background:var(--card);border-radius:6px;padding:10px 12px}
.card .value{font-size:20px;font-weight:600;font-variant-numeric:tabular-nums}
.card .label{color:var(--muted);font-size:12px}.card .sub{color:var(--muted);font-size:12px}
table{border-collapse:collapse;margin:8px 0;font-variant-numeric:tabular-nums;font-size:13px}
th,td{border-bottom:1px solid var(--grid);padding:3px 8px;text-align:left;vertical-align:top}
td.n,th.n{text-align:right}th{cursor:pointer;user-select:none}
svg{max-width:100%;height:auto;display:block;margin:6px 0}
svg text{fill:var(--fg);font-size:11px}svg .axis{stroke:var(--grid)}
svg .lbl{fill:var(--muted)}
.p0{fill:var(--p0)}.p1{fill:var(--p1)}.p2{fill:var(--p2)}.p3{fill:var(--p3)}
.up{fill:var(--p2)}.down{fill:var(--s2)}.tot{fill:var(--p0)}
.nc{fill:none;stroke:var(--muted);stroke-dasharray:4 3}
.gap{fill:var(--gap);opacity:.18}.ttl{stroke:var(--gap);stroke-width:1.5;stroke-dasharray:3 2}
.brk{fill:var(--fg)}
.s0{stroke:var(--s0)}.s1{stroke:var(--s1);stroke-dasharray:6 3}.s2{stroke:var(--s2);
stroke-dasharray:2 2}.s3{stroke:var(--s3);stroke-dasharray:8 2 2 2}.s4{stroke:var(--s4);
stroke-dasharray:1 3}.line{fill:none;stroke-width:2}
.f0{fill:var(--s0)}.f1{fill:var(--s1)}.f2{fill:var(--s2)}.f3{fill:var(--s3)}.f4{fill:var(--s4)}
.legend span{display:inline-block;margin-right:14px;font-size:12px}
.sw{display:inline-block;width:11px;height:11px;margin-right:4px;vertical-align:-1px}
.sw.p0{background:var(--p0)}.sw.p1{background:var(--p1)}.sw.p2{background:var(--p2)}
.sw.p3{background:var(--p3)}.sw.gap{background:var(--gap);opacity:.5}
.sw.f0{background:var(--s0)}.sw.f1{background:var(--s1)}.sw.f2{background:var(--s2)}
.sw.f3{background:var(--s3)}.sw.f4{background:var(--s4)}
.finding{background:var(--card);border-radius:6px;padding:8px 12px;margin:10px 0}
.finding:target{outline:2px solid var(--p1)}
pre{white-space:pre-wrap;word-break:break-word;margin:2px 0;padding:6px 8px;
background:var(--bg);border-radius:4px;font:12px/1.4 ui-monospace,Menlo,Consolas,monospace}
mark{background:var(--mark);color:inherit}
input.filter{margin:4px 0;padding:3px 6px;font:inherit;background:var(--bg);color:var(--fg);
border:1px solid var(--grid);border-radius:4px}
details summary{cursor:pointer;color:var(--muted)}
@media print{:root{--bg:#fff;--fg:#000;--muted:#444;--grid:#bbb;--card:#f4f5f7;--mark:#fde6b0;
--p0:#0072b2;--p1:#e69f00;--p2:#d55e00;--p3:#8c8c8c;--s0:#0072b2;--s1:#e69f00;--s2:#009e73;
--s3:#cc79a7;--s4:#d55e00;--gap:#cc79a7;--link:#005a8e;color-scheme:light}
nav,input.filter,details{display:none}body{max-width:none}
.finding,.card,svg,tr{break-inside:avoid}}
)css";

// Sorting and filtering only: every number and chart is in the markup.
constexpr std::string_view k_script = R"js(
(function(){
function key(td){var v=td.getAttribute('data-sort');if(v!==null)return parseFloat(v);
var t=td.textContent.trim();var n=parseFloat(t.replace(/[,%$]/g,''));
return /^-?[\d,.]+%?$/.test(t)?n:t.toLowerCase();}
document.querySelectorAll('table.sortable').forEach(function(table){
table.querySelectorAll('th').forEach(function(th,col){th.addEventListener('click',function(){
var body=table.tBodies[0];var rows=Array.prototype.slice.call(body.rows);
var dir=th.getAttribute('aria-sort')==='ascending'?-1:1;
table.querySelectorAll('th').forEach(function(h){h.removeAttribute('aria-sort');});
th.setAttribute('aria-sort',dir===1?'ascending':'descending');
rows.sort(function(a,b){var x=key(a.cells[col]),y=key(b.cells[col]);
return x<y?-dir:x>y?dir:0;});rows.forEach(function(r){body.appendChild(r);});});});});
document.querySelectorAll('input.filter').forEach(function(input){
var table=document.getElementById(input.getAttribute('data-table'));
input.addEventListener('input',function(){var q=input.value.toLowerCase();
Array.prototype.forEach.call(table.tBodies[0].rows,function(r){
r.hidden=q!==''&&r.textContent.toLowerCase().indexOf(q)<0;});});});
})();
)js";

} // namespace

void
html_page_start(std::ostream& out, std::string_view title, std::string_view command)
{
    fmt::print(out,
               "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
               "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
               "style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:\">\n"
               "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
               "<meta name=\"generator\" content=\"cachewise\">\n"
               "<title>{}</title>\n<style>{}</style>\n</head>\n<body data-command=\"{}\">\n",
               html_escape(title), k_style, html_escape(command));
}

void
html_page_end(std::ostream& out)
{
    fmt::print(out, "<script>{}</script>\n</body>\n</html>\n", k_script);
}

} // namespace cachewise::report
