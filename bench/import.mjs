// npm run bench:import — `svc orders import` (or, with --kind contacts, `svc contacts import`) against a sandbox running in its own process
// (`svc sandbox start --memory --port 0 --seed --json`). Prints figures; asserts nothing.
// Needs a build (node build.mjs).
//
//   node bench/import.mjs [N]                    throughput: R rounds (default 2) of autocannon on
//                                                POST /v1/orders/placed with C connections, then an import
//                                                of N new rows (default 200,000) with --concurrency C;
//                                                prints every rate and the ratio of the best rounds
//   node bench/import.mjs --memory [N1] [N2]     peak RSS (VmHWM) of imports of N1 and N2 rows
//                                                (default 100,000 and 1,000,000)
//   node bench/import.mjs --rate-limit [RPS] [N] sandbox limited to RPS requests/s per token (default
//                                                200), N rows (default 5,000): achieved rate and 429s
// Options: --concurrency C (default 16), --duration S for autocannon (default 10), --rounds R
// (default 2), --kind orders|contacts (default orders), --preset shopify (orders only: the imported
// files are Shopify orders exports of N orders, one to three line items each). N also from $N.
// npm run bench:contacts-import is `--kind contacts`: `svc contacts import` of N new contacts
// (default 100,000) against autocannon on POST /v1/contacts, the same modes.
import { spawn } from 'node:child_process';
import { createWriteStream, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';

const root = fileURLToPath(new URL('..', import.meta.url));
const bin = join(root, 'bin', 'svc.js');
const argv = process.argv.slice(2);
const option = (name, fallback) => {
  const i = argv.indexOf(name);
  if (i < 0) return fallback;
  const v = Number(argv[i + 1]);
  argv.splice(i, 2);
  return v;
};
const kindAt = argv.indexOf('--kind');
const KIND = kindAt < 0 ? 'orders' : argv.splice(kindAt, 2)[1];
if (KIND !== 'orders' && KIND !== 'contacts') throw new Error(`--kind must be orders or contacts, got ${KIND}`);
const presetAt = argv.indexOf('--preset');
const PRESET = presetAt < 0 ? undefined : argv.splice(presetAt, 2)[1];
if (PRESET !== undefined && PRESET !== 'shopify') throw new Error(`--preset: only shopify is generated, got ${PRESET}`);
const CONCURRENCY = option('--concurrency', 16);
const DURATION = option('--duration', 10);
const ROUNDS = option('--rounds', 2);
const mode = argv[0]?.startsWith('--') ? argv.shift() : '--throughput';
const numbers = argv.map(Number).filter((n) => Number.isFinite(n) && n > 0);
const work = mkdtempSync(join(tmpdir(), 'svc-bench-import-'));

function fmt(n) {
  return Math.round(n).toLocaleString('en-US');
}

const currencies = ['EUR', 'USD', 'GBP', 'CHF'];
/** What is imported, and the request autocannon repeats for the comparison. */
const KINDS = {
  // About 40 contacts per 1,000 orders, four currencies.
  orders: {
    defaultRows: 200_000,
    header: 'order_id,total,currency,order_date,email',
    line: (i, prefix, n) =>
      `${prefix}-${i},${(i % 997) + 1}.${String(i % 100).padStart(2, '0')},${currencies[i % 4]},2024-0${(i % 9) + 1}-1${i % 10},c${i % Math.max(40, Math.floor(n / 25))}@example.com`,
    path: '/v1/orders/placed',
    body: (prefix, n) => ({
      order_id: `${prefix}-${n}`,
      total: '12.50',
      currency: 'EUR',
      order_date: '2024-03-01',
      email: `c${n % 8000}@example.com`,
    }),
  },
  // Every row a new contact: e-mail, name, an e-mail opt-in on half of them.
  contacts: {
    defaultRows: 100_000,
    header: 'email,first_name,accepts_email_marketing',
    line: (i, prefix) => `${prefix.toLowerCase()}-${i}@example.com,Name${i},${i % 2 ? 'yes' : 'no'}`,
    path: '/v1/contacts',
    body: (prefix, n) => ({ email: `${prefix.toLowerCase()}-${n}@example.com`, first_name: `Name${n}`, send_welcome_sms: false }),
  },
};
const kind = KINDS[KIND];

const SHOPIFY_HEADER =
  'Name,Email,Financial Status,Paid at,Fulfillment Status,Fulfilled at,Accepts Marketing,Currency,Subtotal,Shipping,Taxes,Total,Discount Code,Discount Amount,Shipping Method,Created at,Lineitem quantity,Lineitem name,Lineitem price,Lineitem compare at price,Lineitem sku,Lineitem requires shipping,Lineitem taxable,Lineitem fulfillment status,Billing Name,Billing Street,Billing Address1,Billing Address2,Billing Company,Billing City,Billing Zip,Billing Province,Billing Country,Billing Phone,Shipping Name,Shipping Street,Shipping Address1,Shipping Address2,Shipping Company,Shipping City,Shipping Zip,Shipping Province,Shipping Country,Shipping Phone,Notes,Note Attributes,Cancelled at,Payment Method,Payment Reference,Refunded Amount,Vendor,Outstanding Balance,Employee,Location,Device ID,Id,Tags,Risk Level,Source,Lineitem discount,Tax 1 Name,Tax 1 Value,Tax 2 Name,Tax 2 Value,Tax 3 Name,Tax 3 Value,Tax 4 Name,Tax 4 Value,Tax 5 Name,Tax 5 Value,Phone,Receipt Number,Duties,Billing Province Name,Shipping Province Name,Payment ID,Payment Terms Name,Next Payment Due At,Payment References'.split(
    ',',
  );
const col = (name) => SHOPIFY_HEADER.indexOf(name);

/** Writes N rows of the kind, streaming. */
async function writeCsv(path, n, prefix) {
  const out = createWriteStream(path);
  out.write(`${kind.header}\n`);
  for (let i = 1; i <= n; i++) {
    if (!out.write(`${kind.line(i, prefix, n)}\n`)) await new Promise((r) => out.once('drain', r));
  }
  await new Promise((r) => out.end(r));
}

async function writeShopifyCsv(path, n, prefix) {
  const out = createWriteStream(path);
  out.write(`\uFEFF${SHOPIFY_HEADER.join(',')}\r\n`);
  const cells = new Array(SHOPIFY_HEADER.length).fill('');
  const [NAME, EMAIL, CREATED, QTY, LNAME, LPRICE, LSKU] = [
    'Name',
    'Email',
    'Created at',
    'Lineitem quantity',
    'Lineitem name',
    'Lineitem price',
    'Lineitem sku',
  ].map(col);
  const orderCols = [
    'Financial Status',
    'Accepts Marketing',
    'Currency',
    'Subtotal',
    'Total',
    'Billing Name',
    'Billing City',
    'Billing Country',
    'Billing Phone',
    'Shipping Country',
    'Id',
    'Risk Level',
    'Source',
  ].map(col);
  for (let i = 1; i <= n; i++) {
    const items = 1 + (i % 3);
    const price = (i % 97) + 1;
    cells[NAME] = `#${prefix}${i}`;
    cells[EMAIL] = `c${i % Math.max(40, Math.floor(n / 25))}@example.com`;
    cells[CREATED] = `2024-0${(i % 9) + 1}-1${i % 10} 10:${String(i % 60).padStart(2, '0')}:00 -0400`;
    const orderValues = [
      'paid',
      i % 2 ? 'yes' : 'no',
      'USD',
      `${price * items}.00`,
      `${price * items}.00`,
      `Customer ${i}`,
      'Springfield',
      'US',
      `(415) 555-${String(i % 10000).padStart(4, '0')}`,
      'US',
      String(5_500_000_000_000 + i),
      'Low',
      'web',
    ];
    for (let k = 0; k < items; k++) {
      orderValues.forEach((v, j) => {
        cells[orderCols[j]] = k === 0 ? v : '';
      });
      cells[QTY] = '1';
      cells[LNAME] = `Product ${k + 1}`;
      cells[LPRICE] = `${price}.00`;
      cells[LSKU] = `SKU-${k + 1}`;
      if (!out.write(`${cells.join(',')}\r\n`)) await new Promise((r) => out.once('drain', r));
    }
  }
  await new Promise((r) => out.end(r));
}

/** The bench's input file: plain order rows, or a Shopify export with --preset shopify. */
function writeInput(path, n, prefix) {
  return PRESET === 'shopify' ? writeShopifyCsv(path, n, prefix) : writeCsv(path, n, prefix);
}
const presetArgs = PRESET ? ['--preset', PRESET] : [];
if (PRESET !== undefined && KIND !== 'orders') throw new Error('--preset shopify generates orders exports: use it with --kind orders');

/** Starts the sandbox in its own process; resolves with its base URL, API token and a stop function. */
function startSandbox() {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, 'sandbox', 'start', '--memory', '--port', '0', '--seed', '--json'], {
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
          token: doc.seed.api_token,
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
    child.once('exit', (code) => reject(new Error(`sandbox exited with ${code}`)));
  });
}

async function setFaults(sb, faults) {
  const res = await fetch(`${sb.baseUrl}/_sandbox/faults`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(faults),
  });
  if (!res.ok) throw new Error(`PUT /_sandbox/faults answered ${res.status}`);
}

/** Runs `svc <kind> import`; returns wall seconds, the summary, stderr and the peak RSS (VmHWM, kB). */
function runImport(sb, file, extra = [], env = {}) {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const child = spawn(
      process.execPath,
      [bin, KIND, 'import', file, '--json', '--concurrency', String(CONCURRENCY), ...presetArgs, ...extra],
      {
        env: {
          PATH: process.env.PATH,
          HOME: process.env.HOME,
          SVC_CONFIG_DIR: join(work, 'cli-config'),
          SVC_BASE_URL: sb.baseUrl,
          SVC_TOKEN: sb.token,
          ...env,
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let stdout = '';
    let stderr = '';
    let peakKb = 0;
    const poll = setInterval(() => {
      try {
        const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'));
        if (m) peakKb = Math.max(peakKb, Number(m[1]));
      } catch {
        /* exited */
      }
    }, 100);
    child.stdout.on('data', (d) => {
      stdout += d;
    });
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    child.on('error', reject);
    child.on('close', (code) => {
      clearInterval(poll);
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      let summary;
      try {
        summary = JSON.parse(stdout);
      } catch {
        return reject(new Error(`import exited ${code}: ${stderr.slice(-2000)}`));
      }
      resolve({ code, seconds, summary, stderr, peakKb });
    });
  });
}

let acRun = 0;
async function autocannonRate(sb) {
  let n = 0;
  const prefix = `AC${++acRun}`;
  const result = await autocannon({
    url: sb.baseUrl,
    connections: CONCURRENCY,
    duration: DURATION,
    requests: [
      {
        method: 'POST',
        path: kind.path,
        headers: { authorization: `Bearer ${sb.token}`, 'content-type': 'application/json' },
        setupRequest: (req) => {
          n++;
          return { ...req, body: JSON.stringify(kind.body(prefix, n)) };
        },
      },
    ],
  });
  const non2xx = result.non2xx ?? 0;
  return { rate: result.requests.average, non2xx, total: result.requests.total };
}

async function throughput() {
  const n = numbers[0] ?? Number(process.env.N ?? kind.defaultRows);
  const sb = await startSandbox();
  const acRates = [];
  const importRates = [];
  try {
    for (let round = 1; round <= ROUNDS; round++) {
      const file = join(work, `${KIND}-${round}.csv`);
      await writeInput(file, n, `IM${round}`);
      console.log(`round ${round}/${ROUNDS}: autocannon, POST ${kind.path}, ${CONCURRENCY} connections, ${DURATION} s …`);
      const ac = await autocannonRate(sb);
      acRates.push(ac.rate);
      console.log(`  ${fmt(ac.rate)} requests/s (${fmt(ac.total)} requests, ${ac.non2xx} non-2xx)`);
      console.log(`round ${round}/${ROUNDS}: svc ${KIND} import, ${fmt(n)} rows, --concurrency ${CONCURRENCY} …`);
      const imp = await runImport(sb, file);
      rmSync(file, { force: true });
      const rate = n / imp.seconds;
      importRates.push(rate);
      console.log(
        `  ${fmt(rate)} rows/s (${imp.seconds.toFixed(1)} s, exit ${imp.code}, peak RSS ${fmt(imp.peakKb / 1024)} MB) ${JSON.stringify(imp.summary)}`,
      );
      console.log(`  ratio this round: ${(rate / ac.rate).toFixed(2)}`);
    }
    // The machine is shared and its load changes within minutes: compare each tool's best round.
    const bestAc = Math.max(...acRates);
    const bestImport = Math.max(...importRates);
    console.log(`best autocannon ${fmt(bestAc)} requests/s, best import ${fmt(bestImport)} rows/s`);
    console.log(`ratio import/autocannon: ${(bestImport / bestAc).toFixed(2)} (target ≥ 0.8)`);
  } finally {
    await sb.stop();
  }
}

async function memory() {
  const sizes = numbers.length ? numbers : [100_000, 1_000_000];
  const sb = await startSandbox();
  const peaks = [];
  try {
    for (const n of sizes) {
      const file = join(work, `${KIND}-${n}.csv`);
      await writeInput(file, n, `MEM${n}`);
      const imp = await runImport(sb, file);
      rmSync(file, { force: true });
      peaks.push(imp.peakKb);
      console.log(
        `${fmt(n)} rows: peak RSS ${(imp.peakKb / 1024).toFixed(1)} MB, ${fmt(n / imp.seconds)} rows/s, exit ${imp.code} ${JSON.stringify(imp.summary)}`,
      );
    }
    if (peaks.length >= 2) {
      const growth = peaks[peaks.length - 1] / peaks[0] - 1;
      console.log(
        `peak RSS growth from ${fmt(sizes[0])} to ${fmt(sizes[sizes.length - 1])} rows: ${(growth * 100).toFixed(1)}% (target: < 150 MB and within 20%)`,
      );
    }
  } finally {
    await sb.stop();
  }
}

async function rateLimit() {
  const rps = numbers[0] ?? 200;
  const n = numbers[1] ?? 5000;
  const file = join(work, `${KIND}-rl.csv`);
  await writeInput(file, n, 'RL');
  const sb = await startSandbox();
  try {
    await setFaults(sb, { rate_limit_rps: rps });
    const imp = await runImport(sb, file, ['--debug']);
    const answers = imp.stderr.split('\n').filter((l) => l.includes(`POST `) && l.includes(`${kind.path} → `));
    const limited = answers.filter((l) => /→ 429/.test(l)).length;
    const rate = n / imp.seconds;
    console.log(
      `rate limit ${rps}/s, ${fmt(n)} rows: ${rate.toFixed(1)} rows/s = ${((rate / rps) * 100).toFixed(1)}% of the limit (target ≥ 90%)`,
    );
    console.log(
      `  ${answers.length} requests, ${limited} answered 429 = ${((limited / Math.max(1, answers.length)) * 100).toFixed(2)}% (target ≤ 5%); exit ${imp.code} ${JSON.stringify(imp.summary)}`,
    );
  } finally {
    await sb.stop();
  }
}

try {
  if (mode === '--memory') await memory();
  else if (mode === '--rate-limit') await rateLimit();
  else await throughput();
} finally {
  rmSync(work, { recursive: true, force: true });
}
