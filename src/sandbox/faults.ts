/**
 * The fault mix of `--faults P`: that share of requests fail as a 500, a 503, a dropped connection
 * or a reply held back `--fault-delay` ms. On a write the fault falls before or after the change
 * is applied, at random — the client cannot tell which, and that is what a retry must survive.
 */
export type FaultKind = 'error500' | 'error503' | 'drop' | 'delay';

export interface Fault {
  kind: FaultKind;
  /** For writes: the change is applied before the fault. */
  afterApply: boolean;
}

const KINDS: FaultKind[] = ['error500', 'error503', 'drop', 'delay'];

export class FaultPlan {
  constructor(
    public share: number,
    private readonly random: () => number,
  ) {}

  /** The fault for the next request, if it gets one. */
  next(): Fault | undefined {
    if (this.share <= 0 || this.random() >= this.share) return undefined;
    const kind = KINDS[Math.floor(this.random() * KINDS.length)] as FaultKind;
    return { kind, afterApply: this.random() < 0.5 };
  }
}
