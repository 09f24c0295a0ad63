/**
 * `svc contacts list --all | head -1`: the built binary through a real pipe whose reader goes
 * away after the first line. The list stops quietly (exit 0), without a stack trace.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ContactsFixture, contactsFixture } from '../commands/contacts-fixture.js';

const bin = fileURLToPath(new URL('../../bin/svc.js', import.meta.url));
const built = existsSync(fileURLToPath(new URL('../../dist/main.js', import.meta.url)));

let fx: ContactsFixture;
beforeAll(async () => {
  fx = await contactsFixture();
  const ids = await fx.json<Array<{ id: string }>>(['contacts', 'list', '--all']);
  for (let i = ids.length; i < 60; i++) await fx.create();
});
afterAll(async () => {
  await fx?.close();
});

describe.skipIf(!built)('a reader that closes the pipe early', () => {
  it('stops quietly with exit 0, printing no stack trace', async () => {
    const child = spawn(process.execPath, [bin, 'contacts', 'list', '--all', '--format', 'ndjson', '--page-size', '1'], {
      env: { PATH: process.env.PATH, HOME: process.env.HOME, ...fx.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
    });
    let first = '';
    child.stdout.on('data', (d: Buffer) => {
      first += d.toString();
      if (first.includes('\n')) child.stdout.destroy();
    });
    const code = await new Promise<number | null>((r) => child.on('exit', (c) => r(c)));
    expect(JSON.parse(first.split('\n')[0] as string).id).toMatch(/^ct_/);
    expect(stderr).not.toMatch(/EPIPE|Error|at /);
    expect(code).toBe(0);
  });
});
