/**
 * `svc contacts delete` as a person runs it: the built binary in a real pseudo-terminal (tmux),
 * answering the confirmation prompt with keys; and through real pipes, where --yes is required.
 * The tmux part is skipped when tmux is not installed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Contact } from '../../src/contract/types.js';
import { type ContactsFixture, contactsFixture } from '../commands/contacts-fixture.js';
import { spawnSvc } from '../helpers/spawn-cli.js';
import { built, describeTty, exitOf, inSession, keys, startSvc, TTY_ENV, waitFor } from '../helpers/tmux.js';

let fx: ContactsFixture;
beforeAll(async () => {
  fx = await contactsFixture();
});
afterAll(async () => {
  await fx?.close();
});

const svcPiped = (args: string[]) => spawnSvc(args, { HOME: process.env.HOME ?? '', ...fx.env });

/** Runs `svc contacts delete ID` in a tmux pane, answers `key`, returns the screen and exit code. */
async function deleteInTerminal(id: string, key: string): Promise<{ screen: string; code: number }> {
  return inSession(startSvc(['contacts', 'delete', id], { ...fx.env, ...TTY_ENV }, { cols: 120, rows: 20 }), async (session) => {
    const prompt = await waitFor(session, /Delete contact .*\? .*\(y\/N\)/);
    expect(prompt).toContain(id);
    keys(session, key, 'Enter');
    return exitOf(session);
  });
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

describeTty('delete in a real terminal (tmux)', { timeout: 60_000 }, () => {
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
