/**
 * The E.164 phones already met in a file, for in-file duplicates: an open-addressing hash set of
 * the numbers' digits in a Float64Array (up to 15 digits fit a double exactly). A million phones
 * take 16–32 MB here, against roughly three times that for a Set of boxed numbers, and the
 * garbage collector has one object to look at instead of a million.
 */
export class PhoneSet {
  private slots: Float64Array;
  private mask: number;
  size = 0;

  constructor(capacity = 1 << 14) {
    let n = 16;
    while (n < capacity * 2) n *= 2;
    this.slots = new Float64Array(n);
    this.mask = n - 1;
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
    const { slots, mask } = this;
    for (let i = PhoneSet.hash(key) & mask; ; i = (i + 1) & mask) {
      const v = slots[i] as number;
      if (v === 0) return false;
      if (v === key) return true;
    }
  }

  /** Adds a key (a positive number: 0 marks an empty slot); true when it was not there. */
  add(key: number): boolean {
    if (!(key > 0)) throw new RangeError(`not a phone key: ${key}`);
    if ((this.size + 1) * 2 > this.slots.length) this.grow();
    const { slots, mask } = this;
    for (let i = PhoneSet.hash(key) & mask; ; i = (i + 1) & mask) {
      const v = slots[i] as number;
      if (v === key) return false;
      if (v === 0) {
        slots[i] = key;
        this.size += 1;
        return true;
      }
    }
  }

  private grow(): void {
    const old = this.slots;
    this.slots = new Float64Array(old.length * 2);
    this.mask = this.slots.length - 1;
    for (const v of old) {
      if (v === 0) continue;
      for (let i = PhoneSet.hash(v) & this.mask; ; i = (i + 1) & this.mask) {
        if (this.slots[i] === 0) {
          this.slots[i] = v;
          break;
        }
      }
    }
  }
}
