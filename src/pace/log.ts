/**
 * The gate's log of recent starts: when each request started, when it was answered (NaN while in
 * flight) and whether the server admitted it, in the order they started. A recognised window's
 * quota is timed from it (timedFrom, refutes), and the quota mirror spends from it the requests
 * started since the count it holds (mirror.ts).
 */
import type { Anchor } from './types.js';
import * as tune from './tuning.js';

export class StartLog {
  /** The next start's place in the order of starts. */
  seq = 0;
  private answered: number[] = [];
  private sent: number[] = [];
  private admitted: boolean[] = [];
  /** The first kept start's place. */
  base = 0;
  /** Every start before `scanSeq` is answered, the latest of them at `scanMax`. */
  private scanSeq = 0;
  private scanMax = -Infinity;
  /** A window's log counts the starts from this one on: a pause that began it said where the window ends. */
  from = 0;

  /** A request starts at `now` (its place is `seq` before the call); `quota`: the window's, if kept to. */
  start(now: number, quota: number): void {
    this.seq += 1;
    this.answered.push(NaN);
    this.sent.push(now);
    this.admitted.push(false);
    const keep = Math.max(tune.LOG_KEEP, 2 * quota);
    if (this.answered.length <= 2 * keep) return;
    // Drop the older half; what the scan has not passed yet is folded into it first.
    const drop = this.answered.length - keep;
    for (let q = Math.max(this.scanSeq, this.base); q < this.base + drop; q += 1) {
      const t = this.answered[q - this.base] as number;
      if (!Number.isNaN(t)) this.scanMax = Math.max(this.scanMax, t);
    }
    this.scanSeq = Math.max(this.scanSeq, this.base + drop);
    this.answered = this.answered.slice(drop);
    this.sent = this.sent.slice(drop);
    this.admitted = this.admitted.slice(drop);
    this.base += drop;
  }

  /** The start at place `seq` was answered at `now`. */
  answer(seq: number, now: number, admitted: boolean): void {
    const i = seq - this.base;
    if (i < 0 || i >= this.answered.length) return;
    this.answered[i] = now;
    this.admitted[i] = admitted;
  }

  /** When the start at place `q` (kept) was sent, and whether it is still in flight. */
  sentAt(q: number): number {
    return this.sent[q - this.base] as number;
  }
  inFlight(q: number): boolean {
    return Number.isNaN(this.answered[q - this.base]);
  }

  /**
   * Whether what the server admitted before refutes a window of this quota and length: a sliding
   * window admits at most a quota within any window's length, a fixed one at most two (the end of
   * one window and the start of the next). More is a bucket's refill, which the log would hold to
   * a fraction of its rate with no 429 ever to say so.
   */
  refutes(anchor: Anchor): boolean {
    const sends: number[] = [];
    let rtt = 0;
    for (let i = 0; i < this.answered.length; i++) {
      if (!this.admitted[i]) continue;
      sends.push(this.sent[i] as number);
      rtt = Math.max(rtt, (this.answered[i] as number) - (this.sent[i] as number));
    }
    sends.sort((a, b) => a - b);
    // Requests sent within a window's length less the longest round trip reached the server
    // within a window's length, in whatever order.
    const within = anchor.windowMs - rtt;
    for (let lo = 0, hi = 0; hi < sends.length && within > 0; hi++) {
      while ((sends[hi] as number) - (sends[lo] as number) >= within) lo += 1;
      if (hi - lo + 1 > 2 * anchor.quota) return true;
    }
    return false;
  }

  /**
   * The latest answer among the starts up to place `upTo`: undefined when there is none (fewer
   * starts than a quota since `from`), null while one of them is still in flight.
   */
  timedFrom(upTo: number): number | undefined | null {
    if (upTo < 0 || upTo < this.from) return undefined;
    while (this.scanSeq <= upTo) {
      const i = this.scanSeq - this.base;
      const t = i >= 0 ? (this.answered[i] as number) : -Infinity;
      if (Number.isNaN(t)) return null;
      this.scanMax = Math.max(this.scanMax, t);
      this.scanSeq += 1;
    }
    return this.scanMax;
  }
}
