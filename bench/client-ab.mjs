// node bench/client-ab.mjs OTHER_CHECKOUT [BLOCK] [ROUNDS] — the API client of this checkout (B)
// against another checkout's (A), in one process on one sandbox: ROUNDS (default 20) rounds of
// BLOCK (default 2,000) order upserts each, 32 at a time, A and B alternating in ABBA order so that
// neither always runs first; CPU per request from process.cpuUsage() per block. Prints the median
// per-round ratio B/A (a machine whose load swings ±40% from one import to the next still gives a
// usable ratio this way) and, with ALLOC=1 first, the bytes each client allocates per request
// (V8's sampling heap profiler, collected objects included: independent of the load).
// Needs a build (node build.mjs) for the sandbox; both clients are bundled from their src/ here.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';

const root = fileURLToPath(new URL('..', import.meta.url));
if (!process.argv[2]) throw new Error('usage: node bench/client-ab.mjs OTHER_CHECKOUT [BLOCK] [ROUNDS]');
const other = resolve(process.argv[2]);
const BLOCK = Number(process.argv[3] ?? 2000);
const ROUNDS = Number(process.argv[4] ?? 20);
const CONCURRENCY = 32;

/** Bundles a checkout's client below node_modules, so that `import 'undici'` resolves to this project's. */
async function loadClient(checkout, tag) {
  const out = join(root, 'node_modules', '.cache', 'svc-bench', `client-ab-${process.pid}-${tag}.mjs`);
  mkdirSync(join(out, '..'), { recursive: true });
  await build({
    entryPoints: [join(checkout, 'src/client/client.ts')],
    bundle: true,
    platform: 'node',
    format: 'esm',
    external: ['undici'],
    outfile: out,
    logLevel: 'warning',
  });
  const { ServiceClient } = await import(pathToFileURL(out).href);
  rmSync(out);
  return ServiceClient;
}
const classes = { A: await loadClient(other, 'a'), B: await loadClient(root, 'b') };

const work = mkdtempSync(join(tmpdir(), 'svc-bench-client-ab-'));
const child = spawn(
  process.execPath,
  [join(root, 'bin', 'svc.js'), 'sandbox', 'start', '--memory', '--port', '0', '--host', '127.0.0.1', '--seed', '--json'],
  { env: { PATH: process.env.PATH, HOME: process.env.HOME, SVC_CONFIG_DIR: join(work, 'config') }, stdio: ['ignore', 'pipe', 'inherit'] },
);
const sandbox = await new Promise((res, rej) => {
  let buf = '';
  child.once('exit', (code) => rej(new Error(`the sandbox exited (${code})`)));
  child.stdout.on('data', (d) => {
    buf += d;
    const nl = buf.indexOf('\n');
    if (nl >= 0) res(JSON.parse(buf.slice(0, nl)));
  });
});

const clients = {};
for (const [k, C] of Object.entries(classes)) {
  clients[k] = new C({
    baseUrl: sandbox.base_url,
    credentials: { kind: 'api_token', token: sandbox.seed.api_token },
    logger: { debug() {}, warn() {} },
    connections: 64,
  });
}
const signal = new AbortController().signal;
let seq = 0;
const order = (i) => ({
  order_id: `o-${process.pid}-${i}`,
  total: 10.5,
  currency: 'EUR',
  order_date: '2024-01-02',
  email: `c${i % 500}@example.com`,
});

async function drive(k, count) {
  const client = clients[k];
  let n = 0;
  let failed = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (n < count) {
        n++;
        const r = await client.upsertOrder(order(++seq), { signal }).catch(() => null);
        if (!r || r.status >= 300) failed++;
      }
    }),
  );
  if (failed) console.log(`${k}: ${failed} failed`);
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
for (const k of ['A', 'B']) await drive(k, 1000); // warm-up: connections open, code optimised

if (process.env.ALLOC) {
  const session = new Session();
  session.connect();
  await session.post('HeapProfiler.enable');
  const sum = (node) => node.selfSize + node.children.reduce((a, c) => a + sum(c), 0);
  for (const k of ['A', 'B']) {
    const per = [];
    for (let r = 0; r < 3; r++) {
      await session.post('HeapProfiler.startSampling', {
        samplingInterval: 256,
        includeObjectsCollectedByMajorGC: true,
        includeObjectsCollectedByMinorGC: true,
      });
      await drive(k, BLOCK);
      const { profile } = await session.post('HeapProfiler.stopSampling');
      per.push(sum(profile.head) / BLOCK);
    }
    console.log(`${k}: ${Math.round(median(per))} bytes allocated per request (${per.map(Math.round).join(', ')})`);
  }
  session.disconnect();
}

const cpu = { A: [], B: [] };
for (let r = 0; r < ROUNDS; r++) {
  for (const k of r % 2 ? ['A', 'B'] : ['B', 'A']) {
    const c0 = process.cpuUsage();
    await drive(k, BLOCK);
    const c = process.cpuUsage(c0);
    cpu[k].push((c.user + c.system) / BLOCK);
  }
}
const ratios = cpu.B.map((b, i) => b / cpu.A[i]);
console.log(`µs CPU per request, median of ${ROUNDS} rounds of ${BLOCK}: A ${median(cpu.A).toFixed(1)}, B ${median(cpu.B).toFixed(1)}`);
console.log(`B/A per round: median ${median(ratios).toFixed(3)} (${ratios.map((x) => x.toFixed(2)).join(' ')})`);
await Promise.all(Object.values(clients).map((c) => c.close()));
child.removeAllListeners('exit');
child.kill('SIGINT');
rmSync(work, { recursive: true, force: true });
