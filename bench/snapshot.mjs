// Benchmark of snapshot restore: a file-backed sandbox holding 100,000 contacts (and 100,000
// orders), saved once, then restored several times through the admin API while it serves.
// Prints the time of each restore (the admin call's wall time, and the swap alone as the sandbox
// reports it); asserts nothing. Needs `node build.mjs` first (imports ../dist/sandbox.js).
//   node bench/snapshot.mjs [--contacts N] [--restores N]
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';

const args = process.argv.slice(2);
const opt = (name, fallback) => {
  const i = args.indexOf(name);
  return i >= 0 && args[i + 1] ? Number(args[i + 1]) : fallback;
};
const contacts = opt('--contacts', 100_000);
const restores = opt('--restores', 5);
const { startSandbox } = await import(new URL('../dist/sandbox.js', import.meta.url).href);
const Database = createRequire(import.meta.url)('better-sqlite3');

const dir = mkdtempSync(join(tmpdir(), 'svc-bench-snap-'));
const file = join(dir, 'sandbox.db');
// The schema, made by the sandbox itself; then rows written straight into the file (fast).
await (await startSandbox({ db: file })).close();
const db = new Database(file);
const now = Date.now();
db.transaction(() => {
  const c = db.prepare(
    `INSERT INTO contacts (id, business_id, email, phone, first_name, email_consent, sms_consent, created_at, updated_at, orders_count, total_spent, last_order_at)
     VALUES (?, 'biz_default', ?, ?, ?, 'subscribed', 'never_subscribed', ?, ?, 1, '{"EUR":"10.00"}', ?)`,
  );
  const o = db.prepare(
    `INSERT INTO orders (business_id, order_id, total, currency, order_date, order_ts, email, contact_id, created_at, updated_at)
     VALUES ('biz_default', ?, '10.00', 'EUR', '2026-11-26', ?, ?, ?, ?, ?)`,
  );
  for (let i = 0; i < contacts; i++) {
    const id = `ct_bench${String(i).padStart(24, '0')}`;
    const email = `buyer${i}@example.com`;
    c.run(id, email, `+1415${String(i).padStart(7, '0')}`, `Buyer ${i}`, now, now, now);
    o.run(`B-${i}`, now, email, id, now, now);
  }
})();
db.close();

const sb = await startSandbox({ db: file });
const call = async (method, path, body) => {
  const res = await fetch(`${sb.baseUrl}/_sandbox${path}`, {
    method,
    headers: body ? { 'content-type': 'application/json' } : {},
    body: body ? JSON.stringify(body) : undefined,
  });
  return res.json();
};
let t = performance.now();
const saved = await call('POST', '/snapshots', { name: 'bench' });
console.log(
  `snapshot save: ${saved.contacts} contacts, ${saved.orders} orders, ${(saved.bytes / 1024 / 1024).toFixed(1)} MiB, ${(performance.now() - t).toFixed(0)} ms (load average ${loadavg()[0].toFixed(2)})`,
);
const times = [];
for (let i = 0; i < restores; i++) {
  // Something to undo each time: one more contact.
  await call('PUT', '/faults', {});
  t = performance.now();
  const r = await call('POST', '/snapshots/bench/restore');
  const wall = performance.now() - t;
  times.push(wall);
  console.log(`restore ${i + 1}: ${wall.toFixed(0)} ms for the admin call, ${r.duration_ms} ms the swap alone (${r.contacts} contacts)`);
}
times.sort((a, b) => a - b);
console.log(
  `restore of ${contacts} contacts: median ${times[Math.floor(times.length / 2)].toFixed(0)} ms, worst ${times.at(-1).toFixed(0)} ms (load average ${loadavg()[0].toFixed(2)})`,
);
await sb.close();
rmSync(dir, { recursive: true, force: true });
