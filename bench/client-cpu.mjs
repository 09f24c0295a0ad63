// node bench/client-cpu.mjs [N] [upsert|event] — CPU per request of the API client alone: N order
// upserts (default 20,000) or events through ServiceClient (16 at a time, one abort signal, like an
// import), against a sandbox in its own process on 127.0.0.1. Prints figures; asserts nothing.
// Needs a build (node build.mjs) for the sandbox; the client is bundled from src/ here.
// With `node --trace-gc --max-semi-space-size=1 --min-semi-space-size=1`, the number of
// scavenges it prints is a measure of what the client allocates (docs/performance.md).
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';

const root = fileURLToPath(new URL('..', import.meta.url));
const N = Number(process.argv[2] ?? 20_000);
const kind = process.argv[3] ?? 'upsert';
const CONCURRENCY = 16;

// Bundled below node_modules so that the bundle's `import 'undici'` resolves to the project's.
const out = join(root, 'node_modules', '.cache', 'svc-bench', `client-${process.pid}.mjs`);
mkdirSync(join(out, '..'), { recursive: true });
await build({
  entryPoints: [join(root, 'src/client/client.ts')],
  bundle: true,
  platform: 'node',
  format: 'esm',
  external: ['undici'],
  outfile: out,
  logLevel: 'warning',
});
const { ServiceClient } = await import(pathToFileURL(out).href);
rmSync(out);

const work = mkdtempSync(join(tmpdir(), 'svc-bench-client-'));
const child = spawn(
  process.execPath,
  [join(root, 'bin', 'svc.js'), 'sandbox', 'start', '--memory', '--port', '0', '--host', '127.0.0.1', '--seed', '--json'],
  { env: { PATH: process.env.PATH, HOME: process.env.HOME, SVC_CONFIG_DIR: join(work, 'config') }, stdio: ['ignore', 'pipe', 'inherit'] },
);
const sandbox = await new Promise((resolve, reject) => {
  let buf = '';
  child.once('exit', (code) => reject(new Error(`the sandbox exited (${code})`)));
  child.stdout.on('data', (d) => {
    buf += d;
    const nl = buf.indexOf('\n');
    if (nl >= 0) resolve(JSON.parse(buf.slice(0, nl)));
  });
});

const client = new ServiceClient({
  baseUrl: sandbox.base_url,
  credentials: { kind: 'api_token', token: sandbox.seed.api_token },
  logger: { debug() {}, warn() {} },
  connections: CONCURRENCY,
});
const signal = new AbortController().signal;
const one = (i) =>
  kind === 'event'
    ? client.sendEvent({ event_type: 'page_viewed', email: `c${i % 500}@example.com`, properties: { i } }, { signal })
    : client.upsertOrder(
        { order_id: `o-${process.pid}-${i}`, total: 10.5, currency: 'EUR', order_date: '2024-01-02', email: `c${i % 500}@example.com` },
        { signal },
      );

async function drive(from, count) {
  let next = from;
  let failed = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < from + count) {
        const r = await one(next++).catch(() => null);
        if (!r || r.status >= 300) failed++;
      }
    }),
  );
  return failed;
}

await drive(1e9, 500); // warm-up: connections open, code optimised
const cpu0 = process.cpuUsage();
const t0 = performance.now();
const failed = await drive(0, N);
const cpu = process.cpuUsage(cpu0);
const wallMs = performance.now() - t0;
console.log(
  `${kind}: ${N.toLocaleString('en-US')} requests, ${failed} failed, ${((cpu.user + cpu.system) / N).toFixed(1)} µs CPU per request, ${Math.round(wallMs)} ms`,
);
await client.close();
child.removeAllListeners('exit');
child.kill('SIGINT');
rmSync(work, { recursive: true, force: true });
