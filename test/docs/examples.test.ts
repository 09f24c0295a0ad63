/**
 * Every `svc …` example in README.md and docs/*.md runs as written (issue 13).
 *
 * The shell blocks (sh, bash, shell, zsh, console) that call svc are found by test/helpers/doc-examples.ts
 * and each runs as one bash script, in the order written, so a variable set by one command serves
 * the next ones of its block. `svc` is on the PATH (bin/svc.js of this checkout); `node bin/svc.js`
 * and `fixtures/…` resolve as from the checkout. The folder is a fresh temporary one per block, with
 * its own SVC_CONFIG_DIR and data folder (the embedded sandbox of `--sandbox`) and its own sandbox
 * (test/helpers/sandbox.ts: in memory, port 0 on 127.0.0.1). The reader is logged in to it: the default
 * profile and the `sandbox` profile hold an API token with every scope. No terminal, stdin at end of file.
 *
 * Each command must exit 0, or the code listed in EXIT with why the docs imply it; every `svc` the
 * command runs (a pipeline, `$(…)`) must exit with that code as well. A command that cannot run here
 * (it needs the reader's own file, a real account, a terminal, or it runs until stopped) is in
 * SKIP with the reason: a new example runs by default, and skipping one is a decision in this file.
 * yaml blocks (the CI jobs of docs/ci.md) are run by test/e2e/events-ci*.test.ts. Inline `code` in
 * prose is not run. DOCEX_SHOW=1 prints what each block printed.
 */
import { spawn } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildProgram } from '../../src/program.js';
import { blockCommands, type DocBlock, docBlocks, svcCalls } from '../helpers/doc-examples.js';
import { runCli } from '../helpers/run-cli.js';
import { type TestSandbox, withSandbox } from '../helpers/sandbox.js';
import { ensureBuilt, root } from '../helpers/spawn-cli.js';

/** Commands that do not run here, by key (comment-free, whitespace collapsed), with the reason. */
const SKIP: Record<string, string> = {
  // README.md, set-up and global install
  'npm ci': 'installs the checkout this test runs in',
  'npm test': 'the whole suite, this test among it',
  'node bin/svc.js sandbox start --seed': 'runs until Ctrl-C (test/e2e/sandbox-start.test.ts)',
  'npm ci && npm pack': 'packs the checkout (test/package/installed.test.ts)',
  'npm install --global --allow-scripts=better-sqlite3 ./svc-0.1.0.tgz': 'a global install (test/package/installed.test.ts)',
  'svc --sandbox orders import "$(npm root --global)/svc/fixtures/orders-sample.csv" --initial-sync':
    'needs the global install above (test/package/installed.test.ts runs this import)',
  'export SVC_BASE_URL=https://api.example.com SVC_TOKEN=…':
    "a real service and the CI's secret; the next command runs against the sandbox",
  // docs/auth.md, profiles: a real staging service and its token file
  'svc --profile staging --base-url https://staging.example.com auth login --with-token < staging-token.txt':
    "a real staging service and the reader's token file (test/commands/auth-profiles.test.ts logs in to a sandbox)",
  'svc auth switch staging': 'needs the staging profile logged in above (test/commands/auth-profiles.test.ts switches)',
  // docs/completion.md: installing into the reader's shell set-up
  'source <(svc completion zsh)': 'zsh syntax, run here by bash (test/commands/completion.test.ts loads the script in zsh)',
  'svc completion fish | source': 'fish syntax, run here by bash (test/commands/completion.test.ts loads the script in fish)',
  // the reader's own files
  'svc contacts unsubscribe --ids-file ids.txt --report unsubscribe-report.csv': "the reader's list of contact ids",
  'svc orders import orders.csv --initial-sync --report report.csv': "the reader's orders.csv",
  'svc orders import orders.csv --dry-run': "the reader's orders.csv",
  'svc orders import orders.csv --resume': "needs an interrupted import of the reader's orders.csv",
  'svc orders import export.csv --dry-run': "the reader's shop export",
  'svc orders import export.csv --map order_id="Order Number" --map total="Grand Total" --default-country US --initial-sync':
    "the reader's shop export",
  'svc orders import export.csv --map-file my-shop.json --date-order DMY --initial-sync': "the reader's shop export and mapping file",
  'svc orders import export.csv --map-file my-shop.json --dry-run': "the reader's shop export and mapping file",
  'svc orders import export.csv --default-country DE --map order_id="Order Number" --map total=Amount --map currency=Curr --map order_date="Placed At" --map email="Customer E-Mail" --map phone=Mobile --initial-sync':
    "the reader's shop export",
  'shop-export | svc orders import - --map order_id="Order Number"': "`shop-export` stands for the reader's program",
  'svc orders import orders_export.csv --initial-sync':
    "the reader's shop export (fixtures/*-orders-export.csv run in the shop systems' section)",
  'svc orders import export.csv --preset woocommerce --set currency=EUR --initial-sync': "the reader's WooCommerce export",
  'svc orders import export.csv --preset none --map order_id=No --dry-run': "the reader's export",
  'svc orders import woo-orders.csv --map-file woo-orders.json --dry-run': "the reader's WooCommerce export and mapping file",
  'svc orders import woo-orders.csv --map-file woo-orders.json --initial-sync': "the reader's WooCommerce export and mapping file",
  'svc contacts import subscribers.csv --dry-run': "the reader's CSV",
  'svc contacts import list.csv --map email="E-mail" --default-country DE --if-exists skip': "the reader's CSV",
  'svc contacts import sms-optins.csv --welcome-sms': "the reader's CSV",
  'svc events send --file events.ndjson --default-country US --concurrency 16 --report report.csv --unconfirmed-out unconfirmed.ndjson':
    "the reader's NDJSON file (fixtures/events.ndjson runs in docs/ci.md's jobs)",
  // a real account, a terminal, placeholders
  'svc auth login': 'a real service, at a terminal (the prompts: test/e2e/auth-tty.test.ts)',
  'printf %s "$SECRET" | svc auth login --client-id app_123 --client-secret-stdin --scopes "contacts_read orders_write" [--require-scopes] [--basic-auth]':
    "a synopsis: a real application's id and secret, optional flags in brackets",
  'svc auth login --with-token < token.txt': "the reader's token in a file",
  // runs until stopped, or waits for what the reader's own program does
  'svc sandbox start --seed': 'runs until Ctrl-C (test/e2e/sandbox-start.test.ts)',
  'svc sandbox outbox --wait welcome_sms --email ada@example.com --timeout 30s --json':
    "waits (30 s) for a welcome SMS that the reader's code records (test/commands/sandbox-outbox-live.test.ts)",
  'svc sandbox outbox --wait flow_run --event-type ci_check --timeout 30s':
    "waits (30 s) for a flow run that the reader's code triggers (docs/ci.md's jobs run it)",
};

/** Skipped commands that are not even command lines (a synopsis): their flags are not checked. */
const NOT_PARSED = new Set([
  'printf %s "$SECRET" | svc auth login --client-id app_123 --client-secret-stdin --scopes "contacts_read orders_write" [--require-scopes] [--basic-auth]',
]);

/** Commands whose documented exit code is not 0, by key, with where the docs say so. */
const EXIT: Record<string, { code: number; why: string }> = {
  'node bin/svc.js --sandbox orders import fixtures/orders-sample.csv --initial-sync': {
    code: 4,
    why: 'README: "the exit code is 4 because some rows were rejected"',
  },
  'node bin/svc.js --sandbox contacts import fixtures/shopify-customers-export.csv --preset shopify': {
    code: 4,
    why: 'README: "5 rejected"; exit code 4 when rows were rejected',
  },
  'svc --sandbox orders import fixtures/orders-sample.csv --initial-sync': {
    code: 4,
    why: 'the sample holds 8 invalid rows on purpose (README)',
  },
  'svc contacts import fixtures/shopify-customers-export.csv --preset shopify --report report.csv': {
    code: 4,
    why: 'docs/contacts.md: 5 rows of the sample are rejected; exit code 4',
  },
};

const blocks = docBlocks(root);

/** A block still running after this is killed (its process group): an example that waits forever fails.
 * 90 s: a block of seven commands took over 30 s at a load of 20 on 2 cores. */
const BLOCK_TIMEOUT_MS = 90_000;

let tmp: string;

/**
 * A fresh sandbox for one block and a config folder logged in to it, as the reader is: the default
 * profile and the `sandbox` profile (the one `svc sandbox start --seed` saves, which docs/sandbox.md
 * uses) both hold an API token with every scope. The account is not empty: a few contacts in the
 * consent states the recipes filter on (addresses at example.org, so that no example collides with them).
 */
async function sandboxFor(config: string): Promise<TestSandbox> {
  const sb = await withSandbox();
  const token = await sb.tokenWithAllScopes();
  for (const profile of ['default', 'sandbox']) {
    const login = await runCli(['auth', 'login', '--with-token', '--base-url', sb.baseUrl, '--profile', profile], {
      env: { SVC_CONFIG_DIR: config },
      stdin: token,
    });
    expect(login.code, login.stderr).toBe(0);
  }
  const seed: Array<[string, { email_consent?: string; sms_consent?: string }]> = [
    ['seed.suppressed@example.org', { email_consent: 'suppressed' }],
    ['seed.compliance@example.org', { email_consent: 'compliance_suppressed' }],
    ['seed.sms-unsubscribed@example.org', { email_consent: 'subscribed', sms_consent: 'unsubscribed' }],
  ];
  for (const [email, consent] of seed) {
    const r = await runCli(['contacts', 'create', '--email', email, '--json'], { env: { SVC_CONFIG_DIR: config } });
    expect(r.code, r.stderr).toBe(0);
    await sb.admin.forceConsent((JSON.parse(r.stdout) as { id: string }).id, consent);
  }
  return sb;
}

/** Parses `svc ARGS` with the real command tree, running nothing: commander's usage error, if any. */
async function parseOnly(args: string[]): Promise<string | undefined> {
  let stderr = '';
  const err = new PassThrough();
  err.on('data', (d: Buffer) => {
    stderr += d.toString();
  });
  const program = buildProgram({
    io: {
      stdin: new PassThrough(),
      stdout: new PassThrough(),
      stderr: err,
      stdinIsTTY: false,
      stdoutIsTTY: false,
      stderrIsTTY: false,
      columns: 80,
    },
    run: async () => {},
  });
  try {
    await program.parseAsync(args, { from: 'user' });
    return undefined;
  } catch (e) {
    const code = (e as { code?: string }).code;
    if (code === 'commander.helpDisplayed' || code === 'commander.version') return undefined;
    return stderr.trim() || String(e);
  }
}

interface CommandRun {
  /** The command's own exit status (a pipeline's under pipefail). */
  status: number;
  /** The exit status of every svc it ran, in order. */
  svc: number[];
}

/** Runs a block as one bash script in `dir`; the commands that did not finish within the time have no entry. */
function runBlock(
  block: DocBlock,
  dir: string,
  config: string,
): Promise<{ runs: Map<number, CommandRun>; output: string; timedOut: boolean }> {
  const log = join(dir, '.svc-exits');
  const results = join(dir, '.results');
  const lines = [
    'set -o pipefail',
    `__done() { printf '%s\\t%s\\t%s\\n' "$1" "$2" "$(paste -sd, "${log}")" >> "${results}"; : > "${log}"; }`,
    `: > "${log}"; : > "${results}"`,
  ];
  block.commands.forEach((c, i) => {
    if (SKIP[c.key] !== undefined) lines.push(`: skipped ${i}`);
    else lines.push(c.text, `__done ${i} $?`);
  });
  const script = join(dir, '.block.sh');
  writeFileSync(script, `${lines.join('\n')}\n`);
  const bin = join(dir, '.bin');
  mkdirSync(bin);
  writeFileSync(
    join(bin, 'svc'),
    `#!/bin/sh\n"${process.execPath}" "${join(root, 'bin', 'svc.js')}" "$@"\nrc=$?\necho $rc >> "${log}"\nexit $rc\n`,
  );
  chmodSync(join(bin, 'svc'), 0o755);
  symlinkSync(join(root, 'fixtures'), join(dir, 'fixtures'));
  symlinkSync(join(root, 'bin'), join(dir, 'bin'));
  return new Promise((resolve) => {
    const child = spawn('bash', ['--noprofile', '--norc', script], {
      cwd: dir,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: {
        PATH: `${bin}:${process.env.PATH ?? ''}`,
        HOME: dir,
        TMPDIR: tmpdir(),
        LANG: 'C.UTF-8',
        SVC_CONFIG_DIR: config,
      },
    });
    let output = '';
    child.stdout?.on('data', (d: Buffer) => {
      output += d.toString();
    });
    child.stderr?.on('data', (d: Buffer) => {
      output += d.toString();
    });
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      process.kill(-(child.pid as number), 'SIGKILL');
    }, BLOCK_TIMEOUT_MS);
    // Whatever a command left running in the background goes with the block (and closes the pipes).
    child.on('exit', () => {
      try {
        process.kill(-(child.pid as number), 'SIGKILL');
      } catch {
        /* the group is gone */
      }
    });
    child.on('close', () => {
      clearTimeout(timer);
      const runs = new Map<number, CommandRun>();
      for (const line of readFileSync(results, 'utf8').split('\n').filter(Boolean)) {
        const [i, status, svc] = line.split('\t');
        runs.set(Number(i), { status: Number(status), svc: svc ? svc.split(',').map(Number) : [] });
      }
      resolve({ runs, output, timedOut });
    });
  });
}

beforeAll(async () => {
  await ensureBuilt();
  tmp = mkdtempSync(join(tmpdir(), 'svc-docex-'));
}, 60_000);

afterAll(() => {
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

describe.concurrent('the shell examples of README.md and docs/*.md', () => {
  it('are found', () => {
    expect(blocks.length).toBeGreaterThan(10);
  });

  it('every SKIP and EXIT entry names an example that is still in the docs', () => {
    const keys = new Set(blocks.flatMap((b) => b.commands.map((c) => c.key)));
    expect(Object.keys(SKIP).filter((k) => !keys.has(k))).toEqual([]);
    expect(Object.keys(EXIT).filter((k) => !keys.has(k))).toEqual([]);
  });

  it('the skipped ones still name commands, arguments and flags that exist', async () => {
    const problems: string[] = [];
    for (const block of blocks) {
      for (const c of block.commands) {
        if (SKIP[c.key] === undefined || NOT_PARSED.has(c.key)) continue;
        for (const args of svcCalls(c.code)) {
          const problem = await parseOnly(args);
          if (problem) problems.push(`${block.doc}:${c.line} svc ${args.join(' ')}: ${problem}`);
        }
      }
    }
    expect(problems).toEqual([]);
  });

  for (const block of blocks) {
    const runnable = block.commands.filter((c) => SKIP[c.key] === undefined);
    const title = `${block.doc}:${block.line} (${runnable.length} of ${block.commands.length} commands run)`;
    it.skipIf(runnable.length === 0)(
      title,
      async () => {
        const dir = mkdtempSync(join(tmp, 'block-'));
        const config = join(dir, '.config');
        const sb = await sandboxFor(config);
        const { runs, output, timedOut } = await runBlock(block, dir, config).finally(() => sb.close());
        if (process.env.DOCEX_SHOW) console.log(`=== ${title}\n${output}`);
        const problems: string[] = [];
        block.commands.forEach((c, i) => {
          if (SKIP[c.key] !== undefined) return;
          const expected = EXIT[c.key]?.code ?? 0;
          const run = runs.get(i);
          if (!run)
            problems.push(
              `${block.doc}:${c.line} ${timedOut ? `did not finish in ${BLOCK_TIMEOUT_MS / 1000} s` : 'did not run'}: ${c.key}`,
            );
          else if (run.status !== expected || run.svc.some((s) => s !== expected))
            problems.push(
              `${block.doc}:${c.line} exited ${run.status} (svc: ${run.svc.join(',') || 'none'}), expected ${expected}: ${c.key}`,
            );
        });
        expect(problems, `${problems.join('\n')}\n--- output ---\n${output}`).toEqual([]);
      },
      BLOCK_TIMEOUT_MS + 15_000,
    );
  }
});

describe('doc-examples parsing', () => {
  it('joins continuations, quotes and { } groups, and keeps console output out', () => {
    const sh = blockCommands(
      [
        '{ svc a',
        '  svc b | tail -n +2   # no } here',
        '} > out.csv',
        'svc c --x "two',
        'lines" \\',
        '  --y  # done',
        '# comment',
        'echo $(svc d)',
      ],
      10,
      'sh',
    );
    expect(sh.map((c) => [c.line, c.key, c.callsSvc])).toEqual([
      [10, '{ svc a\n svc b | tail -n +2\n} > out.csv'.replace(/\s+/g, ' '), true],
      [13, 'svc c --x "two lines" --y', true],
      [17, 'echo $(svc d)', true],
    ]);
    const console = blockCommands(['$ svc x \\', '    --y', 'output line', '$ node bin/svc.js z', '✓ done'], 1, 'console');
    expect(console.map((c) => [c.key, c.callsSvc])).toEqual([
      ['svc x --y', true],
      ['node bin/svc.js z', true],
    ]);
  });

  it('finds the svc calls of a command and splits their words as the shell does', () => {
    expect(svcCalls(`id=$(svc events send --type "Build Deployed" --prop 'a=b c') && svc x "$id" < in.txt 2> err | jq -r .id`)).toEqual([
      ['events', 'send', '--type', 'Build Deployed', '--prop', 'a=b c'],
      ['x', '$id'],
    ]);
    expect(svcCalls('{ svc a --all; node bin/svc.js b | tail -n +2; } > out.csv')).toEqual([['a', '--all'], ['b']]);
    const [group] = blockCommands(['{ svc a --all', '  svc b | tail -n +2', '} > out.csv'], 1, 'sh');
    expect(svcCalls(group?.code ?? '')).toEqual([['a', '--all'], ['b']]);
    expect(svcCalls('echo "svc not a call" | SVC_X=1 svc c')).toEqual([['c']]);
  });

  it("runBlock: each command's status and its svc calls' codes; a background process does not outlive the block", async () => {
    const block: DocBlock = {
      doc: 'synthetic.md',
      line: 1,
      lang: 'sh',
      commands: blockCommands(['svc --version | grep -q .', 'svc nosuch 2>/dev/null', 'sleep 300 &', 'X=$(svc --version; false)'], 2, 'sh'),
    };
    const dir = mkdtempSync(join(tmp, 'synthetic-'));
    const started = Date.now();
    const { runs, timedOut } = await runBlock(block, dir, join(dir, '.config'));
    expect(timedOut).toBe(false);
    expect(Date.now() - started).toBeLessThan(BLOCK_TIMEOUT_MS / 2);
    expect([...runs.entries()]).toEqual([
      [0, { status: 0, svc: [0] }],
      [1, { status: 2, svc: [2] }],
      [2, { status: 0, svc: [] }],
      [3, { status: 1, svc: [0] }],
    ]);
  });

  it('parseOnly reports what commander refuses, and runs nothing', async () => {
    expect(await parseOnly(['orders', 'import', 'x.csv', '--initial-sync', '--map', 'a=b'])).toBeUndefined();
    expect(await parseOnly(['--sandbox', 'contacts', 'list', '--email-consent', 'suppressed', '--format', 'csv'])).toBeUndefined();
    expect(await parseOnly(['orders', 'import', 'x.csv', '--bogus'])).toMatch(/unknown option '--bogus'/);
    expect(await parseOnly(['orders', 'imprt'])).toMatch(/unknown command|imprt/);
    expect(await parseOnly(['contacts', 'get'])).toMatch(/missing required argument/);
  });
});
