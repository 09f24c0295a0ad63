/** The per-profile renewal lock (store/renewal-lock.ts): exclusive, waited for, taken over from a dead process, never fatal. */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { removeStaleLock, takeRenewalLock } from '../../src/store/renewal-lock.js';
import { tempConfigDir } from '../helpers/run-cli.js';

let cfg: ReturnType<typeof tempConfigDir> | undefined;
afterEach(() => cfg?.cleanup());

describe('takeRenewalLock', () => {
  it('is exclusive per profile: a second taker waits for the release', async () => {
    cfg = tempConfigDir();
    const release = await takeRenewalLock(cfg.dir, 'default');
    expect(readdirSync(cfg.dir)).toEqual(['renew-default.lock']);
    const other = await takeRenewalLock(cfg.dir, 'other profile/x');
    other();
    let second = false;
    const waiting = takeRenewalLock(cfg.dir, 'default').then((r) => {
      second = true;
      return r;
    });
    await new Promise((r) => setTimeout(r, 100));
    expect(second).toBe(false);
    release();
    (await waiting)();
    expect(second).toBe(true);
    expect(readdirSync(cfg.dir)).toEqual([]);
  });

  it("takes over a dead process's lock at once", async () => {
    cfg = tempConfigDir();
    writeFileSync(join(cfg.dir, 'renew-default.lock'), '999999999');
    const started = Date.now();
    const release = await takeRenewalLock(cfg.dir, 'default');
    expect(Date.now() - started).toBeLessThan(1_000);
    release();
    expect(existsSync(join(cfg.dir, 'renew-default.lock'))).toBe(false);
  });

  it('gives up waiting after waitMs or on abort (renewing twice beats not renewing), and without a folder', async () => {
    cfg = tempConfigDir();
    const held = await takeRenewalLock(cfg.dir, 'default');
    const started = Date.now();
    const late = await takeRenewalLock(cfg.dir, 'default', { waitMs: 150 });
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);
    late(); // a no-op: the lock is still the holder's
    expect(existsSync(join(cfg.dir, 'renew-default.lock'))).toBe(true);
    const abort = new AbortController();
    setTimeout(() => abort.abort(), 50);
    await takeRenewalLock(cfg.dir, 'default', { signal: abort.signal });
    held();
    (await takeRenewalLock(join(cfg.dir, 'missing'), 'default'))();
  });
});

describe('removeStaleLock', () => {
  it('removes the lock judged stale, and puts back a live lock that replaced it after the judgement', () => {
    cfg = tempConfigDir();
    const path = join(cfg.dir, 'renew-default.lock');
    writeFileSync(path, '999999999');
    removeStaleLock(path, '999999999');
    expect(readdirSync(cfg.dir)).toEqual([]);
    // Judged stale with a dead pid; meanwhile another waiter removed it and a live process took
    // the lock: deleting by name would remove that live lock.
    writeFileSync(path, String(process.pid));
    removeStaleLock(path, '999999999');
    expect(readdirSync(cfg.dir)).toEqual(['renew-default.lock']);
    expect(readFileSync(path, 'utf8')).toBe(String(process.pid));
  });
});
