/**
 * What a run of spans proves of the limit, whatever the pace did (blind-learner.ts asks): the rates
 * and sizes of a token bucket that fit every span (bucketBounds), and the quota of a fixed window
 * that fits them at one phase (fixedGridQuota). Pure functions of the spans, tested directly.
 */
import { BOUNDS_COARSE, BOUNDS_STEP, GRID_SPREAD, GRID_WINDOWS_BACK, MIN_RATE, SPAN_SENDS_MAX, WIRE_SLACK_MAX_MS, WIRE_SLACK_MS } from './tuning.js';

/** An admitted request of a span: when it was sent, and its round trip (ms). */
export interface Admit {
  sentAt: number;
  rtt: number;
}

export interface Span {
  /** The pause before it (Infinity for the first: the limit was whole). */
  pauseMs: number;
  /** How long it lasted and how many of its requests were admitted. */
  T: number;
  A: number;
  /** Whether it began in slow start. */
  slow: boolean;
  /** Every request sent in it, in order (ms), the refused one's send, and how far a request's arrival may stray from its send (ms). */
  sends: number[];
  refusedAt: number;
  jitterMs: number;
  /** The longest round trip of its admitted answers (no request took longer one way), and its sends that failed in transport. */
  rttMaxMs: number;
  /** The shortest round trip of its admitted answers (Infinity: none). */
  rttMinMs: number;
  /** Its admitted requests: when each was sent and its round trip (ms), as their answers came. */
  admits: Admit[];
  /** The refused request's round trip (ms). */
  refusedRttMs: number;
  /**
   * Admitted requests sent after the refused one, within its jitter, whose answers came after its
   * 429: on the wire they may have overtaken it (a window's count, not a bucket's — see quotaCount).
   */
  overtook: number;
  failed: number;
  /** The pause its 429 called for (ms). */
  retryAfterMs: number;
  /** Whether the 429 that ended it said when to come back (Retry-After). */
  retryAfterKnown: boolean;
}

/**
 * The quota of a fixed window of `windowMs` that every span fits at one phase (undefined: none, or
 * too many). A request arrived between its send and its send plus what its round trip took over the
 * shortest (give or take a constant, the shortest way there, which the phase takes up). At a phase,
 * each span's refused request came after its window had admitted the quota — the admitted requests
 * that surely arrived in that window at most, those that may have (and those not answered yet) at
 * least — and no earlier window of the span admitted more. The quotas that fit at some phase must
 * lie within GRID_SPREAD of each other (the spans pin it); the least of them is taken: one too many
 * would cost a 429 under the log, one too few a request per window.
 */
export function fixedGridQuota(spans: Array<Pick<Span, 'admits' | 'refusedAt' | 'refusedRttMs' | 'sends'>>, windowMs: number): number | undefined {
  // A request's arrival lies between its send and its send plus what its round trip took over the
  // shortest (plus a constant, the shortest way there, which the phase takes up). One that took
  // much longer may have been late on the way out (a new connection, a retransmission) by any
  // part of it: where it arrived is unknown, and it is surely in no window.
  let rttMin = Infinity;
  for (const sp of spans) for (const a of sp.admits) rttMin = Math.min(rttMin, a.rtt, sp.refusedRttMs);
  const prepared = spans.map((sp) => {
    const admits = [...sp.admits].sort((a, b) => a.sentAt - b.sentAt);
    const at = admits.map((a) => a.sentAt);
    const late = admits.map((a) => (a.rtt - rttMin > WIRE_SLACK_MAX_MS ? Infinity : a.rtt - rttMin + WIRE_SLACK_MS));
    const unknown = admits.filter((a) => a.rtt - rttMin > WIRE_SLACK_MAX_MS).map((a) => a.sentAt);
    return { at, late, unknown, sends: sp.sends, refusedAt: sp.refusedAt, refusedLate: Math.min(WIRE_SLACK_MAX_MS, sp.refusedRttMs - rttMin) + WIRE_SLACK_MS, first: sp.sends[0] ?? sp.refusedAt };
  });
  // Admitted requests that surely arrived within [x, x + w), and those that may have (sent within
  // EDGE before it and late enough to reach it).
  const EDGE = WIRE_SLACK_MAX_MS + WIRE_SLACK_MS + 1;
  const inWindow = (p: (typeof prepared)[number], x: number): [number, number] => {
    const a = lowerBound(p.at, x);
    const b = lowerBound(p.at, x + windowMs);
    let sure = b - a - countIn(p.unknown, x, x + windowMs - EDGE);
    let may = b - a;
    for (let i = b - 1; i >= a && (p.at[i] as number) >= x + windowMs - EDGE; i--) if ((p.at[i] as number) + (p.late[i] as number) >= x + windowMs) sure -= 1;
    for (let i = a - 1; i >= 0 && (p.at[i] as number) >= x - EDGE; i--) if ((p.at[i] as number) + (p.late[i] as number) >= x) may += 1;
    return [sure, may];
  };
  const step = Math.max(1, windowMs / 2000);
  let least = Infinity;
  let most = 0;
  for (let theta = 0; theta < windowMs; theta += step) {
    let lo = 0;
    let hi = Infinity;
    for (const p of prepared) {
      const start = p.refusedAt - mod(p.refusedAt - theta, windowMs);
      // The refused request's window (one it may have reached only after its end places nothing).
      if (p.refusedAt + p.refusedLate >= start + windowMs) {
        hi = -1;
        break;
      }
      // That window admitted the quota (with requests sent before the refused one whose answers have
      // not come yet: answers overtake each other); every earlier one of the span, no more.
      const [sure, may] = inWindow(p, start);
      const from = start - EDGE;
      const unanswered = countIn(p.sends, from, p.refusedAt) - countIn(p.at, from, p.refusedAt);
      lo = Math.max(lo, sure);
      hi = Math.min(hi, may + Math.max(0, unanswered));
      for (let y = start - windowMs, n = 0; y + windowMs > p.first && n < GRID_WINDOWS_BACK; y -= windowMs, n++) lo = Math.max(lo, inWindow(p, y)[0]);
      if (lo > hi) break;
    }
    if (lo <= hi && lo > 0) {
      least = Math.min(least, lo);
      most = Math.max(most, lo);
    }
  }
  return least !== Infinity && most - least <= Math.max(1, GRID_SPREAD * least) ? least : undefined;
}

export function mod(a: number, m: number): number {
  return ((a % m) + m) % m;
}

/** How many of the sorted times lie in [from, to). */
export function countIn(xs: number[], from: number, to: number): number {
  return Math.max(0, lowerBound(xs, to) - lowerBound(xs, from));
}

export function lowerBound(xs: number[], v: number): number {
  let a = 0;
  let b = xs.length;
  while (a < b) {
    const m = (a + b) >> 1;
    if ((xs[m] as number) < v) a = m + 1;
    else b = m;
  }
  return a;
}

/** In order (a wall clock stepped back can have put a send before the one it followed). */
export function sorted(xs: number[]): number[] {
  for (let i = 1; i < xs.length; i++) if ((xs[i] as number) < (xs[i - 1] as number)) return [...xs].sort((a, b) => a - b);
  return xs;
}

/** How far a request's arrival at the server may stray from its send: the spread of round trips. */
export function jitterOf(rtts: number[]): number {
  if (rtts.length === 0) return 1;
  const byLength = [...rtts].sort((a, b) => a - b);
  const p90 = byLength[Math.floor(byLength.length * 0.9)] as number;
  return Math.min(50, 1 + p90 - (byLength[0] as number));
}

type SpanData = Pick<Span, 'sends' | 'refusedAt' | 'jitterMs' | 'pauseMs'> & Partial<Pick<Span, 'rttMaxMs' | 'failed'>>;

/** What a span says whatever the rate: its sends before the refused one, and how they may reorder. */
interface Prepared {
  /** Sends clearly before the refused request (more than J before it). */
  before: number[];
  /** Other sends within J of the refused request: any may have arrived before it. */
  nearRefused: number;
  /** The most sends within J of each other, less one: how far order on the wire may differ. */
  swaps: number;
  refusedAt: number;
  J: number;
  pauseMs: number;
  /** The last send of the span (the refused one, or one in flight beside it). */
  last: number;
  rttMaxMs: number;
  failed: number;
}

function prepare(sp: SpanData): Prepared {
  const J = sp.jitterMs;
  const before: number[] = [];
  // (The refused request is among the sends: the others near it are one fewer.)
  let nearRefused = -1;
  for (const t of sp.sends) {
    if (t < sp.refusedAt - J) before.push(t);
    else if (t <= sp.refusedAt + J) nearRefused += 1;
  }
  nearRefused = Math.max(0, nearRefused);
  let crowd = 1;
  for (let i = 0, k = 0; i < before.length; i++) {
    while ((before[k] as number) < (before[i] as number) - J) k += 1;
    crowd = Math.max(crowd, i - k + 1);
  }
  const last = sp.sends.length > 0 ? Math.max(sp.refusedAt, sp.sends[sp.sends.length - 1] as number) : sp.refusedAt;
  return { before, nearRefused, swaps: crowd - 1, refusedAt: sp.refusedAt, J, pauseMs: sp.pauseMs, last, rttMaxMs: Math.max(sp.rttMaxMs ?? J, J), failed: sp.failed ?? 0 };
}

/**
 * A token bucket of rate r and size b admits a request when, counting back from it, no stretch of
 * requests took more than b plus what dripped in meanwhile: E_i = max(0, E_{i−1} + 1 − r·gap)
 * (the Lindley recursion) stays under b. So each span, for a given r, bounds the bucket: its size is
 * at least the largest E among the admitted; what it held when the span began is at least what the
 * stretches from the span's first request took; and the refused request's stretch exceeded one or
 * the other. A span after a pause began with min(b, what the pause refilled); the first, with a
 * whole bucket. The rates at which every span's bounds agree are the bucket's possible rates: the
 * least of them is proven (a slower bucket would have refused something that was admitted); the
 * first above the highest that fits bounds the rate from above. Arrivals stray from sends by up to
 * J (the spread of round trips): each term is off by at most r·J, and sends that close may swap
 * places on the wire — the bounds are widened by both.
 * Undefined when no rate fits (not a bucket: a window, a cap, or something else), or fewer than
 * two spans are kept.
 */
export function bucketBounds(spans: SpanData[], upTo: number): { rate: number; burst: number; upper: number } | undefined {
  // A span too long to have kept every send is left out (what it says is not worth its cost);
  // the next one's refill is then bounded by its own pause alone.
  const kept = spans.filter((x) => x.sends.length < SPAN_SENDS_MAX).map(prepare);
  if (kept.length < 2) return undefined;
  const top = upTo * 1.5;
  // The least rate that fits, sought finely from the least the counts allow: a span after a pause
  // admitted its requests with no more than what the pause refilled (one token left, plus r per
  // second since the refused request before it) and the refill during the span. The rates that fit
  // can be a narrow stretch with another, false one above it (a bucket of one or two at a high rate,
  // refusing only through the jitter's slack): a coarse search would step over the real one.
  let from = Math.max(MIN_RATE, upTo / 1000);
  for (let n = 1; n < kept.length; n++) {
    const sp = kept[n] as Prepared;
    const prev = kept[n - 1] as Prepared;
    // (A send's arrival is at most its answer's round trip after it: the longest one bounds them all.)
    const admitted = sp.before.length - sp.nearRefused - sp.swaps - sp.failed;
    const lastAdmitted = sp.before[sp.before.length - 1];
    if (admitted > 1 && lastAdmitted !== undefined) from = Math.max(from, ((admitted - 1) / (lastAdmitted + sp.rttMaxMs - prev.refusedAt)) * 1000);
  }
  let least: { rate: number; burst: number } | undefined;
  for (let r = from; r <= top; r *= 1 + BOUNDS_STEP) {
    const b = burstAt(kept, r);
    if (b !== undefined) {
      least = { rate: r, burst: b };
      break;
    }
  }
  if (least === undefined) return undefined;
  // The most that fits, sought from the top down (coarsely, then finely above the highest coarse
  // rate that fits).
  let high: number | undefined;
  for (let r = top; r > least.rate; r /= 1 + BOUNDS_COARSE) {
    if (burstAt(kept, r) !== undefined) {
      high = r;
      break;
    }
  }
  let upper = (high ?? least.rate) * (1 + BOUNDS_STEP);
  while (upper <= top && burstAt(kept, upper) !== undefined) upper *= 1 + BOUNDS_STEP;
  return { ...least, upper };
}

/** The least bucket size consistent with every span at rate r, or undefined if none is. */
function burstAt(spans: Prepared[], r: number): number | undefined {
  const perMs = r / 1000;
  let lo = 0;
  let hi = Infinity;
  for (let n = 0; n < spans.length; n++) {
    const sp = spans[n] as Prepared;
    const before = sp.before;
    const first = before[0] ?? sp.refusedAt;
    // Each term is off by r·J (the wire), and by what a rate one step higher would refill over the
    // span (the search's grid: a rate that fits may lie between two steps — with exact data the
    // rates that fit are narrower than a step).
    const slack = perMs * (sp.J + BOUNDS_STEP * (sp.refusedAt - first));
    // G: the most any stretch of earlier requests took, less what dripped in since it began
    // (E = max(0, G)); S: what the stretch from the span's first request took (the bucket's
    // content at the start must cover it).
    let G = -Infinity;
    let maxE = 0;
    let maxS = 0;
    for (let i = 0; i < before.length; i++) {
      const t = before[i] as number;
      if (i > 0) G = Math.max(G, 0) + 1 - perMs * (t - (before[i - 1] as number));
      maxE = Math.max(maxE, G - slack);
      maxS = Math.max(maxS, i + 1 - perMs * (t - first) - slack);
      // Already more than an earlier span allows the bucket, even with every swap on the wire.
      if (maxE + 1 - sp.swaps >= hi) return undefined;
    }
    const lastBefore = before[before.length - 1];
    // The refused request, every send near it counted as arriving before it.
    const Gk = lastBefore === undefined ? -Infinity : Math.max(G, 0) + 1 - perMs * (sp.refusedAt - lastBefore);
    const Ek = Math.max(0, Gk + slack) + sp.nearRefused;
    const Sk = before.length + 1 + sp.nearRefused - perMs * (sp.refusedAt - first) + slack;
    const l = maxE + 1 - sp.swaps;
    const h = Ek + 1 + sp.swaps;
    const lStart = maxS - sp.swaps;
    if (n === 0 && sp.pauseMs === Infinity) {
      // The first span began with a whole bucket.
      lo = Math.max(lo, l, lStart);
      hi = Math.min(hi, Math.max(h, Sk + sp.swaps));
    } else {
      // What the bucket held at the span's start: min(b, what dripped in since the span before) —
      // at least since its last send, and no longer than the pause; at most since its refused
      // request, plus the one token it may have kept.
      const prev = spans[n - 1];
      const capLo = perMs * (prev === undefined ? sp.pauseMs : Math.min(first - prev.last, sp.pauseMs));
      const capHi = prev === undefined ? Infinity : 1 + perMs * (first - prev.refusedAt) + slack;
      // The start's content must cover the stretches from the first request.
      if (capHi < lStart) return undefined;
      lo = Math.max(lo, l, lStart);
      // If the pause refilled more than the refused request's stretches needed, the bucket was
      // whole at the start and its size is what the refusal bounds; else the refusal may be the
      // pause's short refill, and says nothing of the size.
      if (capLo >= Math.max(h, Sk + sp.swaps)) hi = Math.min(hi, Math.max(h, Sk + sp.swaps));
    }
    if (!(lo < hi)) return undefined;
  }
  return Math.max(1, lo);
}
