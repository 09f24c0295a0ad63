import { describe, expect, it } from 'vitest';
import { sizeYoungGeneration, youngGenerationBytes } from '../../src/util/heap.js';

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
    expect(youngGenerationBytes()).toBe(reached);
    // Asking again for the size it has is a no-op.
    expect(sizeYoungGeneration(8)).toBe(reached);
  });
});
