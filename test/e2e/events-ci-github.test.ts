/**
 * docs/ci.md's GitHub Actions job, run step by step the way the runner does: each `run:` block in
 * its own `bash --noprofile --norc -eo pipefail` shell, `$GITHUB_ENV` carried over to the later
 * steps, `$RUNNER_TEMP` set, the working directory at the repository root. The sandbox started in
 * the background by one step must serve the later ones. Keeps the doc honest.
 */
import { execFile } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { tempConfigDir } from '../helpers/run-cli.js';
import { ensureBuilt, root } from '../helpers/spawn-cli.js';

interface Step {
  name: string;
  run: string;
}

/** The steps of the GitHub Actions job in docs/ci.md that have a `run:` (checkout and setup-node have none). */
function githubSteps(): Step[] {
  const doc = readFileSync(join(root, 'docs', 'ci.md'), 'utf8');
  const start = doc.indexOf('## GitHub Actions');
  const fence = doc.indexOf('```yaml', start);
  const yaml = doc.slice(fence + 7, doc.indexOf('```', fence + 7));
  const lines = yaml.split('\n');
  const steps: Step[] = [];
  let name = '';
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as string;
    const named = /^\s*- name: (.*)$/.exec(line);
    if (named) name = named[1] as string;
    const run = /^(\s*)(?:- )?run: (.*)$/.exec(line);
    if (!run) continue;
    if (run[2] !== '|') {
      steps.push({ name: name || (run[2] as string), run: run[2] as string });
    } else {
      const indent = (run[1] as string).length + (line.trimStart().startsWith('- ') ? 4 : 2);
      const body: string[] = [];
      for (i++; i < lines.length && ((lines[i] as string).trim() === '' || (lines[i] as string).search(/\S/) >= indent); i++) {
        body.push((lines[i] as string).slice(indent));
      }
      i--;
      steps.push({ name, run: body.join('\n') });
    }
    name = '';
  }
  return steps;
}

function bash(script: string, env: Record<string, string>, cwd: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile('bash', ['--noprofile', '--norc', '-eo', 'pipefail', '-c', script], { cwd, env, timeout: 30_000 }, (err, stdout, stderr) =>
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

let tmp: { dir: string; cleanup: () => void };
let pids: string;

beforeAll(ensureBuilt, 60_000);

beforeEach(() => {
  tmp = tempConfigDir();
  pids = join(tmp.dir, 'pids');
});

afterEach(() => {
  // Stop what the job left running (the background sandbox), by the pids the `svc` shim recorded.
  if (existsSync(pids)) {
    for (const pid of readFileSync(pids, 'utf8').split('\n').filter(Boolean)) {
      try {
        process.kill(Number(pid), 'SIGINT');
      } catch {
        /* already gone */
      }
    }
  }
  tmp.cleanup();
});

describe('docs/ci.md', () => {
  it('the GitHub Actions job runs green step by step: the test event reaches the Flow exactly once', async () => {
    const all = githubSteps();
    // The install step (npm ci / npm link) is the runner's business: `svc` is put on the PATH here.
    const steps = all.filter((s) => !s.run.includes('npm ci'));
    expect(all.length - steps.length).toBe(1);
    expect(steps.map((s) => s.name)).toEqual([
      'Start the sandbox in the background',
      'Create a Flow keyed on the test event',
      'Send a test event and assert that the Flow ran once for it',
      'Send a file of events (exit 4 if any line is rejected or failed)',
    ]);
    const binDir = join(tmp.dir, 'bin');
    mkdirSync(binDir);
    writeFileSync(
      join(binDir, 'svc'),
      `#!/bin/sh\necho $$ >> "${pids}"\nexec "${process.execPath}" "${join(root, 'bin', 'svc.js')}" "$@"\n`,
    );
    chmodSync(join(binDir, 'svc'), 0o755);
    const runnerTemp = join(tmp.dir, 'runner-temp');
    mkdirSync(runnerTemp);
    const githubEnv = join(tmp.dir, 'github-env');
    writeFileSync(githubEnv, '');
    const env: Record<string, string> = {
      PATH: `${binDir}:${process.env.PATH ?? ''}`,
      HOME: tmp.dir,
      SVC_CONFIG_DIR: join(tmp.dir, 'config'),
      CI: 'true',
      GITHUB_ACTIONS: 'true',
      GITHUB_RUN_ID: '987654',
      GITHUB_ENV: githubEnv,
      RUNNER_TEMP: runnerTemp,
    };
    const outputs: string[] = [];
    for (const step of steps) {
      // $GITHUB_ENV lines written by earlier steps are in the environment of the later ones.
      for (const line of readFileSync(githubEnv, 'utf8').split('\n')) {
        const eq = line.indexOf('=');
        if (eq > 0) env[line.slice(0, eq)] = line.slice(eq + 1);
      }
      const r = await bash(step.run, env, root);
      outputs.push(r.stdout);
      expect({ step: step.name, code: r.code, stderr: r.stderr }).toEqual({ step: step.name, code: 0, stderr: '' });
    }
    expect(env.SVC_BASE_URL).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(env.SVC_TOKEN).toMatch(/\S/);
    // The add-mask command was printed for the token, so the runner hides it in logs.
    expect(outputs[0]).toBe(`::add-mask::${env.SVC_TOKEN}\n`);
    // jq -e printed `true` for the outbox assertion.
    expect(outputs[2]).toBe('true\n');
    // The file step's summary, on stdout: every fixture line accepted.
    expect(JSON.parse(outputs[3] as string)).toMatchObject({ rows: 3, accepted: 3, rejected: 0, failed: 0, unconfirmed: 0 });
    expect(readFileSync(join(runnerTemp, 'events-report.csv'), 'utf8')).toMatch(/^line,id,outcome,status,error_code,message\n/);
  });
});
