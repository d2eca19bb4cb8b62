/**
 * A Bloom filter of the suppression marker keys (`<project>:<hash>`): it answers "surely not
 * marked" for most addresses, and "maybe" for the marked ones and a small share of others. Markers
 * are only ever added, so an address it has not seen may be skipped without a read only while
 * every marker stored anywhere reaches it: see MarkerWatch. A "maybe" costs the point read every
 * address cost before.
 */
export class MarkerFilter {
  private readonly bits: Uint32Array;
  private readonly mask: number;
  private count = 0;

  /** `capacity`: the keys it holds at about 1 % false positives (16 bits a key, 8 probes); more only raise that rate. */
  constructor(capacity = 1 << 20) {
    const bits = 2 ** Math.ceil(Math.log2(Math.max(capacity * 16, 1 << 16)));
    this.bits = new Uint32Array(bits / 32);
    this.mask = bits - 1;
  }

  get size(): number {
    return this.count;
  }

  add(key: string): void {
    const [h1, h2] = hashes(key);
    for (let i = 0; i < PROBES; i++) {
      const bit = (h1 + Math.imul(i, h2)) & this.mask;
      this.bits[bit >>> 5]! |= 1 << (bit & 31);
    }
    this.count++;
  }

  mayHold(key: string): boolean {
    const [h1, h2] = hashes(key);
    for (let i = 0; i < PROBES; i++) {
      const bit = (h1 + Math.imul(i, h2)) & this.mask;
      if ((this.bits[bit >>> 5]! & (1 << (bit & 31))) === 0) return false;
    }
    return true;
  }
}

const PROBES = 8;

/** Two independent 32-bit hashes of a string (FNV-1a with two offsets), for double hashing; the second is odd. */
function hashes(key: string): [number, number] {
  let a = 0x811c9dc5;
  let b = 0x01000193 ^ 0x5bd1e995;
  for (let i = 0; i < key.length; i++) {
    const c = key.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x01000193) ^ (b >>> 15);
  }
  return [a >>> 0, (b | 1) >>> 0];
}
