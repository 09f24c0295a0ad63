import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain ES module (no types)
import { CANNOT_EXPORTS } from '../../fixtures/cannot-exports.mjs';
import { cliSuite } from '../helpers/cli-suite.js';
import { runCli } from '../helpers/run-cli.js';

const suite = cliSuite();
const env = suite.env;

type Cannot = { name: string; file: string; preset: string; variant: string; remedy?: string; ids: string[]; text: string };
const exports = CANNOT_EXPORTS as Cannot[];
const SENTENCE =
  'has no e-mail and no phone column, and the service ties each order to a contact by e-mail or phone, so none of its orders can be imported; nothing was sent';

describe('exports with no e-mail and no phone: recognised, and a plain "cannot" before anything is sent', () => {
  it('the fixtures are what fixtures/cannot-exports.mjs writes', () => {
    for (const e of exports) expect(readFileSync(e.file, 'utf8'), e.name).toBe(e.text);
  });

  it.each(exports.map((e) => [e.name, e]))('%s: exit 2, the sentence, the preset and variant it is, nothing sent', async (_name, e) => {
    const r = await runCli(['orders', 'import', '--live', e.file, '--initial-sync'], { env: env() });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(`error: ${e.file} ${SENTENCE}\n`);
    expect(r.stderr).toContain(`hint: preset ${e.preset} (recognised from the header), variant ${e.variant}: `);
    if (e.remedy) expect(r.stderr).toContain(e.remedy);
    else expect(r.stderr).toContain("this export never holds the buyer's e-mail or phone");
    expect(r.stderr).not.toContain('--map');
    for (const id of e.ids) expect(await suite.sb.admin.order(id), id).toBeUndefined();
  });

  it('--preset none reads the columns by name: the same sentence, without the preset (the dry run too)', async () => {
    const etsy = exports.find((e) => e.name === 'etsy-sold-orders-us') as Cannot;
    const r = await runCli(['orders', 'import', etsy.file, '--preset', 'none', '--dry-run'], { env: env() });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`error: ${etsy.file} ${SENTENCE}\n`);
    expect(r.stderr).not.toContain('preset etsy');
  });

  it('any file with no e-mail and no phone column gets the sentence, not a list of missing fields', async () => {
    const file = join(suite.tmp.dir, 'till.csv');
    writeFileSync(file, 'Receipt,Amount,Currency,When,Cashier\nR-1,12.00,EUR,2024-06-10,Ann\n');
    const r = await runCli(['orders', 'import', file, '--initial-sync'], { env: env() });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`error: ${file} ${SENTENCE}\n`);
    expect(r.stderr).not.toContain('lacks the column');
    expect(await suite.sb.admin.order('R-1')).toBeUndefined();
  });

  it('in a file with e-mail and phone columns, an order whose cells are both empty is rejected (exit 4) naming its id', async () => {
    const original = readFileSync(join(import.meta.dirname, '../../fixtures/woocommerce-webtoffee-orders-export.csv'), 'utf8');
    const first = original.split('\n')[1] as string;
    const cells = first.split(',');
    const email = cells.find((c) => c.includes('@')) as string;
    const phone = cells[30] as string;
    expect(phone).toMatch(/^"?0\d/);
    const file = join(suite.tmp.dir, 'webtoffee-no-contact.csv');
    writeFileSync(file, original.replace(first, first.replaceAll(email, '').replace(`,${phone},`, ',,')));
    const r = await runCli(['orders', 'import', file, '--initial-sync'], { env: env() });
    expect(r.code).toBe(4);
    expect(r.stderr).toContain(
      'line 2 (5301): rejected invalid_row: email: order 5301 has no e-mail and no phone (the service ties each order to a contact by one of them)',
    );
    expect(await suite.sb.admin.order('5301')).toBeUndefined();
    expect(await suite.sb.admin.order('5302')).toBeDefined();
  });

  it('a header fitting two presets equally stops (exit 2) naming both, and --preset picks one', async () => {
    const etsy = exports.find((e) => e.name === 'etsy-sold-orders-us') as Cannot;
    const header = `${etsy.text.split('\n')[0]},amazon-order-id,merchant-order-id,fulfillment-channel,sales-channel`;
    const file = join(suite.tmp.dir, 'both.csv');
    writeFileSync(file, `${header}\n`);
    const r = await runCli(['orders', 'import', file, '--initial-sync'], { env: env() });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      `error: ${file} has a header that fits 2 presets equally: amazon (All Orders report), etsy (EtsySoldOrders, US labels)`,
    );
    expect(r.stderr).toContain('hint: name the one it is: --preset amazon or --preset etsy; --preset none reads the columns by name');
    const named = await runCli(['orders', 'import', file, '--preset', 'etsy', '--initial-sync'], { env: env() });
    expect(named.code).toBe(2);
    expect(named.stderr).toContain('hint: preset etsy, variant sold-orders-us: ');
  });
});
