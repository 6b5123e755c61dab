/**
 * The E.164 phones already met in a file, for in-file duplicates: the numbers' digits as doubles
 * (up to 15 digits fit exactly) in an extendible hash — a directory over segments of 4,096 slots
 * (32 KiB), each an open-addressing table. A full segment splits in two, reusing its own array:
 * the set grows a segment at a time, without the moment a single table has both its old and its
 * doubled array (8 + 16 MB at a million phones, BENCHMARKS.md §3). A million phones take about
 * 16 MB, against roughly three times that for a Set of boxed numbers, and the garbage collector
 * has a few hundred objects to look at instead of a million.
 */
const SLOTS = 4096;
const MASK = SLOTS - 1;
/** Keys in a segment before it splits (three quarters full). */
const FULL = (SLOTS * 3) / 4;
/** A segment this deep no longer splits (its keys would share 24 bits of hash: never in practice). */
const DEEPEST = 24;

class Segment {
  readonly slots = new Float64Array(SLOTS);
  size = 0;
  constructor(public depth: number) {}
}

export class PhoneSet {
  /** Segments by the top `bits` bits of a key's hash; a segment of depth d fills 2^(bits-d) entries. */
  private dir: Segment[] = [new Segment(1), new Segment(1)];
  private bits = 1;
  private readonly scratch = new Float64Array(SLOTS);
  size = 0;

  /** `capacity` is accepted for compatibility: the set grows by segments as keys come. */
  constructor(capacity?: number) {
    void capacity;
  }

  /** The key of an E.164 phone (`+447400123456` → 447400123456). */
  static key(e164: string): number {
    return Number(e164.slice(1));
  }

  private static hash(key: number): number {
    const lo = key % 4294967296 | 0;
    const hi = Math.floor(key / 4294967296) | 0;
    let h = Math.imul(lo ^ (hi * 0x9e3779b1), 0x85ebca6b);
    h ^= h >>> 13;
    h = Math.imul(h, 0xc2b2ae35);
    return (h ^ (h >>> 16)) >>> 0;
  }

  has(key: number): boolean {
    const h = PhoneSet.hash(key);
    const slots = (this.dir[h >>> (32 - this.bits)] as Segment).slots;
    for (let i = h & MASK; ; i = (i + 1) & MASK) {
      const v = slots[i] as number;
      if (v === 0) return false;
      if (v === key) return true;
    }
  }

  /** Adds a key (a positive number: 0 marks an empty slot); true when it was not there. */
  add(key: number): boolean {
    if (!(key > 0)) throw new RangeError(`not a phone key: ${key}`);
    const h = PhoneSet.hash(key);
    if (this.has(key)) return false;
    let seg = this.dir[h >>> (32 - this.bits)] as Segment;
    while (seg.size >= FULL && seg.depth < DEEPEST) {
      this.split(seg);
      seg = this.dir[h >>> (32 - this.bits)] as Segment;
    }
    PhoneSet.put(seg, key, h);
    this.size += 1;
    return true;
  }

  private static put(seg: Segment, key: number, h: number): void {
    const slots = seg.slots;
    let i = h & MASK;
    while (slots[i] !== 0) i = (i + 1) & MASK;
    slots[i] = key;
    seg.size += 1;
  }

  /** Splits a full segment by the next bit of the hash: its keys stay in it or move to a new one. */
  private split(seg: Segment): void {
    if (seg.depth === this.bits) {
      const dir = new Array<Segment>(this.dir.length * 2);
      for (let i = 0; i < this.dir.length; i++) dir[2 * i] = dir[2 * i + 1] = this.dir[i] as Segment;
      this.dir = dir;
      this.bits += 1;
    }
    seg.depth += 1;
    const sibling = new Segment(seg.depth);
    const shift = 32 - seg.depth;
    for (let i = 0; i < this.dir.length; i++) if (this.dir[i] === seg && ((i >>> (this.bits - seg.depth)) & 1) === 1) this.dir[i] = sibling;
    const old = this.scratch;
    old.set(seg.slots);
    seg.slots.fill(0);
    seg.size = 0;
    for (let i = 0; i < SLOTS; i++) {
      const v = old[i] as number;
      if (v === 0) continue;
      const h = PhoneSet.hash(v);
      PhoneSet.put((h >>> shift) & 1 ? sibling : seg, v, h);
    }
  }
}
