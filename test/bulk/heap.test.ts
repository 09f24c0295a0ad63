import { describe, expect, it } from 'vitest';
import { sizeYoungGeneration, youngGenerationBytes } from '../../src/bulk/heap.js';

describe('sizeYoungGeneration', () => {
  it('grows the new space to the target once and keeps it there under a burst of surviving objects', () => {
    const MIB = 1024 * 1024;
    const reached = sizeYoungGeneration(8);
    expect(reached).toBe(youngGenerationBytes());
    expect(reached).toBeGreaterThanOrEqual(8 * MIB);
    // What made it grow before no longer does: the growth factor is 1 now.
    let keep: object[] = [];
    for (let i = 0; i < 600_000; i++) keep.push({ i, next: null });
    keep = [];
    expect(keep).toHaveLength(0);
    // It stays about there. Usually exactly there; but V8 13 (Node 24) may also resize the new
    // space by pages on its own heuristics (20,447,232 B was seen once in CI, under load). Left at
    // factor 2, the same burst takes it to 32 MiB (Node 20) or 64 MiB (Node 24): 4 × the target
    // and more, which this bound refuses.
    expect(youngGenerationBytes()).toBeLessThan(4 * reached);
    // Asking again for a size it has is a no-op.
    const now = youngGenerationBytes();
    expect(sizeYoungGeneration(8)).toBe(now);
  });
});
