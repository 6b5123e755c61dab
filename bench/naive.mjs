// The reference of the real limiters' table (bench/limiters.mjs): a naive client told the rate. It
// sends one row every 1000 / rate ms, four in flight at most (told a cap of N in flight instead:
// N loops, unspaced), as plain keep-alive fetch POSTs; a refused row is sent again in its turn,
// and a 429's Retry-After, when there is one, pauses it. No discovery, no memory, no journal.
//
// node bench/naive.mjs <baseUrl> <key> <file.csv> <rate|cap:N>
// Prints { elapsedMs, requests, throttled } as JSON.
import { readFileSync } from 'node:fs';
import { postContact } from './post-contact.mjs';

const [baseUrl, key, file, told] = process.argv.slice(2);
const rows = readFileSync(file, 'utf8').trim().split('\n').slice(1);
const cap = told.startsWith('cap:') ? Number(told.slice(4)) : undefined;
const gapMs = cap === undefined ? 1000 / Number(told) : 0;
const inFlightMax = cap ?? 4;
const queue = rows.map((_, i) => i);
let requests = 0;
let throttled = 0;
let nextAt = performance.now();
let pausedUntil = 0;
const started = performance.now();

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
async function loop() {
  while (queue.length > 0) {
    // This loop's turn: the next slot of the pace, after any pause.
    const at = Math.max(nextAt, pausedUntil);
    nextAt = Math.max(at, performance.now() - gapMs) + gapMs;
    const wait = at - performance.now();
    if (wait > 0) await sleep(wait);
    const row = queue.shift();
    if (row === undefined) return;
    requests += 1;
    const res = await postContact(baseUrl, key, rows[row]);
    if (res.status === 429) {
      throttled += 1;
      queue.push(row);
      const ra = Number(res.headers.get('retry-after'));
      if (res.headers.get('retry-after') !== null && Number.isFinite(ra)) pausedUntil = Math.max(pausedUntil, performance.now() + ra * 1000);
    } else if (res.status >= 300) throw new Error(`row ${row}: ${res.status}`);
  }
}
await Promise.all(Array.from({ length: inFlightMax }, loop));
console.log(JSON.stringify({ elapsedMs: performance.now() - started, requests, throttled }));
