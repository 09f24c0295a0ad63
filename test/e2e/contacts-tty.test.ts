/**
 * `svc contacts delete` as a person runs it: the built binary in a real pseudo-terminal (tmux),
 * answering the confirmation prompt with keys; and through real pipes, where --yes is required.
 * The tmux part is skipped when tmux is not installed.
 */
import { execFile, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Contact } from '../../src/contract/types.js';
import { type ContactsFixture, contactsFixture } from '../commands/contacts-fixture.js';

const bin = fileURLToPath(new URL('../../bin/svc.js', import.meta.url));
const built = existsSync(fileURLToPath(new URL('../../dist/main.js', import.meta.url)));
const hasTmux = spawnSync('tmux', ['-V']).status === 0;

let fx: ContactsFixture;
beforeAll(async () => {
  fx = await contactsFixture();
});
afterAll(async () => {
  await fx?.close();
});

function svcPiped(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = execFile(
      process.execPath,
      [bin, ...args],
      { env: { PATH: process.env.PATH, HOME: process.env.HOME, ...fx.env } },
      (err, stdout, stderr) => resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
    child.stdin?.end();
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function tmux(args: string[]): string {
  const r = spawnSync('tmux', args, { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`tmux ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}

/** Polls the pane until `pattern` shows (at most `ms`). */
async function waitFor(session: string, pattern: RegExp, ms = 20_000): Promise<string> {
  const until = Date.now() + ms;
  let screen = '';
  while (Date.now() < until) {
    screen = tmux(['capture-pane', '-p', '-t', session]);
    if (pattern.test(screen)) return screen;
    await sleep(50);
  }
  throw new Error(`timed out waiting for ${pattern} in:\n${screen}`);
}

/** Runs `svc contacts delete ID` in a tmux pane, answers `key`, returns the screen and exit code. */
async function deleteInTerminal(id: string, key: string): Promise<{ screen: string; code: number }> {
  const session = `svc-contacts-${process.pid}-${Date.now()}`;
  const envArgs = Object.entries({ ...fx.env, CI: '', NO_COLOR: '1' }).flatMap(([k, v]) => ['-e', `${k}=${v}`]);
  const cmd = `'${process.execPath}' '${bin}' contacts delete ${id}; echo "EXIT=$?"; sleep 30`;
  tmux(['new-session', '-d', '-s', session, '-x', '120', '-y', '20', ...envArgs, cmd]);
  try {
    const prompt = await waitFor(session, /Delete contact .*\? .*\(y\/N\)/);
    expect(prompt).toContain(id);
    tmux(['send-keys', '-t', session, key, 'Enter']);
    const screen = await waitFor(session, /EXIT=\d+/);
    const code = Number(/EXIT=(\d+)/.exec(screen)?.[1]);
    return { screen, code };
  } finally {
    spawnSync('tmux', ['kill-session', '-t', session]);
  }
}

describe.skipIf(!built)('delete through real pipes', () => {
  it('without --yes exits 2 and deletes nothing; with --yes deletes', async () => {
    const c = await fx.create();
    const r = await svcPiped(['contacts', 'delete', c.id]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--yes/);
    expect((await fx.svc(['contacts', 'get', c.id])).code).toBe(0);
    const ok = await svcPiped(['contacts', 'delete', c.id, '--yes', '--json']);
    expect(ok.code, ok.stderr).toBe(0);
    expect(JSON.parse(ok.stdout)).toEqual({ deleted: true, id: c.id });
  });
});

describe.skipIf(!built || !hasTmux)('delete in a real terminal (tmux)', { timeout: 60_000 }, () => {
  it('answering n keeps the contact (exit 1)', async () => {
    const c: Contact = await fx.create();
    const { screen, code } = await deleteInTerminal(c.id, 'n');
    expect(code).toBe(1);
    expect(screen).toMatch(/cancelled/);
    expect((await fx.svc(['contacts', 'get', c.id])).code).toBe(0);
  });

  it('answering y deletes it (exit 0)', async () => {
    const c: Contact = await fx.create();
    const { screen, code } = await deleteInTerminal(c.id, 'y');
    expect(code, screen).toBe(0);
    expect(screen).toContain(`Deleted contact ${c.id}`);
    expect((await fx.svc(['contacts', 'get', c.id])).code).toBe(1);
  });
});
