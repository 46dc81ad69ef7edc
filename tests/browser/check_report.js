// Loads a cachewise --format html report in headless chromium and checks
// what a person would: it loads from file:// with no console error and no
// network request, its screenshot is not blank, the DOM holds the six
// views, and its numbers equal those of --format json on the same input.
//   node check_report.js CHROMIUM REPORT.html REPORT.json [SCREENSHOT.png [DARK.png]]
// REPORT.json "-": a large report, no numbers compared; it must say what it
// aggregated. CACHEWISE_MAX_RENDER_MS: fail when the page takes longer to
// parse, lay out and load (performance timing, browser start excluded).
'use strict';
const fs = require('fs');
const path = require('path');
const { Browser } = require('./cdp');
const { inspect } = require('./png');

const k_views = ['summary', 'waterfall', 'timeline', 'hit-rate', 'causes', 'breaks'];
const failures = [];
function check(ok, what) {
  console.log(`${ok ? 'ok' : 'FAIL'}: ${what}`);
  if (!ok) failures.push(what);
}

function lookup(json, key) {
  if (key === 'suggest:saving') {
    // suggest --format json on the same log: the families with a price.
    const suggest = JSON.parse(fs.readFileSync(process.env.CACHEWISE_SUGGEST_JSON, 'utf8'));
    return suggest.families.filter((f) => f.current.priced && f.suggested.replay.priced)
      .reduce((s, f) => s + f.suggested.replay.cost_usd - f.current.cost_usd, 0);
  }
  const m = /^findings#severity=(\w+)$/.exec(key);
  if (m) return json.findings.filter((f) => f.severity === m[1]).length;
  const negate = key.startsWith('-');
  let v = json;
  for (const part of (negate ? key.slice(1) : key).split('.')) v = v == null ? undefined : v[part];
  return typeof v === 'number' && negate ? -v : v;
}

function close(a, b) {
  return Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(a), Math.abs(b));
}

// As the text output writes them (util/format.cpp): 70.8%, 0.183896, 1,234.
function formatted(key, v) {
  if (/rate|reuse/.test(key)) return `${(100 * v).toFixed(1)}%`;
  if (/usd|cost|saving/.test(key)) return v.toFixed(6);
  return Math.round(v).toString().replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

// Everything the checks read from the page, in one evaluation.
function readPage() {
  const q = (s) => Array.from(document.querySelectorAll(s));
  return {
    command: document.body.dataset.command,
    views: q('section.view').map((s) => s.id),
    charts: q('section.view svg').length,
    cards: q('.card').map((c) => ({ id: c.id, json: c.dataset.json, value: c.dataset.value,
      text: c.querySelector('.value').textContent })),
    steps: q('#waterfall-table tr[data-json]').map((r) => ({ id: r.id, json: r.dataset.json,
      value: r.dataset.value, text: r.cells[1].textContent })),
    hit: q('#hit-rate-table tr[data-series="all streams"]').map((r) => ({
      read: Number(r.dataset.read), input: Number(r.dataset.input) })),
    causes: q('#causes-table tr[data-rule]').map((r) => ({ rule: r.dataset.rule,
      tokens: Number(r.dataset.tokens) })),
    findings: q('article.finding').map((a) => ({ id: a.id, rule: a.dataset.rule })),
    lanes: q('#timeline h3 .muted').map((s) => parseInt(s.textContent.replace(/,/g, ''), 10)),
    // How wide each lane's bars spread, as a share of its chart, when its
    // requests started at more than one time.
    laneSpreads: q('#timeline svg').map((svg) => {
      const xs = Array.from(svg.querySelectorAll('rect[class^="p"]')).map((r) => Number(r.getAttribute('x')));
      const table = document.getElementById(svg.getAttribute('aria-describedby') || '');
      const times = new Set(table ? Array.from(table.querySelectorAll('tbody tr')).map((r) => r.cells[1].textContent) : []);
      return { times: times.size, spread: xs.length ? (Math.max(...xs) - Math.min(...xs)) / Number(svg.getAttribute('width')) : 0 };
    }),
    brokenLinks: q('a[href^="#"]').map((a) => a.getAttribute('href').slice(1))
      .filter((id) => !document.getElementById(id)),
    aggregated: q('#aggregated li').length,
    groups: q('#by-table tr[data-key]').map((r) => ({ key: r.dataset.key,
      requests: Number(r.cells[1].dataset.sort), hit: r.cells[2].textContent === '–' ? null : Number(r.cells[2].dataset.sort),
      actual: r.cells[3].textContent === '–' ? null : Number(r.cells[3].dataset.sort) })),
    duplicateIds: q('[id]').map((e) => e.id).filter((id, i, all) => all.indexOf(id) !== i),
    renderMs: performance.getEntriesByType('navigation')[0].loadEventEnd,
    scripts: q('script').length,
    styles: q('style').length,
    foreign: q('img, iframe, object, embed, link, base, form, audio, video').length,
    handlers: q('*').filter((e) => Array.from(e.attributes).some((a) => /^on/i.test(a.name)))
      .length,
  };
}

function compareNumbers(page, json) {
  for (const c of page.cards.concat(page.steps)) {
    if (!c.json) {
      // Only what the command did not compute goes without a number.
      // (n/a: a hit rate without reported usage, null in the JSON.)
      check(['unpriced', 'not computed', 'n/a'].includes(c.text), `${c.id} shows ${c.text}: no number`);
      continue;
    }
    const want = lookup(json, c.json);
    check(typeof want === 'number' && close(Number(c.value), want) &&
      c.text === formatted(c.json, want),
      `${c.id} shows ${c.text} (${c.value}); --format json ${c.json} = ${want}`);
  }
  const read = page.hit.reduce((s, b) => s + b.read, 0);
  const input = page.hit.reduce((s, b) => s + b.input, 0);
  if (page.command === 'audit') {
    check(read === json.totals.reported.read && input === json.totals.reported.input,
      `hit rate over time sums to read ${read} of ${input}, json ${json.totals.reported.read} ` +
      `of ${json.totals.reported.input}`);
  } else {
    check(read === json.summary.shared_tokens,
      `reuse over time sums to ${read} shared tokens, json ${json.summary.shared_tokens}`);
  }
  const lost = {};
  for (const f of page.command === 'audit' ? json.findings : json.causes) {
    lost[f.rule] = (lost[f.rule] || 0) + f.tokens_lost;
  }
  for (const c of page.causes) {
    check(lost[c.rule] === c.tokens, `cause ${c.rule}: ${c.tokens} tokens lost, json ${lost[c.rule]}`);
  }
  for (const f of page.findings) {
    const i = Number(f.id.slice(2));
    check(json.findings[i] && json.findings[i].rule === f.rule,
      `finding ${f.id} is ${f.rule} as in json`);
  }
  for (const g of page.groups) {
    const want = json.by && json.by.groups[g.key];
    check(want && want.requests === g.requests && (g.hit === null ? want.hit_rate === null : close(want.hit_rate, g.hit)) &&
      (g.actual === null ? want.priced === 0 : close(want.cost_usd.actual.total, g.actual)),
      `by ${json.by ? json.by.key : '?'} ${g.key}: ${g.requests} requests, hit rate ${g.hit}, ` +
      `actual ${g.actual} as in json`);
  }
  if (json.by) {
    check(page.groups.length === Object.keys(json.by.groups).length,
      `${page.groups.length} groups by ${json.by.key}, json ${Object.keys(json.by.groups).length}`);
  }
  // Each lane on its own span: a page-wide axis drew a short stream's bars
  // on top of one another.
  page.laneSpreads.forEach((l, i) => {
    check(l.times < 2 || l.spread > 0.5, `lane ${i}: ${l.times} start times, bars spread over ` +
      `${(100 * l.spread).toFixed(1)}% of the chart`);
  });
  const requests = page.lanes.reduce((s, n) => s + n, 0);
  check(requests === json.requests.length,
    `the timeline's lanes hold ${requests} requests, json ${json.requests.length}`);
}

async function screenshot(browser, session, file, dark) {
  await browser.send('Emulation.setEmulatedMedia', {
    features: [{ name: 'prefers-color-scheme', value: dark ? 'dark' : 'light' }] }, session);
  const shot = await browser.send('Page.captureScreenshot', { format: 'png' }, session);
  const png = Buffer.from(shot.data, 'base64');
  const seen = inspect(png);
  check(seen.colours > 8 && seen.inked > 0.02,
    `${dark ? 'dark' : 'light'} screenshot ${seen.width}×${seen.height} is not blank ` +
    `(${seen.colours} colours, ${(100 * seen.inked).toFixed(1)}% inked)`);
  if (file) fs.writeFileSync(file, png);
}

// The inline script: a click on a header sorts its table, text in a filter
// box hides the rows without it.
function tryScript() {
  const out = {};
  const table = document.querySelector('table.sortable');
  const th = table && Array.from(table.tHead.rows[0].cells).find((c) => c.classList.contains('n'));
  if (th) {
    const col = th.cellIndex;
    const values = () => Array.from(table.tBodies[0].rows)
      .map((r) => parseFloat(r.cells[col].getAttribute('data-sort') ??
        r.cells[col].textContent.replace(/[,%]/g, '')));
    th.click();
    const up = values();
    th.click();
    const down = values();
    out.sorted = up.every((v) => !Number.isNaN(v)) && up.every((v, i) => i === 0 || up[i - 1] <= v) &&
      down.every((v, i) => i === 0 || down[i - 1] >= v);
  }
  const input = document.querySelector('input.filter');
  if (input) {
    const rows = Array.from(document.getElementById(input.dataset.table).tBodies[0].rows);
    const word = rows[rows.length - 1].cells[1].textContent;
    input.value = word;
    input.dispatchEvent(new Event('input'));
    out.filtered = rows.every((r) => r.hidden === (r.textContent.indexOf(word) < 0));
    input.value = '';
    input.dispatchEvent(new Event('input'));
    out.restored = rows.every((r) => !r.hidden);
  }
  return out;
}

async function checkScript(browser, session) {
  const result = await browser.send('Runtime.evaluate',
    { expression: `(${tryScript.toString()})()`, returnByValue: true }, session);
  const seen = result.result.value;
  if (seen.sorted !== undefined) check(seen.sorted, 'a header click sorts up, a second down');
  if (seen.filtered !== undefined) {
    check(seen.filtered && seen.restored, 'the filter box hides the rows without its text');
  }
}

// Printed, the page is dark on light whatever the screen's scheme, without
// the navigation and the filter boxes.
async function checkPrint(browser, session) {
  await browser.send('Emulation.setEmulatedMedia', { media: 'print',
    features: [{ name: 'prefers-color-scheme', value: 'dark' }] }, session);
  const result = await browser.send('Runtime.evaluate', { returnByValue: true, expression:
    `(() => { const s = getComputedStyle(document.body);
      return { color: s.color, nav: getComputedStyle(document.querySelector('nav')).display }; })()`,
  }, session);
  const seen = result.result.value;
  check(seen.color === 'rgb(0, 0, 0)' && seen.nav === 'none',
    `printed from a dark screen: text ${seen.color}, navigation ${seen.nav}`);
  await browser.send('Emulation.setEmulatedMedia', { media: '' }, session);
}

async function main() {
  const [chromium, htmlFile, jsonFile, shotFile, darkFile] = process.argv.slice(2);
  const json = jsonFile === '-' ? null : JSON.parse(fs.readFileSync(jsonFile, 'utf8'));
  const url = 'file://' + path.resolve(htmlFile);
  const browser = new Browser(chromium, ['--window-size=1100,1400']);
  const problems = [];
  const requests = [];
  try {
    const { targetId } = await browser.send('Target.createTarget', { url: 'about:blank' });
    const { sessionId } = await browser.send('Target.attachToTarget', { targetId, flatten: true });
    browser.on((m) => {
      if (m.sessionId !== sessionId) return;
      if (m.method === 'Runtime.consoleAPICalled' && ['error', 'assert'].includes(m.params.type)) {
        problems.push(`console.${m.params.type}: ${JSON.stringify(m.params.args)}`);
      } else if (m.method === 'Runtime.exceptionThrown') {
        problems.push(`exception: ${m.params.exceptionDetails.text}`);
      } else if (m.method === 'Log.entryAdded' && m.params.entry.level === 'error') {
        problems.push(`log: ${m.params.entry.text}`);
      } else if (m.method === 'Page.javascriptDialogOpening') {
        problems.push(`a dialog opened: ${m.params.message}`);
        browser.send('Page.handleJavaScriptDialog', { accept: true }, sessionId);
      } else if (m.method === 'Network.requestWillBeSent') {
        requests.push(m.params.request.url);
      }
    });
    for (const domain of ['Runtime', 'Log', 'Network', 'Page']) {
      await browser.send(`${domain}.enable`, {}, sessionId);
    }
    await browser.send('Emulation.setDeviceMetricsOverride',
      { width: 1100, height: 1400, deviceScaleFactor: 1, mobile: false }, sessionId);
    const loaded = browser.waitFor('Page.loadEventFired', sessionId, 20000);
    const started = Date.now();
    await browser.send('Page.navigate', { url }, sessionId);
    await loaded;
    const loadMs = Date.now() - started;
    const result = await browser.send('Runtime.evaluate', {
      expression: `(${readPage.toString()})()`, returnByValue: true }, sessionId);
    const page = result.result.value;
    console.log(`loaded ${path.basename(htmlFile)} (${fs.statSync(htmlFile).size} bytes) in ` +
      `${loadMs} ms; the page's own load took ${page.renderMs.toFixed(0)} ms`);
    const limit = Number(process.env.CACHEWISE_MAX_RENDER_MS || 0);
    if (limit > 0) {
      check(page.renderMs <= limit, `rendered in ${page.renderMs.toFixed(0)} ms (limit ${limit})`);
    }
    check(problems.length === 0, `no console errors${problems.length ? ': ' + problems.join('; ') : ''}`);
    const outside = requests.filter((u) => u !== url && !u.startsWith('data:'));
    check(outside.length === 0, `no network requests${outside.length ? ': ' + outside.join(', ') : ''}`);
    check(JSON.stringify(page.views) === JSON.stringify(k_views),
      `the six views in order: ${page.views.join(', ')}`);
    // Waterfall, timeline and hit rate always; the causes chart when there are causes.
    const charts = 3 + (page.causes.length > 0 ? 1 : 0);
    check(page.charts >= charts, `${page.charts} charts drawn (at least ${charts})`);
    check(page.duplicateIds.length === 0, `every id is unique${
      page.duplicateIds.length ? ': repeated ' + page.duplicateIds.join(', ') : ''}`);
    check(page.brokenLinks.length === 0, `every in-page link has a target${
      page.brokenLinks.length ? ': missing ' + page.brokenLinks.join(', ') : ''}`);
    check(page.scripts === 1 && page.styles === 1 && page.foreign === 0 && page.handlers === 0,
      `only the page's own script and style: ${page.scripts} scripts, ${page.styles} styles, ` +
      `${page.foreign} embedding elements, ${page.handlers} event-handler attributes`);
    if (json) {
      check(page.command === json.command, `report of ${page.command}, json of ${json.command}`);
      compareNumbers(page, json);
    } else {
      check(page.aggregated > 0, `says what it aggregated (${page.aggregated} lines)`);
    }
    await screenshot(browser, sessionId, shotFile, false);
    await screenshot(browser, sessionId, darkFile, true);
    await checkPrint(browser, sessionId);
    await checkScript(browser, sessionId);
  } finally {
    await browser.close();
  }
  console.log(failures.length ? `${failures.length} checks failed` : 'all checks passed');
  process.exit(failures.length ? 1 : 0);
}

main().catch((e) => {
  console.error(`error: ${e.message}`);
  process.exit(1);
});
