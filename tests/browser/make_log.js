// Writes a synthetic exchange log (JSONL, the format of
// samples/agent-session.jsonl) for the large-report test:
//   node make_log.js REQUESTS STREAMS [SYSTEM_REPEATS] > log.jsonl
// Each stream is an agent that appends a turn per request and starts a new
// conversation every 8 requests; every 40th request of a stream comes after
// an idle 7 minutes (beyond the 5-minute TTL), every 25th changes a date in
// its system prompt. The usage is what Anthropic's cache would report,
// to within the token estimate.
'use strict';
const requests = Number(process.argv[2] || 100000);
const streams = Number(process.argv[3] || 300);
const repeats = Number(process.argv[4] || 60); // 60: a system prompt above the minimum
const start = Date.parse('2026-11-20T00:00:00Z');
const base = 'You are a careful coding agent. Read before you write; run the tests after. '
  .repeat(repeats);
const clock = new Array(streams).fill(0);
const turn = new Array(streams).fill(0);
const out = [];
function flush() {
  process.stdout.write(out.join(''));
  out.length = 0;
}
for (let i = 0; i < requests; i++) {
  const s = i % streams;
  const k = turn[s]++;
  clock[s] += k % 40 === 39 ? 420 : 20 + (i % 7);
  const at = new Date(start + (s * 3 + clock[s]) * 1000).toISOString();
  const date = k % 25 === 24 ? '2026-11-21' : '2026-11-20';
  const messages = [];
  const length = (k % 8) + 1;
  for (let m = 0; m < length; m++) {
    messages.push({ role: m % 2 ? 'assistant' : 'user',
      content: [{ type: 'text', text: `turn ${m} of task ${Math.floor(k / 8)} in stream ${s}: ` +
        'fix the failing test. ' }] });
  }
  if (messages.length % 2 === 0) messages.pop();
  messages[messages.length - 1].content[0].cache_control = { type: 'ephemeral' };
  const system = [{ type: 'text', text: `${base} Today is ${date}.`,
    cache_control: { type: 'ephemeral' } }];
  const head = Math.round(repeats * 19 + 6);
  const prompt = head + 40 * messages.length;
  const cold = k % 8 === 0 || k % 40 === 39;
  const read = cold ? (k % 40 === 39 ? 0 : head) : prompt - 80;
  const write = prompt - read - 3;
  out.push(JSON.stringify({
    id: `req_${s}_${k}`, session: `stream_${s}`, started_at: at,
    request: { model: 'claude-sonnet-4-5', max_tokens: 1024, system, messages },
    response: { type: 'message', usage: { input_tokens: 3, cache_creation_input_tokens: write,
      cache_read_input_tokens: read, output_tokens: 120 } },
  }) + '\n');
  if (out.length >= 1000) flush();
}
flush();
