/**
 * Mapping on a terminal (issue 34): a file whose columns say nothing svc knows, imported in a real
 * pseudo-terminal (tmux), asks for each missing field with three sample values per column, saves
 * the answers as a mapping file and prints the command that reuses it; that command imports the
 * file through pipes. In a pipe or with CI set nothing is asked: exit 2 and the hint, as before.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliSuite } from '../helpers/cli-suite.js';
import { built, spawnSvc } from '../helpers/spawn-cli.js';
import { describeTty, exitOf, inSession, joinedLines, keys, startSvc, TTY_ENV, waitFor } from '../helpers/tmux.js';

const suite = cliSuite({ build: true });
const SHOP =
  'Ref,Amount Paid,Placed,Buyer Mail,Note\r\nA-1,12.00,2024-06-10 09:30:00,ann@example.com,gift\r\nA-2,"1,299.50",2024-06-11,bob@example.com,\r\nA-3,9.90,2024-06-12,cid@example.com,x\r\n';
const SIZE = { cols: 120, rows: 45 };

/** Waits for a question only that state shows, then answers it. */
async function answer(session: string, question: RegExp, ...typed: string[]): Promise<string> {
  const shown = await waitFor(session, question, 30_000);
  keys(session, ...typed);
  return shown;
}

describeTty('orders import asks for the columns on a terminal (tmux)', { timeout: 120_000 }, () => {
  it('answers, the saved mapping file, and the command that reuses it', async () => {
    const file = suite.file('shop.csv', SHOP);
    const mapFile = join(suite.tmp.dir, 'shop.map.json');
    const env = { ...suite.env(), ...TTY_ENV };
    const session = startSvc(['orders', 'import', file, '--initial-sync'], env, SIZE);
    const screen = await inSession(session, async (s) => {
      const first = await answer(s, /\? Which column holds order_id \(the order's number or id\)\?/, 'Enter');
      // Each column with its first values: three of them, or as many as the file has.
      expect(first).toContain('Ref  e.g. "A-1", "A-2", "A-3"');
      expect(first).toContain('Note  e.g. "gift", "x"');
      expect(first).toContain('Amount Paid  e.g. "12.00", "1,299.50", "9.90"');
      await answer(s, /\? Which column holds total /, 'Enter');
      // No column looks like a currency: the constant comes first.
      const cur = await answer(s, /\? Which column holds currency /, 'Enter');
      expect(cur).toMatch(/❯ none: every row has the same currency \(type it\)/);
      await answer(s, /\? currency of every row/, 'X', 'Y', 'Z', 'Enter');
      await waitFor(s, /"XYZ" is no ISO 4217 currency code/, 30_000);
      keys(s, 'BSpace', 'BSpace', 'BSpace', 'E', 'U', 'R', 'Enter');
      await answer(s, /\? Which column holds order_date /, 'Enter');
      await answer(s, /\? Which column holds email /, 'Enter');
      await answer(s, /\? Save these answers as a mapping file/, 'Enter');
      await answer(s, /\? Mapping file: \(.*shop\.map\.json\)/, 'Enter');
      const done = await exitOf(s, 60_000);
      expect(done.code, done.screen).toBe(0);
      return joinedLines(s, 200).join('\n');
    });
    expect(screen).toContain(`saved the mapping to ${mapFile}; import with it (this file or the next export):`);
    const reuse = `svc orders import ${file} --initial-sync --map-file ${mapFile}`;
    expect(screen).toContain(reuse);
    expect(JSON.parse(readFileSync(mapFile, 'utf8'))).toEqual({
      kind: 'orders',
      description: 'columns of shop.csv, as answered on a terminal',
      columns: { order_id: 'Ref', total: 'Amount Paid', order_date: 'Placed', email: 'Buyer Mail' },
      set: { currency: 'EUR' },
      ignore_unmapped: true,
    });
    const a1 = await suite.sb.admin.order('A-1');
    expect(a1).toMatchObject({ total: '12.00', currency: 'EUR', email: 'ann@example.com' });
    expect(new Date(a1?.order_date).toISOString()).toBe('2024-06-10T09:30:00.000Z');
    expect(await suite.sb.admin.order('A-2')).toMatchObject({ total: '1299.50', currency: 'EUR' });

    // The printed command, through pipes: no question, the same orders (now updated).
    const again = await spawnSvc([...reuse.split(' ').slice(1), '--json'], suite.env());
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ rows: 3, created: 0, updated: 3, rejected: 0 });
  });

  it('with a mapping file in use, the answers are given back as flags', async () => {
    const file = suite.file('shop.csv', SHOP);
    const partial = suite.file('partial.json', JSON.stringify({ kind: 'orders', columns: { order_id: 'Ref' }, set: { currency: 'USD' } }));
    const env = { ...suite.env(), ...TTY_ENV };
    const screen = await inSession(startSvc(['orders', 'import', file, '--map-file', partial, '--dry-run'], env, SIZE), async (s) => {
      await answer(s, /\? Which column holds total /, 'Enter');
      await answer(s, /\? Which column holds order_date /, 'Enter');
      await answer(s, /\? Which column holds email /, 'Enter');
      const done = await exitOf(s, 60_000);
      expect(done.code, done.screen).toBe(0);
      return joinedLines(s, 200).join('\n');
    });
    expect(screen).not.toContain('Save these answers');
    expect(screen).toContain(
      `svc orders import ${file} --map-file ${partial} --map 'total=Amount Paid' --map order_date=Placed --map 'email=Buyer Mail'`,
    );
    expect(screen).toContain('dry run: 3 order(s), 3 valid, 0 rejected; nothing was sent');
  });

  it('with CI set nothing is asked: exit 2 and the hint', async () => {
    const file = suite.file('shop.csv', SHOP);
    const { code, screen } = await inSession(
      startSvc(['orders', 'import', file, '--dry-run'], { ...suite.env(), ...TTY_ENV, CI: '1' }, SIZE),
      (s) => exitOf(s, 60_000),
    );
    expect(code).toBe(2);
    expect(screen).not.toContain('Which column');
    expect(screen).toContain('hint: name the columns after the fields, or map them: --map order_id=Ref');
  });

  it('contacts import asks for the e-mail or phone column the same way', async () => {
    const file = suite.file('people.csv', 'Kunde,Kontakt Mail\nAnn,ann.c@example.com\nBob,bob.c@example.com\n');
    const env = { ...suite.env(), ...TTY_ENV };
    const screen = await inSession(startSvc(['contacts', 'import', file, '--dry-run'], env, SIZE), async (s) => {
      const q = await answer(s, /\? Which column holds email \(the contact's e-mail address\)\?/, 'Enter');
      expect(q).toMatch(/❯ Kontakt Mail {2}e\.g\. "ann\.c@example\.com", "bob\.c@example\.com"/);
      await answer(s, /\? Save these answers as a mapping file/, 'n', 'Enter');
      const done = await exitOf(s, 60_000);
      expect(done.code, done.screen).toBe(0);
      return joinedLines(s, 200).join('\n');
    });
    expect(screen).toContain(`to import it the same way without questions:\n  svc contacts import ${file} --map 'email=Kontakt Mail'`);
  });
});

describe.skipIf(!built)('orders import through pipes never asks', () => {
  it('exit 2 with the hint, as before', async () => {
    const file = suite.file('shop.csv', SHOP);
    const r = await spawnSvc(['orders', 'import', file, '--dry-run'], suite.env());
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('the CSV header lacks the columns order_id, total, currency, order_date, email or phone');
    expect(r.stderr).not.toContain('Which column');
  });
});
