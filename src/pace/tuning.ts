/**
 * Every tuning number of the pace, named, with what it means (docs/pacing.md has the rules they
 * serve). Changing one changes figures the simulations pin: run bench/pace-sim.ts and the tests.
 */

// The learner without headers (blind-learner.ts).

export const INITIAL_RATE = 10;
export const MIN_RATE = 0.1;
/** A pace read as a bucket's least refill regrows fast up to this share of the pace that met the 429. */
export const REGROW_SHARE = 0.5;
/** From this pace up, one late start may be made up for before a bucket is measured. */
export const FAST_RATE = 100;
/** Slow start doubles the pace this often while requests wait for it. */
export const DOUBLING_MS = 100;
/** After the first 429 (one span: only bounds), sit at this share of the span's upper bound. */
export const FIRST_SHARE = 0.5;
/** …after a short span, with nothing better known. */
export const SHORT_SHARE = 0.7;
/** Spans whose admitted counts are within this share of the least met a window's quota. */
export const WINDOW_SAME = 0.02;
/** This many spans after pauses that admitted exactly one count are a window, whatever bucket fits. */
export const SAME_SPANS = 3;
/** The probe stays under this share of the pace that last met a 429… */
export const UNDER_TOO_FAST = 0.97;
/** …which relaxes upward this share per second without a 429. */
export const RELAX_PER_SEC = 0.0005;
/** A long span's limit is read from the rate admitted over its last seconds. */
export const RECENT_MS = 2000;
/** A long span's pace within this share of the pace at its refused send is steady (recentFrom). */
export const RAMP_SHARE = 0.9;
/** The shortest window a ramping span's recent admitted rate is read over: this long (ms), and this many gaps. */
export const RAMP_MIN_MS = 500;
export const RAMP_MIN_SENDS = 4;
/** A span this long drained little of what the pause refilled: its admitted rate is the limit's. */
export const LONG_SPAN_MS = 1500;
/** Until solved, probe up this share of the pace per second… */
export const PROBE_UNSOLVED = 0.03;
/** …once solved, hold at this share of the solved rate and probe this slowly. */
export const HOLD = 0.985;
export const PROBE_SOLVED = 0.001;
/** A bucket whose burst is under this share of what a pause would refill is paced by the fit… */
export const SMALL_BURST = 0.5;
/** …at this share of its rate, probing up this share of it per second (+1.2 % a minute). */
export const HOLD_FIT = 0.99;
export const PROBE_FIT = 0.0002;
/** A solved rate comes down to no less than this share of it per 429: a short span's step, a long span's reading. */
export const SOLVED_STEP = 0.97;
/** A remembered rate is started from at this share of it (a bucket of one or two: SEED_UNDER_SMALL, as jitter alone empties it). */
export const SEED_UNDER = 0.99;
export const SEED_UNDER_SMALL = 0.97;
/**
 * A minute without a 429 (QUIET_AFTER_MS), the probe and its relaxing ceiling double their speed
 * each QUIET_DOUBLING_MS, up to QUIET_MAX times: a limit raised since is found within minutes.
 */
export const QUIET_AFTER_MS = 60_000;
export const QUIET_DOUBLING_MS = 20_000;
export const QUIET_MAX = 256;
/**
 * B8. A run that started from a remembered rate (or window) and met no 429 for this long (ms)
 * probes for a limit raised since: its pace doubles every SEED_PROBE_DOUBLING_MS until the first 429.
 */
export const SEED_PROBE_AFTER_MS = 1000;
export const SEED_PROBE_DOUBLING_MS = 500;
/** …its 429 is a raise when the server admitted more than the remembered limit would have, taken this share faster, its size this many times larger and this many more. */
export const RAISED_RATE = 1.05;
export const RAISED_SIZE = 2;
export const RAISED_SIZE_SHARE = 2;
/** …or, for a bucket of one or two, when half the pace that met it is over the remembered pace by this factor. */
export const RAISED_BY = 1.1;
/** At most this many requests go back to back to make up for late timers. */
export const CATCH_UP_MAX = 16;
/** A quiet stretch this long (no 429) lets a shrunk window grow by one. */
export const WINDOW_GROW_MS = 60_000;
/** Shared, a cap this new is still lowered by a 429 granted with fewer in flight (learn()). */
export const WINDOW_NEW_MS = 10_000;
/** A refusal's round trip this share of an admitted one's is a wire's: a cap's window then spans it. */
export const WIRE_SHARE = 0.1;
/** …and an admission's round trip longer than a refusal's by this share of it is its service time. */
export const SERVICE_SHARE = 0.2;
/** A 429 this soon after the window grew takes the growth back. */
export const WINDOW_PROBE_MS = 10_000;
/** A span's send times are kept up to this many; a longer one is left out of the bounds (their cost). */
export const SPAN_SENDS_MAX = 5_000;
/** The bucket's bounds are sought over rates this far apart (a share), up to 1.5× the pace that met the 429… */
export const BOUNDS_STEP = 0.001;
/** …and the bound from above first coarsely, from the top down. */
export const BOUNDS_COARSE = 0.02;
/** Equal counts are a bucket's, not a window's, when a bucket would need this share of the pace as refill. */
export const BUCKET_NOT_WINDOW = 0.4;
/** …or, for a quota under BURST_MIN_QUOTA, when one that fits would refill this share of it in a window's length. */
export const BUCKET_REFILLS_QUOTA = 0.75;
/**
 * …or when the fastest bucket that fits (the bound from above, or the search's ceiling when the
 * spans give none) would refill more than this many quotas in a window's length: read as the
 * window, the log would hold it under its rate with no 429 to say so. (Lower, small windows are
 * read a span or more later.)
 */
export const BUCKET_OUTRUNS_QUOTA = 3;
/**
 * From this quota up, equal counts are a window even when a bucket fits them; under it, a likelier
 * bucket wins (bucketExplains) and a fixed window's grid needs GRID_SPANS_SMALL spans (B4).
 */
export const BURST_MIN_QUOTA = 50;
/** Of what a measured bucket's pause refilled, this share goes at once when the pause ends. */
export const REFILL_SHARE = 0.9;
/** Rates that fit the spans, all within this factor of the least, are the rate (see bucketBounds). */
export const BOUNDS_TIGHT = 1.05;
/** A round trip longer than the shortest by more than this says nothing more of when its request arrived. */
export const WIRE_SLACK_MAX_MS = 50;
/** …and the shortest round trip seen may be a little over the wire's least: arrivals may be this much later. */
export const WIRE_SLACK_MS = 3;
/**
 * A refusal proves a window of Q per pause P (no bucket its log would hold back) this late after
 * its span's first send: P / Q times this, plus the round trip (B4, H5).
 */
export const PROOF_SPARE = 1.05;
/** H6. The refusal that would prove a window goes alone when a round trip is under this share of the pause. */
export const PROOF_ALONE = 0.05;
/** A fixed window is read from the phase of this many spans at least (judgeFixedGrid)… */
export const GRID_SPANS = 3;
/** …this many for a quota under BURST_MIN_QUOTA… */
export const GRID_SPANS_SMALL = 4;
/** …and only if the quotas that fit at every phase lie within this share of the least. */
export const GRID_SPREAD = 0.05;
/** A span's windows before its refused request's are checked back this far (their cost, at a 429). */
export const GRID_WINDOWS_BACK = 16;
/**
 * B10. A 429 without Retry-After pauses everything for a probe's interval: this share of the time
 * refused so far, within these bounds (ms); a window measured from such refusals that a 429 under
 * its log shows short is lengthened by the least interval this many times before the log ends.
 */
export const PROBE_SHARE = 0.125;
export const PROBE_MIN_MS = 100;
export const PROBE_MAX_MS = 1_000;
/** …and once a window's earliest end is known, it is probed this often from then (ms). */
export const PROBE_FINE_MS = 20;
export const SILENT_LENGTHEN_MAX = 3;
/** With headers, a 429 without Retry-After pauses everything for a back-off (backoff.ts) from this, doubling to at most that, once per burst refused. */
export const PAUSE_BACKOFF_BASE_MS = 1_000;
export const PAUSE_BACKOFF_CAP_MS = 30_000;

// The learner with headers (header-learner.ts).

/** H2. Each 429 a policy did not prevent takes its refill down to this share. */
export const POLICY_DOUBT = 0.85;
/** H5. A span after a pause a fractional Retry-After gave this long (ms) or more may be a window's quota (whole seconds: a second). */
export const FRACTIONAL_PAUSE_MIN_MS = 500;
/** H3. After a 429, a measured refill drops to this share. */
export const DECREASE = 0.85;
/** Refill measurements fade with this time constant… */
export const REFILL_MEMORY_MS = 3_000;
/** …and count once they span this much time between answers. */
export const REFILL_MIN_SPAN_MS = 300;
/** A lower bound of the refill counts over at least this long between answers. */
export const LOWER_BOUND_MIN_MS = 20;
/** A count found whole this soon after a request waited for the mirror's credits… */
export const HELD_RECENT_MS = 300;
/** …raises the refill estimate by this share (up to four times what was admitted over a second). */
export const FULL_PROBE = 1.05;
/** Keep the measured refill on the low side: each answer's `remaining` reveals what was missed. */
export const REFILL_SAFETY = 0.95;

// The gate (gate.ts, mirror.ts, log.ts).

/** Held by a full window, a request asks again this late at the latest (an answer frees it first). */
export const WINDOW_RECHECK_MS = 250;
/** Under a window's anchor, a request starts this long after the window's length has passed. */
export const ANCHOR_MARGIN_MS = 1;
/** The wire's jitter is read from this many recent round trips. */
export const RECENT_TRIPS = 32;
/** The likely mirror projects at most this many starts since the count that set it. */
export const LIKELY_STARTS_MAX = 256;
/** What an answer that shows the mirror too low adds to its share of the round trip's refill. */
export const SHARE_STEP = 0.05;
/**
 * Under a window's log, a quota's answers are taken as this share of the shortest round trip
 * earlier: the server counted each of them at least its way back before its answer arrived, and a
 * request leaving now reaches the server at least its way there from now — their least sum is
 * about the shortest round trip; half of it is kept in hand for a path whose two ways were never
 * both at their quickest in one request (docs/pacing.md, G2).
 */
export const TRIP_CREDIT = 0.5;
/** The window log keeps at least this many answers (and twice the quota). */
export const LOG_KEEP = 4096;

// One gate for several processes (shared-gate.ts).

/** A ramp after a pause (see rampLimit) ends this long after the pause at the latest (ms). */
export const RAMP_MS = 1_000;
/** Answers kept to count what was in flight at a send (well over any request's time at the server). */
export const DONE_KEEP_MS = 5_000;

// The budget on Redis (shared-budget.ts).

/** How often the lock is renewed (or tried), the shared pace written or read, and marks checked. */
export const TICK_MS = 50;
/** The leader's lock lapses this long after its last renewal (a killed leader is replaced). */
export const LOCK_MS = 3_000;
/** A shared pace older than this is stale: nobody is writing it any more. */
export const STALE_MS = 30_000;
/** A blocking pop gives up after this long (seconds) and looks again (closing, a lost lead). */
export const POP_S = 0.2;
/** A closing leader waits at most this long (ms) for what it granted to be answered. */
export const HANDOVER_MS = 1_000;
/** The leader takes at most this many lines of the inbox at once. */
export const DRAIN = 200;
