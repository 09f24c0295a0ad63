/** Snapshots on the admin API (in memory and on a file-backed sandbox): save, list, restore (atomic), delete. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { http, type TestSandbox, withSandbox } from '../helpers/sandbox.js';

const dir = mkdtempSync(join(tmpdir(), 'svc-snap-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// biome-ignore lint/suspicious/noExplicitAny: admin answers are loosely typed records
const admin = (sb: TestSandbox, method: string, path: string, json?: unknown): Promise<any> =>
  http(sb.baseUrl, method, `/_sandbox${path}`, { json });

for (const kind of ['memory', 'file'] as const) {
  describe(`snapshots of a sandbox in ${kind}`, () => {
    it('restores the whole state saved (contacts, tokens, flows), twice, and lists and deletes snapshots', async () => {
      const sb = await withSandbox(kind === 'file' ? { db: join(dir, 'sandbox.db') } : {});
      try {
        const token = await sb.tokenWithAllScopes();
        await http(sb.baseUrl, 'POST', '/v1/contacts', { token, json: { email: 'kept@example.com' } });
        await sb.admin.createFlow('seeded_event', 'Seeded flow');
        const saved = await admin(sb, 'POST', '/snapshots', { name: 'seeded' });
        expect(saved.status).toBe(201);
        expect(saved.body).toMatchObject({ name: 'seeded', contacts: 1, replaced: false });
        for (let round = 0; round < 2; round++) {
          await http(sb.baseUrl, 'POST', '/v1/contacts', { token, json: { email: `extra${round}@example.com` } });
          await sb.admin.createFlow('later_event');
          const restored = await admin(sb, 'POST', '/snapshots/seeded/restore');
          expect(restored.status, restored.text).toBe(200);
          const list = await http(sb.baseUrl, 'GET', '/v1/contacts', { token });
          expect(list.status).toBe(200);
          expect((list.body as { data: { email: string }[] }).data.map((c) => c.email)).toEqual(['kept@example.com']);
          const flows = (await admin(sb, 'GET', '/flows')).body.data.map((f: { name: string }) => f.name);
          expect(flows).toEqual(['Seeded flow']);
        }
        // Writes work after a restore, and the sandbox keeps serving.
        expect((await http(sb.baseUrl, 'POST', '/v1/contacts', { token, json: { email: 'after@example.com' } })).status).toBe(201);
        expect((await admin(sb, 'POST', '/snapshots', { name: 'seeded' })).body.replaced).toBe(true);
        await admin(sb, 'POST', '/snapshots', { name: 'other' });
        expect((await admin(sb, 'GET', '/snapshots')).body.data.map((s: { name: string }) => s.name)).toEqual(['other', 'seeded']);
        expect((await admin(sb, 'DELETE', '/snapshots/other')).status).toBe(204);
        expect((await admin(sb, 'POST', '/snapshots/other/restore')).status).toBe(404);
        expect((await admin(sb, 'POST', '/snapshots', { name: '../escape' })).status).toBe(400);
      } finally {
        await sb.close();
      }
    });

    it('a restore waits for the writes in flight and none sees half a state', async () => {
      const sb = await withSandbox(kind === 'file' ? { db: join(dir, 'atomic.db') } : {});
      try {
        const token = await sb.tokenWithAllScopes();
        await admin(sb, 'POST', '/snapshots', { name: 'empty' });
        const writes = Array.from({ length: 40 }, (_, i) =>
          http(sb.baseUrl, 'POST', '/v1/orders/placed', {
            token,
            json: { order_id: `A-${i}`, total: '1.00', currency: 'EUR', order_date: '2026-11-26', email: `o${i}@example.com` },
          }),
        );
        const restore = admin(sb, 'POST', '/snapshots/empty/restore');
        const answers = await Promise.all(writes);
        expect((await restore).status).toBe(200);
        expect(answers.every((a) => a.status === 201)).toBe(true);
        // Every order is either wholly there (with its contact and side effects) or wholly gone.
        const orders = (await admin(sb, 'GET', '/orders?limit=100')).body.data as { order_id: string; contact_id: string }[];
        const outbox = (await admin(sb, 'GET', '/outbox')).body.data as { order_id?: string; type: string }[];
        for (const o of orders) {
          expect(
            outbox
              .filter((e) => e.order_id === o.order_id)
              .map((e) => e.type)
              .sort(),
          ).toEqual(['flow_trigger', 'revenue_attribution']);
          expect((await admin(sb, 'GET', `/contacts/${o.contact_id}`)).status).toBe(200);
        }
        expect(outbox.length).toBe(orders.length * 2);
      } finally {
        await sb.close();
      }
    });
  });
}
