/**
 * README.md's examples are what svc prints (issue 36): the set-up a newcomer runs comes first
 * (`npm ci`, the main job against the embedded sandbox, `npm test`) and passes no --port; the main
 * job's output shown in the README is exactly what the command prints on a fresh config folder,
 * and a second run's figures are the ones the README gives; the contacts line's figures; the keys
 * of the JSON error shape it lists. Spawned `bin/svc.js` with a temporary config folder.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, root, spawnSvc } from '../helpers/spawn-cli.js';

const readme = readFileSync(join(root, 'README.md'), 'utf8');
const MAIN_JOB = 'node bin/svc.js --sandbox orders import fixtures/orders-sample.csv --initial-sync';

/** The fenced blocks of the README with their language, in order. */
const blocks = [...readme.matchAll(/```(\w*)\n([\s\S]*?)```/g)].map((m) => ({ lang: m[1] as string, body: m[2] as string }));

/** A summary printed into a pipe (`name<TAB>count` lines) as an object. */
function figures(tsv: string): Record<string, number> {
  return Object.fromEntries(
    tsv
      .trim()
      .split('\n')
      .map((l) => l.split('\t'))
      .filter((p) => p.length === 2)
      .map(([k, v]) => [k as string, Number(v)]),
  );
}

let dir = '';
beforeAll(ensureBuilt, 120_000);
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = '';
});

/** Runs a README command line (`node bin/svc.js ARGS`) as written, from the checkout, on a fresh config folder. */
function runReadme(line: string) {
  dir ||= mkdtempSync(join(tmpdir(), 'svc-readme-'));
  const args = line.replace(/^node bin\/svc\.js /, '').split(' ');
  return spawnSvc(args, { SVC_CONFIG_DIR: dir, HOME: dir });
}

describe('README.md', () => {
  it('starts with the set-up: npm ci, the main job against the embedded sandbox, npm test; no --port', () => {
    const setup = blocks[0];
    expect(setup?.lang).toBe('sh');
    const commands = (setup?.body ?? '')
      .split('\n')
      .map((l) => l.replace(/\s+#.*$/, '').trim())
      .filter(Boolean);
    expect(commands[0]).toBe('npm ci');
    expect(commands[1]).toBe(MAIN_JOB);
    expect(commands).toContain('npm test');
    expect(setup?.body).not.toMatch(/--port/);
    expect(/^## .*/m.exec(readme)?.[0]).toBe('## Set-up on a fresh machine');
  });

  it('the main job prints exactly what the README shows, and a second run the figures it gives', async () => {
    const sample = blocks.find((b) => b.lang === 'console' && b.body.startsWith(`$ ${MAIN_JOB}\n`));
    expect(sample, 'a console block of the main job').toBeDefined();
    const [command, ...shown] = (sample?.body ?? '').trimEnd().split('\n');
    const first = await runReadme((command as string).slice(2));
    expect(first.code).toBe(4);
    // Into a pipe: the summary on stdout, then the rejected rows, the error and the hint on stderr.
    // A run longer than 10 s (a loaded machine) adds `progress:` lines, as the README says.
    const printed = `${first.stdout}${first.stderr}`.trimEnd().split('\n');
    expect(printed.filter((l) => !l.startsWith('progress: '))).toEqual(shown);
    expect(readme).toContain('`created 0`, `updated 999`');
    const second = await runReadme(MAIN_JOB);
    expect(second.code).toBe(4);
    expect(figures(second.stdout)).toMatchObject({ rows: 1007, created: 0, updated: 999, rejected: 8, resumed: 0 });
  }, 180_000);

  it('the contacts line: 113 created, 2 updated, 5 rejected, exit 4, no SMS sent', async () => {
    const line = (blocks[0]?.body ?? '').split('\n').find((l) => l.includes('contacts import')) ?? '';
    expect(line).toContain('113 created, 2 updated, 5 rejected (exit 4), no SMS sent');
    const run = await runReadme(line.replace(/\s+#.*$/, '').trim());
    expect(run.code).toBe(4);
    expect(figures(run.stdout)).toMatchObject({ created: 113, updated: 2, rejected: 5, welcome_sms: 0 });
  }, 180_000);

  it('the JSON error shape lists every key svc prints, hint included', async () => {
    const listed = /stderr gets `\{"error": \{([^}]*)\}\}`/.exec(readme)?.[1] ?? '';
    const keys = [...listed.matchAll(/"(\w+)"/g)].map((m) => m[1]);
    const run = await runReadme('node bin/svc.js --json contacts list');
    expect(run.code).toBe(3);
    const printed = Object.keys((JSON.parse(run.stderr) as { error: Record<string, unknown> }).error);
    expect(printed).toContain('hint');
    for (const key of printed) expect(keys).toContain(key);
  }, 60_000);

  it('the package contents it lists are package.json `files`', () => {
    const files = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { files: string[] }).files;
    for (const f of files.filter((x) => !x.startsWith('!'))) expect(readme).toContain(`\`${f}\``);
    expect(readme).not.toContain('ends with the time of each step');
  });
});
