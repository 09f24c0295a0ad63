import { describe, expect, it } from 'vitest';
import { InFlight } from '../../src/client/in-flight.js';

describe('InFlight (the transport’s exchanges in flight, in slots)', () => {
  it('adds, lists and removes entries by their slot, reusing freed slots', () => {
    const f = new InFlight<{ n: number }>();
    const a = { n: 1 };
    const b = { n: 2 };
    const c = { n: 3 };
    const sa = f.add(a);
    const sb = f.add(b);
    expect(f.size).toBe(2);
    expect(f.entries()).toEqual([a, b]);
    f.delete(a, sa);
    expect(f.size).toBe(1);
    expect(f.entries()).toEqual([b]);
    // The freed slot is taken again: the array does not grow past the most ever in flight.
    expect(f.add(c)).toBe(sa);
    expect(f.entries()).toEqual([c, b]);
    f.delete(b, sb);
    f.delete(c, sa);
    expect(f.size).toBe(0);
    expect(f.entries()).toEqual([]);
  });

  it('ignores a delete twice, of a slot now held by another entry, or of no slot', () => {
    const f = new InFlight<{ n: number }>();
    const a = { n: 1 };
    const b = { n: 2 };
    const sa = f.add(a);
    f.delete(a, sa);
    const sb = f.add(b);
    expect(sb).toBe(sa);
    f.delete(a, sa);
    f.delete(a, -1);
    expect(f.size).toBe(1);
    expect(f.entries()).toEqual([b]);
  });

  it('entries() is a copy: removing while walking it is safe', () => {
    const f = new InFlight<{ n: number }>();
    const items = [1, 2, 3].map((n) => ({ n }));
    const slots = items.map((i) => f.add(i));
    for (const e of f.entries()) f.delete(e, slots[items.indexOf(e)] as number);
    expect(f.size).toBe(0);
  });
});
