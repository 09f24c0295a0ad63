/**
 * docs/sandbox.md as a user reads it: its sample of `svc sandbox start --seed` has the shape of a
 * real run's output, and its shell recipes run as written in bash (the `svc` on PATH being this
 * checkout's), reading the sandbox's address from what it prints instead of a fixed port.
 * Needs the build (dist/), curl and jq (CI installs them).
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { root, spawnSvc } from '../helpers/spawn-cli.js';

const doc = readFileSync(join(root, 'docs', 'sandbox.md'), 'utf8');
const built = existsSync(join(root, 'dist', 'main.js'));
const has = (cmd: string) => spawnSync('sh', ['-c', `command -v ${cmd}`]).status === 0;

/** The fenced blocks of a section (from its heading to the next heading of the same level). */
function blocksOf(heading: string, lang: string): string[] {
  const start = doc.indexOf(`\n${heading}\n`);
  if (start < 0) throw new Error(`no section ${heading}`);
  const level = heading.split(' ')[0] as string;
  const next = doc.indexOf(`\n${level} `, start + heading.length + 2);
  const section = doc.slice(start, next < 0 ? undefined : next);
  return [...section.matchAll(new RegExp(`\`\`\`${lang}\\n([\\s\\S]*?)\`\`\``, 'g'))].map((m) => m[1] as string);
}

/** Output with what differs from run to run (port, ids, secrets, the data file) replaced. */
function shape(text: string): string[] {
  return text
    .replace(/http:\/\/127\.0\.0\.1:\d+/g, 'http://127.0.0.1:PORT')
    .replace(/\b(app|cs|sk|int|it)_[A-Za-z0-9_-]+/g, '$1_…')
    .replace(/^data: .*; press/m, 'data: FILE; press')
    .split('\n')
    .map((l) => l.trimEnd())
    .filter((l) => l !== '');
}

describe('docs/sandbox.md', () => {
  it('hard-codes no port: the recipes read the address the sandbox prints', () => {
    const shell = [...blocksOf('## Starting it', 'sh'), ...blocksOf('## Trying the service with curl', 'sh')].join('\n');
    expect(shell).toMatch(/B=\$\(jq -r \.base_url sandbox\.json\)/);
    // A sample of what svc prints may show the default port (8787); a recipe never relies on it.
    for (const block of [...doc.matchAll(/```(?:sh|console)\n([\s\S]*?)```/g)].map((m) => m[1] as string)) {
      expect(block).not.toMatch(/B=http:/);
    }
    for (const block of [...doc.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1] as string)) {
      expect(block.replace(/#.*$/gm, '')).not.toMatch(/127\.0\.0\.1:8787/);
    }
  });

  it.skipIf(!built)('the sample of `svc sandbox start --seed` has the shape of a real run', async () => {
    const sample = blocksOf('## Starting it', 'console')[0] as string;
    const [command, ...expected] = sample.trimEnd().split('\n');
    expect(command).toBe('$ svc sandbox start --seed');
    const dir = mkdtempSync(join(tmpdir(), 'svc-docs-'));
    try {
      const run = await spawnSvc(
        ['sandbox', 'start', '--seed'],
        { SVC_CONFIG_DIR: dir, SVC_DATA_DIR: join(dir, 'data') },
        {
          onSpawn: (kill) => {
            // Stop it once it has printed everything (its last line is on stderr).
            const timer = setInterval(() => {
              // The profile is reserved first, then filled in: wait for its credentials.
              const file = join(dir, 'credentials.json');
              if (existsSync(file) && readFileSync(file, 'utf8').includes('client_id')) {
                clearInterval(timer);
                setTimeout(() => kill('SIGINT'), 500);
              }
            }, 50);
            return () => clearInterval(timer);
          },
        },
      );
      expect(run.code, run.stderr).toBe(0);
      // stdout first, then stderr, as a terminal shows them (the stderr lines come last).
      // On a shared machine the default port may be held by another program: the line saying so is
      // not part of a fresh machine's output.
      const stderr = run.stderr.replace(/^sandbox stopped\n?$/m, '').replace(/^warning: port \d+ is (taken|in use) .*\n/m, '');
      const real = shape(`${run.stdout}\n${stderr}`);
      expect(real).toEqual(shape(expected.join('\n')));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it.skipIf(!built || !has('curl') || !has('jq') || !has('bash'))(
    'the start and curl recipes run as written against a sandbox on a free port',
    () => {
      const dir = mkdtempSync(join(tmpdir(), 'svc-docs-'));
      try {
        // `svc` on PATH is this checkout's.
        const binDir = join(dir, 'bin');
        spawnSync('mkdir', ['-p', binDir]);
        writeFileSync(join(binDir, 'svc'), `#!/bin/sh\nexec '${process.execPath}' '${join(root, 'bin', 'svc.js')}' "$@"\n`);
        chmodSync(join(binDir, 'svc'), 0o755);
        const start = (blocksOf('## Starting it', 'sh')[0] as string).replace(/^# kill \$SANDBOX_PID$/m, '');
        const curl = blocksOf('## Trying the service with curl', 'sh')[0] as string;
        const script = `set -u\n${start}\necho "ADDRESS=$B"\n${curl}\nkill $SANDBOX_PID; wait $SANDBOX_PID; code=$?; echo; echo "SANDBOX_EXIT=$code"\n`;
        const r = spawnSync('bash', ['--norc', '--noprofile', '-c', script], {
          cwd: dir,
          env: { PATH: `${binDir}:${process.env.PATH ?? ''}`, HOME: dir, SVC_CONFIG_DIR: join(dir, 'config') },
          encoding: 'utf8',
          timeout: 60_000,
        });
        expect(r.status, r.stderr).toBe(0);
        const out = r.stdout;
        const address = /^ADDRESS=(http:\/\/127\.0\.0\.1:(\d+))$/m.exec(out);
        expect(address?.[2]).not.toBe('8787');
        expect(out).toMatch(/"email":"ada@example\.com"/); // the contact
        expect(out).toMatch(/201\n200\n/); // the order, created then updated
        expect(out).toMatch(/"status":"accepted","id":"ev_/); // the event
        expect(out).toMatch(/^SANDBOX_EXIT=0$/m);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  );
});
