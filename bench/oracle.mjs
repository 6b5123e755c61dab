// The reference for the pace matrix: a plain client told the server's limit. It knows the
// limiter's shape and figures (and a fixed window's phase), keeps to them on its own clock with
// plain keep-alive fetch POSTs — no discovery, no parsing, no journal — and honours a 429's
// Retry-After like any client. What it misses of the limit over real HTTP is this machine's (late
// timers, the server's own timers, the round trip each place in flight stands idle) and its own
// margins' (2 ms of a bucket of one's gap; a sliding window's slot held until its answer is back,
// a round trip past the server's); what callctl misses beyond it, mostly the price of not being
// told. It is no upper bound: where its fixed margin is too thin (a bucket of one) a 429 costs it
// a second that a client with a wider one does not pay. Its time runs from its first request,
// callctl's from the start of its job; both are divided into the same least wall time, counted
// from the moment the process was started (so a fixed window's first one is shorter for both).
//
// node bench/oracle.mjs <baseUrl> <key> <file.csv> '<limiter json>' <origin> [wireDelayMs]
//   limiter json: { limiter, rateLimit, burst, windowMs, maxInflight } as startSandbox takes them
//   origin: the sandbox process's performance.timeOrigin (its fixed windows count from it)
//   wireDelayMs: the sandbox's --wire-delay, each way (a fixed window's last moments are kept clear
//   of it)
// Prints { elapsedMs, requests, throttled } as JSON.
import { readFileSync } from 'node:fs';
import { postContact } from './post-contact.mjs';

const [baseUrl, key, file, specJson, originArg, wireArg] = process.argv.slice(2);
const spec = JSON.parse(specJson);
const origin = Number(originArg);
const rows = readFileSync(file, 'utf8').trim().split('\n').slice(1);
// The sandbox's clock (its performance.now()), read from this process's.
const now = () => performance.timeOrigin + performance.now() - origin;
// Requests reach the server a little later than they leave, and not all by the same delay (a new
// connection's first, the server's busy event loop): the model keeps this much time in hand.
const JITTER_MS = 2;
const WIRE_MS = Number(wireArg ?? 0);
const inFlightMax = spec.limiter === 'concurrency' ? spec.maxInflight : 4;

let next = 0;
const retry = [];
let inflight = 0;
let pausedUntil = 0;
let requests = 0;
let throttled = 0;
let timer;
let started;
let finish;
const done = new Promise((resolve) => (finish = resolve));

// The limiter's model: when the next request may start (now, or later).
const R = spec.rateLimit;
const W = spec.windowMs ?? 1000;
const quota = Math.max(1, Math.round((R * W) / 1000));
const burst = spec.burst ?? Math.max(1, Math.round(R));
let tokens = burst;
let tokensAt = now();
// A bucket: a request goes when the model holds a token and a reserve besides — a token, or the
// jitter's worth of refill if more (a request that reaches the server sooner after the one before
// than it left finds its token); a bucket too small to hold that reserve is paced the jitter under
// its rate instead.
const reserve = Math.max(1, (R * JITTER_MS) / 1000);
const gapMs = burst >= 1 + reserve ? 0 : 1000 / R + JITTER_MS;
let lastSend = -Infinity;
let windowStart = -Infinity;
let windowCount = 0;
// A sliding window's log: a request surely reached the server by the time its answer came back.
const answered = [];
let sentInLog = 0;
function dueAt(t) {
  switch (spec.limiter) {
    case 'bucket':
      tokens = Math.min(burst, tokens + ((t - tokensAt) * R) / 1000);
      tokensAt = t;
      if (gapMs > 0) return Math.max(t, lastSend + gapMs);
      return tokens >= 1 + reserve ? t : t + ((1 + reserve - tokens) * 1000) / R;
    case 'window': {
      const start = Math.floor(t / W) * W;
      if (start !== windowStart) {
        windowStart = start;
        windowCount = 0;
      }
      // Not in the window's last moments: the request could reach the server in the next one.
      return windowCount < quota && t < start + W - JITTER_MS - WIRE_MS ? t : start + W;
    }
    case 'sliding':
      while (answered.length > 0 && answered[0] + W + 1 <= t) {
        answered.shift();
        sentInLog -= 1;
      }
      return sentInLog < quota ? t : answered.length > 0 ? answered[0] + W + 1 : t + 1;
    default:
      return t;
  }
}
function take(t) {
  if (spec.limiter === 'bucket') {
    tokens -= 1;
    lastSend = t;
  } else if (spec.limiter === 'window') windowCount += 1;
  else if (spec.limiter === 'sliding') sentInLog += 1;
}

// The first request goes alone: over a new connection, to a server whose code has not yet run,
// it takes many times a warm one's round trip, and those sent behind it reach the server bunched.
let warm = false;
function pump() {
  clearTimeout(timer);
  timer = undefined;
  while (inflight < (warm ? inFlightMax : 1) && (retry.length > 0 || next < rows.length)) {
    const t = now();
    const due = Math.max(pausedUntil, dueAt(t));
    if (due > t) {
      timer = setTimeout(pump, Math.ceil(due - t));
      return;
    }
    take(t);
    send(retry.length > 0 ? retry.shift() : rows[next++]).catch((err) => {
      console.error(`oracle: ${err.message}`);
      process.exit(1);
    });
  }
  if (inflight === 0 && retry.length === 0 && next >= rows.length) finish();
}

async function send(line) {
  started ??= performance.now();
  inflight += 1;
  requests += 1;
  const res = await postContact(baseUrl, key, line);
  inflight -= 1;
  if (!warm) {
    warm = true;
    // The server's bucket as it stands now: whole when the request arrived, less that request.
    tokens = Math.min(tokens, burst - 1);
    tokensAt = now();
    lastSend = now();
  }
  if (spec.limiter === 'sliding') answered.push(now());
  if (res.status === 429) {
    throttled += 1;
    retry.push(line);
    const after = Number(res.headers.get('retry-after') ?? '1');
    pausedUntil = Math.max(pausedUntil, now() + after * 1000);
    // The server's count was above the model's: start the model over from empty, less what is
    // still on its way there.
    tokens = -inflight;
    tokensAt = now();
    windowCount = quota;
  } else if (res.status >= 300) {
    throw new Error(`HTTP ${res.status} for ${line}`);
  }
  pump();
}

pump();
await done;
console.log(JSON.stringify({ elapsedMs: performance.now() - started, requests, throttled }));
