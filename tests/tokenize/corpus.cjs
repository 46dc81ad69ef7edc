// Writes a deterministic mixed corpus (English, code, JSON, CJK, emoji,
// other scripts, invalid UTF-8, long runs of whitespace and digits) as raw
// bytes. Used by conformance.cjs; also handy by itself:
//   node corpus.cjs OUT_FILE MEGABYTES
'use strict';
const fs = require('fs');

function rng(seed) {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6D2B79F5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const words = ('the of and to in is was for that with as on by at from it an be this are or ' +
  'which have has but not were they their been can more one all also other new about into time ' +
  'cache prompt token tokenizer request response model segment prefix hit miss write read ' +
  "don't it's we're they've I'm you'll he'd O'Neil rock'n'roll SHOULDN'T WE'RE She'S " +
  'HTTPServer getHTTPResponse camelCase snake_case kebab-case XMLHttpRequest iPhone McDonald ' +
  'naïve café résumé coöperate façade Ångström straße ǅemal ǈubljana ʰaspirated').split(' ');
const code = [
  'function f(a, b) {\n  return a + b; // sum\n}\n',
  'for (int i = 0; i < n; ++i) {\n\tif (x[i] != y[i]) { return -1; }\n}\n',
  'def main():\n    """Docstring."""\n    print(f"{x!r:>10}")\n    return {\'k\': [1, 2, 3]}\n\n',
  '#include <stdio.h>\nint main(void){printf("%d\\n", 42);}\n',
  '    const std::string_view s = "a\\tb";\r\n    auto [x, y] = p;\r\n',
  'SELECT id, name FROM users WHERE age >= 18 AND name LIKE \'%son\';\n',
  '<div class="x">&nbsp;&lt;tag&gt;</div>\n', 'a//b /// c://d e/f/ /',
  '$ ls -la /usr/local/bin && echo "done" | tee -a log.txt\n',
  'x=1;y=2;z=x**y%3<<2>>1&&!!q||~w^e\n', '    \n\n\n    \t\t\n',
];
const scripts = [
  [0x4E00, 0x9FFF], [0x3040, 0x30FF], [0xAC00, 0xD7A3], [0x0400, 0x04FF], [0x0370, 0x03FF],
  [0x0600, 0x06FF], [0x0900, 0x097F], [0x0E00, 0x0E7F], [0x05D0, 0x05EA], [0x1F600, 0x1F64F],
  [0x1F300, 0x1F5FF], [0x2000, 0x206F], [0x0300, 0x036F], [0xFF00, 0xFFEF], [0x3000, 0x303F],
  [0x1D400, 0x1D7FF], [0x2070, 0x209F], [0x00A0, 0x00FF], [0x1E00, 0x1EFF], [0x2460, 0x24FF],
];
const emoji = ['👨‍👩‍👧‍👦', '🏳️‍🌈', '👍🏽', '🇯🇵', '❤️', '🤖', '✅', '🔥🔥🔥', '1️⃣', '🧑🏿‍💻'];
const invalid = [
  [0xC3], [0x80], [0xE2, 0x82], [0xF0, 0x9F, 0x98], [0xED, 0xA0, 0x80], [0xC0, 0xAF],
  [0xF5, 0x80, 0x80, 0x80], [0xFF], [0xFE, 0xFE], [0xE0, 0x80, 0x80], [0xF4, 0x90, 0x80, 0x80],
];

function pick(r, list) { return list[Math.floor(r() * list.length)]; }

function chunk(r) {
  const kind = Math.floor(r() * 12);
  let s = '';
  switch (kind) {
  case 0: case 1: case 2: {
    const n = 5 + Math.floor(r() * 40);
    for (let i = 0; i < n; ++i) {
      let w = pick(r, words);
      if (r() < 0.1) w = w.toUpperCase();
      if (r() < 0.1) w = w[0].toUpperCase() + w.slice(1);
      s += (i ? ' ' : '') + w + (r() < 0.1 ? pick(r, [',', '.', '!', '?', ';', ':', '...', ' -', '—']) : '');
    }
    return s + pick(r, ['\n', '\n\n', ' ', '  \n', '\r\n', '']);
  }
  case 3: case 4: return pick(r, code);
  case 5: {
    const obj = {};
    const n = 1 + Math.floor(r() * 6);
    for (let i = 0; i < n; ++i) {
      obj[pick(r, words) + i] = r() < 0.3 ? Math.floor(r() * 1e9) : r() < 0.5 ? pick(r, words) : [r(), null, true];
    }
    return JSON.stringify(obj, null, r() < 0.5 ? 2 : 0) + '\n';
  }
  case 6: case 7: {
    const [lo, hi] = pick(r, scripts);
    const n = 1 + Math.floor(r() * 30);
    for (let i = 0; i < n; ++i) {
      const cp = lo + Math.floor(r() * (hi - lo + 1));
      s += String.fromCodePoint(cp);
      if (r() < 0.15) s += pick(r, [' ', '，', '。', '、', '\n', '!', '1', '2024', "'s"]);
    }
    return s;
  }
  case 8: return pick(r, emoji) + pick(r, ['', ' ', '\n', 'ok']);
  case 9: {
    const c = pick(r, [' ', '\t', '\n', '\r\n', '0', '9', '  \n', '٣', '١٢']);
    return c.repeat(1 + Math.floor(r() * (r() < 0.05 ? 3000 : 40))) + pick(r, ['x', ' x', '', '\n', '.']);
  }
  case 10: return String(Math.floor(r() * 1e15)) + pick(r, ['.', ',', ' ', '']) + String(Math.floor(r() * 1e6));
  default: return null; // invalid bytes
  }
}

function make_corpus(bytes, seed) {
  const r = rng(seed);
  const parts = [];
  let size = 0;
  while (size < bytes) {
    const c = chunk(r);
    const b = c === null ? Buffer.from(pick(r, invalid)) : Buffer.from(c, 'utf8');
    parts.push(b);
    size += b.length;
  }
  return Buffer.concat(parts);
}

module.exports = { make_corpus };
if (require.main === module) {
  const [, , out, mb] = process.argv;
  fs.writeFileSync(out, make_corpus(Math.round(Number(mb || 10) * 1048576), 17));
}
