// Benchmark of the sandbox's order upsert: POST /v1/orders/placed driven by autocannon at 32
// connections for 10 s against a file-backed sandbox running in a separate process (so that the
// load generator does not share the server's event loop). Prints requests/s and latency; asserts
// nothing. Needs `node build.mjs` first (imports ../dist/sandbox.js in the child).
//   node bench/sandbox.mjs [--duration S] [--connections N] [--rounds N] [--no-log-compare] [--baseline]
// By default it runs with and without the request log, in alternating rounds, and prints its cost.
//   node bench/sandbox.mjs --domain [--upserts N]   (the upsert alone, in-process, from src/)
// --baseline also measures a bare fastify route that echoes the same body, in the same way, so
// that figures taken on a busy shared machine can be read as a ratio to what fastify alone does.
import { fork } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';

const args = process.argv.slice(2);
const opt = (name, fallback) => {
  const i = args.indexOf(name);
  return i >= 0 && args[i + 1] ? Number(args[i + 1]) : fallback;
};
const duration = opt('--duration', 10);
const connections = opt('--connections', 32);

if (process.env.SVC_BENCH_CHILD === 'baseline') {
  const { createRequire } = await import('node:module');
  const Fastify = createRequire(import.meta.url)('fastify');
  const app = Fastify({ logger: false });
  app.post('/v1/orders/placed', async (req, reply) => reply.code(201).send({ order_id: req.body.order_id }));
  await app.listen({ port: 0, host: '127.0.0.1' });
  process.send({ baseUrl: `http://127.0.0.1:${app.server.address().port}` });
  let cpuAtStart;
  process.on('message', (m) => {
    if (m === 'go') cpuAtStart = process.cpuUsage();
    if (m === 'stop') {
      const cpu = process.cpuUsage(cpuAtStart);
      process.send({ cpuMicros: cpu.user + cpu.system, sys: cpu.system }, () => process.exit(0));
    }
  });
} else if (process.env.SVC_BENCH_CHILD === '1') {
  const { startSandbox } = await import(process.env.SVC_BENCH_MODULE ?? new URL('../dist/sandbox.js', import.meta.url).href);
  const sb = await startSandbox({ port: 0, db: process.env.SVC_BENCH_DB, logEntries: process.env.SVC_BENCH_LOG === '0' ? 0 : undefined });
  process.send({ baseUrl: sb.baseUrl });
  let cpuAtStart;
  process.on('message', async (m) => {
    if (m === 'go') cpuAtStart = process.cpuUsage();
    if (m === 'stop') {
      const cpu = process.cpuUsage(cpuAtStart);
      await sb.close();
      process.send({ cpuMicros: cpu.user + cpu.system, sys: cpu.system }, () => process.exit(0));
    }
  });
} else if (args.includes('--domain')) {
  await domain();
} else {
  await main();
}

/**
 * --domain: the order upsert alone, in-process, no HTTP (src/ bundled with esbuild on the fly):
 * the benchmark's bodies on a file-backed store, a commit every 18 upserts (the group commit's
 * usual batch under the HTTP load), timed after the first 10,000 (when every buyer exists).
 */
async function domain() {
  const { build } = await import('esbuild');
  const root = fileURLToPath(new URL('..', import.meta.url));
  const outdir = join(root, 'node_modules', '.cache', 'svc-bench');
  const entry = join(outdir, 'domain-entry.ts');
  const { mkdirSync, writeFileSync } = await import('node:fs');
  mkdirSync(outdir, { recursive: true });
  writeFileSync(
    entry,
    [
      `export { SandboxDb } from '${join(root, 'src/sandbox/db.ts')}';`,
      `export { ensureDefaultBusiness } from '${join(root, 'src/sandbox/domain/auth.ts')}';`,
      `export { newCache } from '${join(root, 'src/sandbox/domain/context.ts')}';`,
      `export { upsertOrder } from '${join(root, 'src/sandbox/domain/orders.ts')}';`,
      `export { validateOrderInput } from '${join(root, 'src/contract/orders.ts')}';`,
    ].join('\n'),
  );
  await build({
    entryPoints: [entry],
    outfile: join(outdir, 'domain.mjs'),
    bundle: true,
    format: 'esm',
    platform: 'node',
    packages: 'external',
  });
  const m = await import(join(outdir, 'domain.mjs'));
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-'));
  const db = new m.SandboxDb(join(dir, 'sandbox.db'));
  const d = { db, now: Date.now, tokenTtlSeconds: 7200, cache: m.newCache() };
  m.ensureDefaultBusiness(d);
  const total = opt('--upserts', 30000);
  const warm = 10000;
  const inputs = [];
  for (let n = 1; n <= total; n++) {
    const id = n % 4 === 0 ? `o-${n - 1}` : `o-${n}`;
    const r = m.validateOrderInput({
      order_id: id,
      total: `${(n % 1000) + 1}.99`,
      currency: 'USD',
      order_date: '2026-06-22T10:00:00Z',
      email: `buyer${Number(id.slice(2)) % 5000}@example.com`,
      accepts_email_marketing: n % 2 === 0,
    });
    inputs.push(r.value);
  }
  let cpu = process.cpuUsage();
  for (let i = 0; i < total; i++) {
    if (i === warm) cpu = process.cpuUsage();
    if (i % 18 === 0) {
      if (db.sql.inTransaction) db.sql.exec('COMMIT');
      db.sql.exec('BEGIN');
    }
    m.upsertOrder(d, 'biz_default', inputs[i], undefined);
  }
  db.sql.exec('COMMIT');
  const used = process.cpuUsage(cpu);
  db.close();
  rmSync(dir, { recursive: true, force: true });
  console.log(
    `order upsert in-process (no HTTP), file-backed, commit every 18: ${((used.user + used.system) / (total - warm)).toFixed(1)} µs CPU per upsert (load average ${loadavg()[0].toFixed(2)})`,
  );
}

/**
 * The upsert load with the request log (the default: every request kept in its ring) and without
 * it (--log-size 0), in alternating rounds (--rounds, default 2) so that both see the same
 * machine; prints the cost of the log. --no-log-compare runs the first alone.
 */
async function main() {
  if (args.includes('--no-log-compare')) return baseline(await measure('with the request log (default: 10,000 entries, 64 MiB)', '1'));
  // Alternating rounds (with, without, with, without…): on a shared machine both see the same load.
  const rounds = opt('--rounds', 2);
  const withLog = [];
  const withoutLog = [];
  for (let i = 0; i < rounds; i++) {
    withLog.push(await measure('with the request log (default: 10,000 entries, 64 MiB)', '1'));
    withoutLog.push(await measure('without the request log (--log-size 0)', '0'));
  }
  const sum = (xs, f) => xs.reduce((n, x) => n + f(x), 0);
  const rate = (xs) => sum(xs, (x) => x.rate) / xs.length;
  const cpu = (xs) => sum(xs, (x) => x.cpuMicros) / sum(xs, (x) => x.requests);
  console.log(
    `request log cost over ${rounds} alternating rounds: ${(100 * (1 - rate(withLog) / rate(withoutLog))).toFixed(1)}% of upserts/s (${Math.round(rate(withLog))} vs ${Math.round(rate(withoutLog))}), ${(100 * (cpu(withLog) / cpu(withoutLog) - 1)).toFixed(1)}% more server CPU per request (${cpu(withLog).toFixed(0)} vs ${cpu(withoutLog).toFixed(0)} µs)`,
  );
  return baseline(withLog[0]);
}

async function measure(label, log) {
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-'));
  const db = join(dir, 'sandbox.db');
  const child = fork(fileURLToPath(import.meta.url), [], {
    execArgv: process.env.SVC_BENCH_PROF ? ['--cpu-prof', '--cpu-prof-dir=/tmp/prof2'] : [],
    env: { ...process.env, SVC_BENCH_CHILD: '1', SVC_BENCH_DB: db, SVC_BENCH_LOG: log },
  });
  const { baseUrl } = await new Promise((resolve) => child.once('message', resolve));
  const res = await fetch(`${baseUrl}/_sandbox/api-tokens`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'bench', scopes: ['orders_write'] }),
  });
  const { token } = await res.json();

  const loadBefore = loadavg()[0];
  child.send('go');
  // Every 4th request repeats an earlier order_id (an update, 200); the others create (201).
  let n = 0;
  const result = await autocannon({
    url: `${baseUrl}/v1/orders/placed`,
    connections,
    duration,
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    requests: [
      {
        setupRequest(req) {
          n++;
          const id = n % 4 === 0 ? `o-${n - 1}` : `o-${n}`;
          req.body = JSON.stringify({
            order_id: id,
            total: `${(n % 1000) + 1}.99`,
            currency: 'USD',
            order_date: '2026-06-22T10:00:00Z',
            // The same order always belongs to the same buyer; 5,000 buyers place several orders each.
            email: `buyer${Number(id.slice(2)) % 5000}@example.com`,
            accepts_email_marketing: n % 2 === 0,
          });
          return req;
        },
      },
    ],
  });
  const stopped = new Promise((resolve) => child.once('message', resolve));
  child.send('stop');
  const { cpuMicros, sys } = await stopped;
  await new Promise((resolve) => child.once('exit', resolve));
  rmSync(dir, { recursive: true, force: true });

  const codes = Object.entries(result.statusCodeStats ?? {})
    .map(([code, s]) => `${code}: ${s.count}`)
    .join(', ');
  console.log(`POST /v1/orders/placed, ${connections} connections, ${duration} s, file-backed sandbox in a child process, ${label}`);
  // The machine may be shared: say how busy it was (1-minute load average, before and after).
  console.log(`load average: ${loadBefore.toFixed(2)} before, ${loadavg()[0].toFixed(2)} after (${availableParallelism()} CPUs)`);
  console.log(`requests/s: ${Math.round(result.requests.average)} (total ${result.requests.total})`);
  console.log(`latency ms: p50 ${result.latency.p50}, p90 ${result.latency.p90}, p99 ${result.latency.p99}, max ${result.latency.max}`);
  console.log(`status codes: ${codes}; errors ${result.errors}, timeouts ${result.timeouts}, non-2xx ${result.non2xx}`);
  // CPU time is steadier than wall time on a shared machine: it says what one free core would sustain.
  const perRequest = cpuMicros / result.requests.total;
  console.log(
    `server CPU: ${Math.round(perRequest)} µs per request, ${Math.round((100 * sys) / cpuMicros)}% of it in the kernel (one free core would sustain ~${Math.round(1e6 / perRequest)} req/s)`,
  );
  return { rate: result.requests.average, cpuPerRequest: perRequest, cpuMicros, requests: result.requests.total };
}

async function baseline(result) {
  if (args.includes('--baseline')) {
    const base = fork(fileURLToPath(import.meta.url), [], { env: { ...process.env, SVC_BENCH_CHILD: 'baseline' } });
    const { baseUrl: bareUrl } = await new Promise((resolve) => base.once('message', resolve));
    base.send('go');
    const bare = await autocannon({
      url: `${bareUrl}/v1/orders/placed`,
      connections,
      duration,
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        order_id: 'o-1',
        total: '1.99',
        currency: 'USD',
        order_date: '2026-06-22T10:00:00Z',
        email: 'buyer@example.com',
      }),
    });
    const done = new Promise((resolve) => base.once('message', resolve));
    base.send('stop');
    const { cpuMicros: bareCpu } = await done;
    const bareRate = Math.round(bare.requests.average);
    console.log(
      `baseline (bare fastify echo route, same load): ${bareRate} req/s, p99 ${bare.latency.p99} ms, ${Math.round(bareCpu / bare.requests.total)} µs CPU per request; sandbox/baseline = ${(result.rate / bare.requests.average).toFixed(2)}`,
    );
  }
}
