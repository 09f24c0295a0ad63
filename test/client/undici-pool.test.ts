/** The client imports undici's Pool by its file path (src/client/undici-pool.d.ts): it must stay undici's Pool. */
import { Pool } from 'undici';
import PoolClass from 'undici/lib/dispatcher/pool.js';
import { describe, expect, it } from 'vitest';

describe("undici's Pool by its path", () => {
  it('is the class undici exports as Pool, with the dispatch and close the transport uses', () => {
    expect(PoolClass).toBe(Pool);
    expect(typeof PoolClass.prototype.dispatch).toBe('function');
    expect(typeof PoolClass.prototype.close).toBe('function');
  });
});
