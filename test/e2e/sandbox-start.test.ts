/** A spawned `svc sandbox start`: real pipes, a real signal, a real exit code. Needs `node build.mjs` first. */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { built, useRunningSvc } from '../helpers/spawn-cli.js';

const svc = useRunningSvc();

describe('svc sandbox start (spawned)', () => {
  it.skipIf(!built)('prints one JSON line, serves, and exits 0 on SIGTERM', async () => {
    const child = svc.start(['sandbox', 'start', '--port', '0', '--memory', '--json', '--seed']);
    const line = JSON.parse(await child.firstLine());
    expect(line.base_url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(line.dashboard_url).toBe(`${line.base_url}/`);
    const dashboard = await fetch(line.dashboard_url);
    expect(dashboard.status).toBe(200);
    expect(await dashboard.text()).toContain('<title>svc sandbox</title>');
    const res = await fetch(`${line.base_url}/v1/contacts`, {
      method: 'POST',
      headers: { authorization: `Bearer ${line.seed.api_token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'e2e@example.com' }),
    });
    expect(res.status).toBe(201);
    expect(await child.stop('SIGTERM')).toBe(0);
    expect(child.stderr()).toBe('');
  });

  it.skipIf(!built)(
    '--db FILE: SIGTERM while writes are in flight loses no answered write; the WAL is checkpointed and a restart finds the data',
    async () => {
      const db = join(svc.cfg.dir, 'sb', 'data.db');
      const start = () => svc.start(['sandbox', 'start', '--port', '0', '--db', db, '--json']);
      let child = start();
      const first = JSON.parse(await child.firstLine());
      const tokenRes = await fetch(`${first.base_url}/_sandbox/api-tokens`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'e2e', scopes: ['orders_write', 'contacts_read'] }),
      });
      const { token } = (await tokenRes.json()) as { token: string };
      const upsert = (i: number) =>
        fetch(`${first.base_url}/v1/orders/placed`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify({
            order_id: `sig-${i}`,
            total: '1.00',
            currency: 'USD',
            order_date: '2026-06-22',
            email: `b${i}@example.com`,
          }),
        }).then(
          (r) => r.status,
          () => 0,
        );
      // A first answered write, then a burst still in flight when the signal arrives.
      expect(await upsert(0)).toBe(201);
      const burst = Array.from({ length: 40 }, (_, i) => upsert(i + 1));
      await new Promise((r) => setTimeout(r, 5));
      const exited = child.stop('SIGTERM');
      const statuses = [201, ...(await Promise.all(burst))];
      expect(await exited, child.stderr()).toBe(0);
      expect(existsSync(`${db}-wal`) ? 'WAL left behind' : 'checkpointed').toBe('checkpointed');

      child = start();
      const second = JSON.parse(await child.firstLine());
      for (let i = 0; i < statuses.length; i++) {
        if (statuses[i] !== 201) continue;
        const stored = await fetch(`${second.base_url}/_sandbox/orders/sig-${i}`);
        expect(stored.status, `order sig-${i} was answered 201 before the stop`).toBe(200);
      }
      const list = await fetch(`${second.base_url}/v1/contacts?email=b0@example.com`, { headers: { authorization: `Bearer ${token}` } });
      expect(((await list.json()) as { data: unknown[] }).data).toHaveLength(1);
      expect(await child.stop('SIGINT'), child.stderr()).toBe(0);
    },
  );
});
