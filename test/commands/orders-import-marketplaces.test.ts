/**
 * eBay's orders report (US, UK and German sites) and Stripe's payments export imported as they
 * come (issue 34): recognised from the header, no flag but `--set currency=USD` where the amounts
 * say only `$`, and `--initial-sync`; every total, currency, date (as an instant), e-mail, E.164
 * phone and line item exact in the sandbox; a multi-item eBay order counted once.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain ES module shared with the bench (no types)
import { exportOf, fixturePath, MARKETPLACE_EXPORTS } from '../../fixtures/marketplace-exports.mjs';
import { cliSuite } from '../helpers/cli-suite.js';
import { runCli } from '../helpers/run-cli.js';

const suite = cliSuite();
type Order = Record<string, unknown> & { order_id: string; order_date: string; line_items?: unknown[] };
const names = MARKETPLACE_EXPORTS as string[];
const generated = (name: string) => exportOf(name, 5) as { text: string; orders: Order[]; args: string[]; preset: string };
const instant = (d: string) => new Date(d.length === 10 ? `${d}T00:00:00Z` : d).toISOString();

async function stored(id: string) {
  const s = await suite.sb.admin.order(id);
  if (!s) return undefined;
  const out: Record<string, unknown> = {
    order_id: s.order_id,
    total: s.total,
    currency: s.currency,
    order_date: s.order_date,
    email: s.email,
  };
  if (s.phone !== undefined && s.phone !== null) out.phone = s.phone;
  if (Array.isArray(s.line_items) && s.line_items.length > 0) out.line_items = s.line_items;
  return out;
}

describe('marketplace and payment exports imported as they come', () => {
  it('the fixtures are what fixtures/marketplace-exports.mjs writes', () => {
    for (const name of names) expect(readFileSync(fixturePath(name), 'utf8'), name).toBe(generated(name).text);
  });

  it.each(names)('%s: recognised without --preset; totals, currencies, instants, e-mails, phones and line items exact', async (name) => {
    const { orders, args, preset } = generated(name);
    const r = await runCli(['orders', 'import', fixturePath(name), ...args, '--initial-sync', '--json'], { env: suite.env() });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ rows: 5, created: 5, rejected: 0, failed: 0 });
    const dry = await runCli(['orders', 'import', fixturePath(name), ...args, '--dry-run', '--json'], { env: suite.env() });
    expect(JSON.parse(dry.stdout).mapping.preset).toMatchObject({ name: preset, recognised: true });
    for (const o of orders) {
      const s = await stored(o.order_id);
      expect(s, `${name} ${o.order_id}`).toEqual({ ...o, order_date: expect.any(String) });
      expect(instant(s?.order_date as string), `${name} ${o.order_id} order_date`).toBe(instant(o.order_date));
    }
  });

  it('an eBay multi-item order: the summary row gives the buyer and total, the item rows the items, one order', async () => {
    const { orders } = generated('ebay-uk');
    const multi = orders[0] as Order;
    expect(multi.line_items).toHaveLength(3);
    const r = await runCli(['orders', 'import', fixturePath('ebay-uk'), '--dry-run', '--json'], { env: suite.env() });
    expect(r.code, r.stderr).toBe(0);
    const dry = JSON.parse(r.stdout);
    // 5 orders on 10 data lines (two multi-item orders: a summary row and 2 or 3 items each); no footer line read.
    expect(dry).toMatchObject({ rows: 5, lines: 10, rejected: 0 });
    expect(dry.preview[0]).toEqual({ ...multi, initial_sync: undefined });
    expect(dry.mapping.preset).toEqual({ name: 'ebay', variant: 'uk', label: 'eBay.co.uk orders report', recognised: true });
  });

  it('a UK report with the US framing lines, re-saved with a BOM and CRLF: the same 5 orders, the framing not read', async () => {
    const { text } = generated('ebay-uk');
    const [header, ...rows] = text.trimEnd().split('\n');
    const commas = ','.repeat((header as string).split(',').length - 1); // no UK name holds a comma
    const framed = [
      '\uFEFF' + commas,
      header,
      commas,
      ...rows,
      '',
      '5,record(s) downloaded,from 01-Jan-24 to 31-Dec-25',
      'Seller ID : demo_seller_1',
    ];
    const file = join(suite.tmp.dir, 'ebay-uk-framed.csv');
    writeFileSync(file, `${framed.join('\r\n')}\r\n`);
    const r = await runCli(['orders', 'import', file, '--dry-run', '--json'], { env: suite.env() });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ rows: 5, lines: 10, rejected: 0, mapping: { preset: { name: 'ebay', variant: 'uk' } } });
  });

  it('the German report: a numeric date is day first (10.12.2025), as eBay.de writes it; the month-name form still reads', async () => {
    const { text, orders } = exportOf('ebay-de', 2, { prefix: 'DMY' }) as { text: string; orders: Order[] };
    const [y, m, d] = (orders[0] as Order).order_date.split('-');
    const lines = text.split('\r\n');
    // The first order's row: its sale date written DD.MM.YYYY instead of DD-Mon-YY.
    const at = lines.findIndex((l) => l.startsWith('DMY1001;'));
    const cells = (lines[at] as string).split(';');
    const dateAt = (lines[1] as string).split(';').indexOf('Verkauft am');
    cells[dateAt] = `${d}.${m}.${y}`;
    lines[at] = cells.join(';');
    const file = join(suite.tmp.dir, 'ebay-de-numeric-dates.csv');
    writeFileSync(file, lines.join('\r\n'));
    const r = await runCli(['orders', 'import', file, '--initial-sync', '--json'], { env: suite.env() });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ rows: 2, created: 2, rejected: 0 });
    for (const o of orders) expect(instant((await stored(o.order_id))?.order_date as string)).toBe(instant(o.order_date));
  });

  it('the US report with `$` amounts and no --set: each order names the currency to give', async () => {
    const r = await runCli(['orders', 'import', fixturePath('ebay'), '--dry-run'], { env: suite.env() });
    expect(r.code).toBe(4);
    expect(r.stdout).toContain('currency: the file has no currency column and the total "$');
    expect(r.stdout).toContain('give it with --set currency=USD');
  });

  it.each(names)('%s: --preset none gives the exit 2 of an unknown header', async (name) => {
    const r = await runCli(['orders', 'import', fixturePath(name), '--preset', 'none', '--dry-run'], { env: suite.env() });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^error: .*(lacks the column|no e-mail and no phone column)/m);
  });
});
