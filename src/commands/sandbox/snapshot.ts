/**
 * svc sandbox snapshot save|restore|list|delete: consistent copies of a running sandbox's whole
 * state (admin API /_sandbox/snapshots), found as `svc sandbox outbox` finds it. For CI: seed,
 * save once, restore between test cases.
 */
import type { Context } from '../../context.js';
import { SNAPSHOT_NAME, type SnapshotInfo } from '../../contract/snapshots.js';
import { EXIT, UsageError } from '../../errors.js';
import type { Column } from '../../io/output.js';
import { adminCall, sandboxBaseUrl } from './admin-client.js';

const COLUMNS: Column<SnapshotInfo>[] = [
  { header: 'NAME', get: (s) => s.name, noTruncate: true, priority: 100 },
  { header: 'CREATED', get: (s) => s.created_at, noTruncate: true, priority: 60 },
  { header: 'CONTACTS', get: (s) => (s.contacts < 0 ? '?' : s.contacts), priority: 80 },
  { header: 'ORDERS', get: (s) => (s.orders < 0 ? '?' : s.orders), priority: 70 },
  { header: 'SIZE', get: (s) => `${(s.bytes / 1024 / 1024).toFixed(1)} MiB`, priority: 50 },
];

function checkName(name: string): string {
  if (!SNAPSHOT_NAME.test(name))
    throw new UsageError(
      `a snapshot name is 1 to 64 letters, digits, dots, dashes or underscores, starting with a letter or digit; got ${JSON.stringify(name)}`,
    );
  return name;
}

const pathOf = (name: string) => `/snapshots/${encodeURIComponent(checkName(name))}`;

/** svc sandbox snapshot save NAME */
export async function save([name]: [string], _opts: object, ctx: Context): Promise<number> {
  checkName(name);
  const baseUrl = await sandboxBaseUrl(ctx);
  const s = (await adminCall(ctx, baseUrl, 'POST', '/snapshots', { name })) as SnapshotInfo & { replaced: boolean };
  if (ctx.settings.json) ctx.out.json(s);
  else ctx.out.info(`snapshot ${name} ${s.replaced ? 'replaced' : 'saved'}: ${s.contacts} contacts, ${s.orders} orders`);
  return EXIT.ok;
}

/** svc sandbox snapshot restore NAME */
export async function restore([name]: [string], _opts: object, ctx: Context): Promise<number> {
  const path = pathOf(name);
  const baseUrl = await sandboxBaseUrl(ctx);
  const r = (await adminCall(ctx, baseUrl, 'POST', `${path}/restore`)) as SnapshotInfo & { duration_ms: number };
  if (ctx.settings.json) ctx.out.json(r);
  else ctx.out.info(`restored ${name} (${r.contacts} contacts, ${r.orders} orders, saved ${r.created_at}) in ${r.duration_ms} ms`);
  return EXIT.ok;
}

/** svc sandbox snapshot delete NAME */
export async function remove([name]: [string], _opts: object, ctx: Context): Promise<number> {
  const path = pathOf(name);
  const baseUrl = await sandboxBaseUrl(ctx);
  await adminCall(ctx, baseUrl, 'DELETE', path);
  if (ctx.settings.json) ctx.out.json({ name, deleted: true });
  else ctx.out.info(`snapshot ${name} deleted`);
  return EXIT.ok;
}

/** svc sandbox snapshot list */
export async function list(_args: [], _opts: object, ctx: Context): Promise<number> {
  const baseUrl = await sandboxBaseUrl(ctx);
  const json = ctx.settings.json;
  const { data } = (await adminCall(ctx, baseUrl, 'GET', '/snapshots')) as { data: SnapshotInfo[] };
  const writer = await ctx.out.list(ctx.out.defaultFormat(json), COLUMNS);
  writer.writePage(data);
  writer.end();
  if (data.length === 0 && !json && ctx.policy.humanStdout) ctx.out.info('no snapshots (svc sandbox snapshot save NAME)');
  return EXIT.ok;
}
