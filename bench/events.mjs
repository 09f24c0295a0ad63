// npm run bench:events — `svc events send --file` on a 50,000-line NDJSON file against a sandbox
// running in its own process, next to autocannon on the same endpoint (POST /v1/events) with the
// same number of connections. Prints events/s for both and the ratio (target ≥ 0.8).
// Needs a build (node build.mjs). Prints figures; asserts nothing.
//
//   node bench/events.mjs [--lines 50000] [--concurrency 16] [--rounds 2]
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';

const root = fileURLToPath(new URL('..', import.meta.url));
const bin = join(root, 'bin', 'svc.js');
const arg = (name, fallback) => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
};
const LINES = arg('--lines', 50_000);
const CONNECTIONS = arg('--concurrency', 16);
const ROUNDS = arg('--rounds', 2);
const SCOPES = ['contacts_read', 'contacts_write', 'events_write', 'orders_write'];

const SANDBOX_MODULE = `
  const { startSandbox } = await import(${JSON.stringify(join(root, 'dist', 'sandbox.js'))});
  const sb = await startSandbox({ port: 0, db: ':memory:' });
  console.log(JSON.stringify({ base_url: sb.baseUrl }));
  process.on('SIGINT', () => sb.close().then(() => process.exit(0)));
`;

/**
 * Starts `svc sandbox start --memory --port 0 --json` in its own process and waits for its
 * base_url line; falls back to the built sandbox module in a child process when that command is
 * not available in this build.
 */
async function startSandbox() {
  try {
    return await startSandboxProcess([bin, 'sandbox', 'start', '--memory', '--port', '0', '--json']);
  } catch (e) {
    console.error(`note: svc sandbox start failed (${e.message}); starting dist/sandbox.js in a child process instead`);
    return startSandboxProcess(['--input-type=module', '-e', SANDBOX_MODULE]);
  }
}

function startSandboxProcess(args) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, {
      env: { PATH: process.env.PATH, HOME: process.env.HOME, SVC_CONFIG_DIR: work },
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    let buffer = '';
    const timer = setTimeout(() => reject(new Error('the sandbox did not print its base_url within 20 s')), 20_000);
    child.on('exit', (code) => reject(new Error(`the sandbox exited with code ${code} before listening`)));
    child.stdout.on('data', (d) => {
      buffer += d;
      const nl = buffer.indexOf('\n');
      if (nl < 0) return;
      clearTimeout(timer);
      try {
        const { base_url } = JSON.parse(buffer.slice(0, nl));
        resolve({ baseUrl: base_url, stop: () => child.kill('SIGINT') });
      } catch (e) {
        reject(new Error(`unexpected first line from the sandbox: ${buffer.slice(0, nl)} (${e.message})`));
      }
    });
  });
}

async function admin(baseUrl, method, path, body) {
  const res = await fetch(`${baseUrl}/_sandbox${path}`, {
    method,
    headers: { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`admin ${method} ${path}: HTTP ${res.status} ${await res.text()}`);
  return res.json();
}

function eventBody(i) {
  return { event_type: 'bench', email: `bench${i % 1000}@example.com`, properties: { i, plan: 'pro' } };
}

async function runAutocannon(baseUrl, token) {
  const result = await autocannon({
    url: `${baseUrl}/v1/events`,
    method: 'POST',
    connections: CONNECTIONS,
    amount: LINES,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    // The same bodies the file holds, cycled.
    requests: Array.from({ length: 1000 }, (_, i) => ({ body: JSON.stringify(eventBody(i)) })),
  });
  const ok = result['2xx'];
  const seconds = result.duration;
  return { eventsPerSecond: ok / seconds, ok, non2xx: result.non2xx, errors: result.errors, seconds };
}

function runCli(baseUrl, token, file) {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const child = spawn(process.execPath, [bin, 'events', 'send', '--file', file, '--concurrency', String(CONNECTIONS), '--json'], {
      env: { PATH: process.env.PATH, HOME: work, SVC_CONFIG_DIR: work, SVC_BASE_URL: baseUrl, SVC_TOKEN: token },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => {
      out += d;
    });
    child.stderr.on('data', (d) => {
      err += d;
    });
    child.on('error', reject);
    child.on('close', (code) => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      if (code !== 0) return reject(new Error(`svc events send exited ${code}: ${err.slice(0, 500)}`));
      const summary = JSON.parse(out);
      resolve({ eventsPerSecond: summary.accepted / seconds, seconds, summary });
    });
  });
}

const work = mkdtempSync(join(tmpdir(), 'svc-bench-events-'));
const file = join(work, 'events.ndjson');
writeFileSync(file, `${Array.from({ length: LINES }, (_, i) => JSON.stringify(eventBody(i))).join('\n')}\n`);

const sandbox = await startSandbox();
try {
  const { token } = await admin(sandbox.baseUrl, 'POST', '/api-tokens', { name: 'bench', scopes: SCOPES });
  // Warm-up: the contacts exist and the JIT is warm before either measurement.
  await autocannon({
    url: `${sandbox.baseUrl}/v1/events`,
    method: 'POST',
    connections: CONNECTIONS,
    amount: 2000,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    requests: Array.from({ length: 1000 }, (_, i) => ({ body: JSON.stringify(eventBody(i)) })),
  });
  // Alternate the two, ROUNDS times each, and keep each one's best round: on a shared machine a
  // single run mostly measures the neighbours.
  const cannons = [];
  const clis = [];
  for (let r = 0; r < ROUNDS; r++) {
    cannons.push(await runAutocannon(sandbox.baseUrl, token));
    clis.push(await runCli(sandbox.baseUrl, token, file));
  }
  const best = (runs) => runs.reduce((a, b) => (b.eventsPerSecond > a.eventsPerSecond ? b : a));
  const cannon = best(cannons);
  const cli = best(clis);
  const ratio = cli.eventsPerSecond / cannon.eventsPerSecond;
  const rounds = (runs) => runs.map((x) => x.eventsPerSecond.toFixed(0)).join(', ');
  console.log(
    `events bench: ${LINES} events, ${CONNECTIONS} connections, sandbox in its own process, node ${process.version}, ${cpus().length} CPUs, best of ${ROUNDS} alternating rounds`,
  );
  console.log(
    `autocannon POST /v1/events      ${cannon.eventsPerSecond.toFixed(0).padStart(6)} events/s  (${cannon.ok} 2xx, ${cannon.non2xx} non-2xx, ${cannon.errors} errors, ${cannon.seconds.toFixed(1)} s; rounds: ${rounds(cannons)})`,
  );
  console.log(
    `svc events send --file          ${cli.eventsPerSecond.toFixed(0).padStart(6)} events/s  (${cli.summary.accepted} accepted, ${cli.summary.rejected + cli.summary.failed + cli.summary.unconfirmed} other, ${cli.seconds.toFixed(1)} s wall, process start included; rounds: ${rounds(clis)})`,
  );
  console.log(`ratio svc / autocannon          ${ratio.toFixed(2)}  (target ≥ 0.80)`);
} finally {
  sandbox.stop();
  rmSync(work, { recursive: true, force: true });
}
