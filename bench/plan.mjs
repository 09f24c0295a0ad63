// Benchmark of `svc contacts import FILE --plan` (issue 28): an account of N contacts (default
// 100,000) in every email and SMS state, a file of N rows (half of them people in the account,
// half new), against `svc contacts list --all` on the same account. Target: the plan under 2 × the
// list's wall time, peak RSS under 250 MB. Prints figures; asserts nothing. Needs the build (dist/).
//   node bench/plan.mjs [N] [--runs R]
// The sandbox runs in its own process on a file database; the account is written into that file
// directly (better-sqlite3) between two starts, so seeding takes a second, not an import.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const args = process.argv.slice(2);
const runsAt = args.indexOf('--runs');
const RUNS = runsAt >= 0 ? Number(args[runsAt + 1]) : 2;
const N = Number(args.find((a, i) => /^\d+$/.test(a) && args[i - 1] !== '--runs') ?? 100_000);
const root = fileURLToPath(new URL('..', import.meta.url));
const bin = join(root, 'bin', 'svc.js');
const TIME = '/usr/bin/time';
const work = mkdtempSync(join(tmpdir(), 'svc-bench-plan-'));
const db = join(work, 'sandbox.db');
const EMAIL = ['subscribed', 'unsubscribed', 'never_subscribed', 'suppressed', 'compliance_suppressed'];
const SMS = ['subscribed', 'unsubscribed', 'never_subscribed', 'single_opt_in', 'pending'];

function startSandbox(seed) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, 'sandbox', 'start', '--db', db, '--port', '0', '--json', ...(seed ? ['--seed'] : [])], {
      env: { PATH: process.env.PATH, HOME: process.env.HOME, SVC_CONFIG_DIR: join(work, 'sandbox-config') },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let buf = '';
    child.stdout.on('data', (d) => {
      buf += d.toString();
      const nl = buf.indexOf('\n');
      if (nl < 0) return;
      try {
        const doc = JSON.parse(buf.slice(0, nl));
        resolve({
          baseUrl: doc.base_url,
          token: doc.seed?.api_token,
          stop: () =>
            new Promise((r) => {
              child.once('exit', r);
              child.kill('SIGINT');
            }),
        });
      } catch (e) {
        reject(new Error(`unexpected sandbox output: ${buf} (${e.message})`));
      }
    });
    child.once('error', reject);
  });
}

function seedAccount() {
  const Database = createRequire(import.meta.url)('better-sqlite3');
  const d = new Database(db);
  const insert = d.prepare(
    `INSERT INTO contacts (id, business_id, email, phone, first_name, last_name, email_consent, sms_consent, created_at, updated_at)
     VALUES (?, 'biz_default', ?, ?, ?, NULL, ?, ?, ?, ?)`,
  );
  const now = Date.now();
  d.transaction(() => {
    for (let i = 0; i < N; i++) {
      insert.run(
        `ct_bench${String(i).padStart(8, '0')}`,
        `p${i}@example.com`,
        `+1415${String(1_000_000 + i).padStart(7, '0')}`,
        `P${i}`,
        EMAIL[i % 5],
        SMS[Math.floor(i / 5) % 5],
        now,
        now,
      );
    }
  })();
  d.close();
}

/** N rows: even rows are people of the account (every other one by phone too), odd rows new people. */
function writeFile() {
  const path = join(work, 'people.csv');
  const lines = ['email,phone,email_consent,sms_consent'];
  for (let i = 0; i < N; i++) {
    const existing = i % 2 === 0;
    const email = existing ? `p${i}@example.com` : `new${i}@example.com`;
    const phone = existing && i % 4 === 0 ? `+1415${String(1_000_000 + i).padStart(7, '0')}` : '';
    lines.push(`${email},${phone},${EMAIL[i % 4]},${i % 3 === 0 && phone ? 'subscribed' : ''}`);
  }
  writeFileSync(path, `${lines.join('\n')}\n`);
  return path;
}

/** One spawned svc run: wall seconds, CPU seconds, peak RSS in MB (from /usr/bin/time). */
function run(env, argv) {
  const usage = join(work, 'usage.txt');
  const timed = existsSync(TIME);
  const started = process.hrtime.bigint();
  const r = spawnSync(
    timed ? TIME : process.execPath,
    timed ? ['-f', '%U %S %M', '-o', usage, process.execPath, bin, ...argv] : [bin, ...argv],
    {
      env: { ...env, PATH: process.env.PATH, HOME: process.env.HOME },
      stdio: ['ignore', 'ignore', 'pipe'],
      maxBuffer: 1 << 26,
    },
  );
  const wall = Number(process.hrtime.bigint() - started) / 1e9;
  if (r.status !== 0) throw new Error(`svc ${argv.join(' ')} exited ${r.status}: ${r.stderr}`);
  if (!timed) return { wall };
  const [user, sys, rssKb] = spawnSync('cat', [usage]).stdout.toString().trim().split(/\s+/).map(Number);
  return { wall, cpu: user + sys, rss: rssKb / 1024 };
}

const first = await startSandbox(true);
const token = first.token;
await first.stop();
seedAccount();
const file = writeFile();
const sb = await startSandbox(false);
const env = { SVC_BASE_URL: sb.baseUrl, SVC_TOKEN: token, SVC_CONFIG_DIR: join(work, 'config') };
const best = (xs) => xs.reduce((a, b) => (b.wall < a.wall ? b : a));
try {
  const list = [];
  const plan = [];
  for (let i = 0; i < RUNS; i++) {
    list.push(run(env, ['contacts', 'list', '--all', '--format', 'ndjson']));
    plan.push(run(env, ['contacts', 'import', file, '--plan', '--json']));
  }
  const l = best(list);
  const p = best(plan);
  if (process.env.SVC_BENCH_PLAN_PARTS) {
    const dry = run(env, ['contacts', 'import', file, '--dry-run', '--json']);
    console.log(`(the file alone, --dry-run: ${dry.wall.toFixed(2)} s wall, ${dry.cpu?.toFixed(2)} s CPU)`);
    if (process.env.SVC_BENCH_PROF)
      spawnSync(
        process.execPath,
        ['--cpu-prof', `--cpu-prof-dir=${process.env.SVC_BENCH_PROF}`, bin, 'contacts', 'import', file, '--plan', '--json'],
        { env: { ...env, PATH: process.env.PATH }, stdio: 'ignore' },
      );
    const dbg = spawnSync(process.execPath, [bin, 'contacts', 'import', file, '--plan', '--json', '--debug'], {
      env: { ...env, PATH: process.env.PATH },
      maxBuffer: 1 << 28,
    });
    const lines = dbg.stderr
      .toString()
      .split('\n')
      .filter((x) => x.includes('GET'));
    console.log(lines.slice(0, 3).join('\n'), '\n…\n', lines.slice(-3).join('\n'), `\n${lines.length} GET lines`);
  }
  const fmt = (x) =>
    `${x.wall.toFixed(2)} s wall${x.cpu !== undefined ? `, ${x.cpu.toFixed(2)} s CPU, ${x.rss.toFixed(0)} MB peak RSS` : ''}`;
  console.log(`account ${N.toLocaleString('en-US')} contacts, file ${N.toLocaleString('en-US')} rows, best of ${RUNS}`);
  console.log(`contacts list --all:        ${fmt(l)}  (runs: ${list.map((x) => x.wall.toFixed(2)).join(', ')})`);
  console.log(`contacts import --plan:     ${fmt(p)}  (runs: ${plan.map((x) => x.wall.toFixed(2)).join(', ')})`);
  console.log(
    `plan / list: ${(p.wall / l.wall).toFixed(2)} × (target < 2)${p.rss !== undefined ? `; plan peak RSS ${p.rss.toFixed(0)} MB (target < 250)` : ''}`,
  );
} finally {
  await sb.stop();
  rmSync(work, { recursive: true, force: true });
}
