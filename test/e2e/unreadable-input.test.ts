/**
 * An input file svc may not read (issue 36): `orders import`, `contacts import` and `events send
 * --file` say so, naming the file, with exit 2 — not "unexpected error: EACCES", exit 1. Run as a
 * user who cannot read it: the test's own user, or, when the tests run as root (whom permissions
 * do not stop), `nobody`.
 */
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, root } from '../helpers/spawn-cli.js';

const NOBODY = 65534;
const asRoot = process.getuid?.() === 0;
/**
 * As root the test runs svc as `nobody`, who must be able to run this node: CI's Node 22 and 24
 * live in a mode-700 work folder, where nobody cannot (there the test runs on the main Node only).
 */
const canRunAsNobody = !asRoot || spawnSync(process.execPath, ['--version'], { uid: NOBODY, gid: NOBODY }).status === 0;
let dir = '';

beforeAll(async () => {
  await ensureBuilt();
  dir = mkdtempSync(join(tmpdir(), 'svc-unreadable-'));
  chmodSync(dir, 0o777);
}, 60_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** `svc ARGS` as a user who cannot read the mode-000 files. */
function svc(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(root, 'bin', 'svc.js'), ...args], {
      cwd: dir,
      env: {
        PATH: process.env.PATH ?? '',
        SVC_CONFIG_DIR: join(dir, 'config'),
        SVC_BASE_URL: 'http://127.0.0.1:9',
        SVC_TOKEN: 'tok_unreadable',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
      ...(asRoot ? { uid: NOBODY, gid: NOBODY } : {}),
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
    });
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

function unreadable(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  chmodSync(path, 0o000);
  return path;
}

describe.skipIf(!canRunAsNobody)('an input file svc may not read', () => {
  it('orders import, contacts import, events send --file: exit 2 naming the file', async () => {
    const orders = unreadable('orders.csv', 'order_id,total,currency,order_date,email\nA,1.00,EUR,2024-01-01,a@example.com\n');
    const contacts = unreadable('contacts.csv', 'email\na@example.com\n');
    const events = unreadable('events.ndjson', '{"event_type":"e","email":"a@example.com"}\n');
    for (const [args, what] of [
      [['orders', 'import', '--live', orders], `the input ${orders}`],
      [['orders', 'import', '--dry-run', orders], `the input ${orders}`],
      [['contacts', 'import', contacts, '--if-exists', 'skip'], `the input ${contacts}`],
      [['events', 'send', '--file', events], `--file ${events}`],
    ] as const) {
      const r = await svc([...args]);
      expect(r.stderr, args.join(' ')).toContain(`error: cannot read ${what}: permission denied`);
      expect(r.stderr).not.toMatch(/unexpected error|EACCES/);
      expect(r.code, args.join(' ')).toBe(2);
    }
  }, 60_000);
});
