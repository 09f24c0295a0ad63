/**
 * The outage scenario shared by the bulk imports (bulk/outage.ts): the sandbox is stopped in the
 * middle of an import and started again on the same port and database file; the import waits and
 * finishes with every row once, or stops past --max-outage with its journal kept, exit 1 and the
 * exact resume command, and --resume finishes it. `describeOutage` defines both tests for one verb.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type RunResult, runCli, tempConfigDir } from './run-cli.js';
import { type TestSandbox, withSandbox } from './sandbox.js';

export interface OutageCase {
  /** The verb's noun: `svc NOUN import FILE`. */
  noun: 'contacts' | 'orders';
  /** How many rows `write` puts in the file. */
  rows: number;
  /** Flags every run of the import takes (before the scenario's own). */
  flags?: string[];
  /**
   * How long the sandbox stays stopped in the test that waits it out (default 2.5 s). One verb
   * runs the real minute: the run idles meanwhile, its test bounded by a clear timeout.
   */
  outageMs?: number;
  /** Writes the input file. */
  write(path: string): void;
  /** Whether the sandbox has stored row 60 (the outage starts then). */
  stored60(sb: TestSandbox, token: string): Promise<boolean>;
  /** Asserts every row of the file is stored once. */
  expectEveryRowOnce(sb: TestSandbox, env: Record<string, string>): Promise<void>;
}

export function describeOutage(c: OutageCase): void {
  let dir: string;
  let config: { dir: string; cleanup: () => void };
  let sb: TestSandbox | undefined;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), `svc-${c.noun}-outage-`));
    config = tempConfigDir();
  });
  afterEach(async () => {
    await sb?.close().catch(() => undefined);
    sb = undefined;
    config.cleanup();
    rmSync(dir, { recursive: true, force: true });
  });

  /**
   * Starts the import, stops the sandbox once row 60 is stored; resolves once it is stopped, with
   * the run. `onStderr`: the import's stderr as it comes.
   */
  async function importWithOutage(args: string[], env: Record<string, string>, token: string, onStderr?: (text: string) => void) {
    const first = sb as TestSandbox;
    await first.admin.setFaults({ latency_ms: 10 });
    let stopped: Promise<void> | undefined;
    const watch = setInterval(() => {
      if (stopped) return;
      c.stored60(first, token).then(
        (yes) => {
          if (yes && !stopped) stopped = first.close();
        },
        () => undefined,
      );
    }, 20);
    const run = runCli(args, { env, onStderr });
    let settled = false;
    void run.then(() => {
      settled = true;
    });
    while (!stopped && !settled) await new Promise((r) => setTimeout(r, 20));
    clearInterval(watch);
    if (!stopped) throw new Error(`the import ended before the outage: ${JSON.stringify(await run)}`);
    await stopped;
    sb = undefined;
    return { run };
  }

  /** A sandbox on a database file in the test's folder, the input file and the CLI's environment. */
  async function setUp(extraEnv: Record<string, string> = {}) {
    const db = join(dir, 'sandbox.db');
    sb = await withSandbox({ db });
    const port = sb.port;
    const token = await sb.tokenWithAllScopes();
    const file = join(dir, `${c.noun}.csv`);
    c.write(file);
    const env = { SVC_CONFIG_DIR: config.dir, SVC_BASE_URL: sb.baseUrl, SVC_TOKEN: token, ...extraEnv };
    return { db, port, token, file, env };
  }

  const base = (file: string) => [c.noun, 'import', file, ...(c.flags ?? []), '--concurrency', '4'];

  describe(`svc ${c.noun} import: outages waited out`, () => {
    const outageMs = c.outageMs ?? 2500;
    const seconds = outageMs / 1000;
    it(
      `waits while the service is down (${seconds} s), probing it at least every 5 s, and finishes every row once it is back (exit 0)`,
      async () => {
        const { db, port, token, file, env } = await setUp();
        // --debug says each attempt, refused ones included: when each came tells how often it probed.
        const refusedAt: number[] = [];
        const answeredAt: number[] = [];
        let partial = '';
        const onStderr = (text: string) => {
          const lines = (partial + text).split('\n');
          partial = lines.pop() ?? '';
          for (const line of lines) {
            if (/ → connection refused /.test(line)) refusedAt.push(performance.now());
            else if (/ → 2\d\d in /.test(line)) answeredAt.push(performance.now());
          }
        };
        const { run } = await importWithOutage([...base(file), '--json', '--debug'], env, token, onStderr);
        const down = performance.now();
        // Idle meanwhile: the import only probes.
        await new Promise((r) => setTimeout(r, outageMs));
        const up = performance.now();
        sb = await withSandbox({ db, port });
        const r = await run;
        expect(r.stderr).toMatch(/cannot reach the service since \d\d:\d\d:\d\d; waiting, Ctrl-C to stop and resume later/);
        expect(r.stderr).toMatch(/the service answers again after \d+ s; continuing/);
        expect(r.code, r.stderr).toBe(0);
        // Probed all along the outage, never more than 5 s apart, and answered again within 5 s of its end.
        const back = answeredAt.find((t) => t > up) ?? Number.POSITIVE_INFINITY;
        const probes = refusedAt.filter((t) => t > down && t < back);
        expect(probes.length).toBeGreaterThanOrEqual(Math.floor(seconds / 5));
        const times = [down, ...probes, back];
        const gaps = times.slice(1).map((t, i) => t - (times[i] as number));
        expect(Math.max(...gaps), `seconds between probes: ${gaps.map((g) => (g / 1000).toFixed(1)).join(', ')}`).toBeLessThanOrEqual(5000);
        const doc = JSON.parse(r.stdout);
        expect(doc.rows).toBe(c.rows);
        expect(doc.failed).toBe(0);
        expect(doc.created + doc.updated + doc.unconfirmed).toBe(c.rows);
        await c.expectEveryRowOnce(sb, env);
      },
      outageMs + 60_000,
    );

    it('--max-outage exceeded: exit 1, the journal kept and the resume command; --resume finishes every row', async () => {
      const { db, port, token, file, env } = await setUp({ SVC_MAX_OUTAGE: '30s' });
      const journal = join(dir, `${c.noun}.journal`);
      const { run } = await importWithOutage([...base(file), '--journal', journal, '--max-outage', '2s'], env, token);
      const r = await run;
      expect(r.code, r.stderr).toBe(1);
      expect(r.stderr).toMatch(/cannot reach the service since \d\d:\d\d:\d\d; waiting/);
      expect(r.stderr).toMatch(/cannot reach the service for longer than --max-outage \(2 s\)/);
      expect(r.stderr).toContain(`progress saved in ${journal}; once fixed, continue with: svc ${c.noun} import ${file} --resume`);
      expect(r.stdout).toMatch(/^rows\t\d+/m);
      expect(/^failed\t(\d+)/m.exec(r.stdout)?.[1]).toBe('0');

      sb = await withSandbox({ db, port });
      const again = await runCli([...base(file), '--journal', journal, '--resume', '--json'], { env });
      expect(again.code, again.stderr).toBe(0);
      const doc = JSON.parse(again.stdout);
      expect(doc.rows).toBe(c.rows);
      expect(doc.failed).toBe(0);
      expect(doc.resumed).toBeGreaterThan(0);
      await c.expectEveryRowOnce(sb, env);
    }, 30_000);
  });
}

export interface RestartableSandbox {
  /** A fresh folder for the test's files (removed afterwards). */
  dir: string;
  /** The CLI's environment: a config folder, the sandbox's address, a token with every scope. */
  env: Record<string, string>;
  /** The sandbox as started. */
  sb: TestSandbox;
  /** Stops the sandbox (the outage begins). */
  stop(): Promise<void>;
  /** Starts it again on the same port and database file (the outage ends). */
  restart(): Promise<TestSandbox>;
}

/** A sandbox on a database file that the test stops and starts again; everything removed after `body`. */
export async function withRestartableSandbox(prefix: string, body: (s: RestartableSandbox) => Promise<void>): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const config = tempConfigDir();
  const db = join(dir, 'sandbox.db');
  let sb: TestSandbox | undefined = await withSandbox({ db });
  const port = sb.port;
  try {
    const env = { SVC_CONFIG_DIR: config.dir, SVC_BASE_URL: sb.baseUrl, SVC_TOKEN: await sb.tokenWithAllScopes() };
    await body({
      dir,
      env,
      sb,
      async stop() {
        await sb?.close();
        sb = undefined;
      },
      async restart() {
        sb = await withSandbox({ db, port });
        return sb;
      },
    });
  } finally {
    await sb?.close().catch(() => undefined);
    config.cleanup();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The run stopped past `--max-outage 2s`: exit 1, the journal kept and `command` printed to continue. */
export function expectStoppedPastMaxOutage(r: RunResult, journal: string, command: string): void {
  expect(r.code, r.stderr).toBe(1);
  expect(r.stderr).toMatch(/cannot reach the service for longer than --max-outage \(2 s\)/);
  expect(r.stderr).toContain(`progress saved in ${journal}; once fixed, continue with: ${command}`);
  expect(existsSync(journal)).toBe(true);
}

/**
 * Polls `check` every 20 ms until it holds (at most `ms`); throws naming `what` otherwise. For the
 * state a test must see before it acts (never a bare sleep: a loaded machine makes any guess short).
 */
export async function waitUntil(what: string, check: () => boolean | Promise<boolean>, ms = 20_000): Promise<void> {
  const until = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > until) throw new Error(`timed out after ${ms / 1000} s waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/**
 * Whether the journal at `path` records a finished row (`D`): the run has had an answer from the
 * service, so an outage from now on is waited out (bulk/outage.ts), never failed row by row.
 */
export function journalHasDoneRow(path: string): boolean {
  try {
    return /^D /m.test(readFileSync(path, 'utf8'));
  } catch {
    return false;
  }
}
