import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain ES module shared with the bench (no types)
import { exportOf, fixturePath, presetOf, SHOP_PRESETS } from '../../fixtures/shop-exports.mjs';
import { cliSuite } from '../helpers/cli-suite.js';
import { runCli } from '../helpers/run-cli.js';

const suite = cliSuite();
const env = suite.env;

type Order = Record<string, unknown> & { order_id: string; order_date: string; line_items?: unknown[] };
const presets = SHOP_PRESETS as string[];
const generated = (preset: string) => exportOf(preset, 6) as { text: string; orders: Order[]; args: string[] };

/** The stored order in the shape the generator gives (order_date compared as an instant). */
async function stored(o: Order) {
  const s = await suite.sb.admin.order(o.order_id);
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
const instant = (d: string) => new Date(d.length === 10 ? `${d}T00:00:00Z` : d).toISOString();

describe('shop exports imported as they come, recognised from the header', () => {
  it('the fixtures are what fixtures/shop-exports.mjs writes', () => {
    for (const preset of presets) expect(readFileSync(fixturePath(preset), 'utf8'), preset).toBe(generated(preset).text);
  });

  it.each(presets)(
    '%s: the fixture imports with no --preset (recognised), --initial-sync; totals, currencies, dates with zones, E.164 phones, line items exact',
    async (preset) => {
      const { orders, args } = generated(preset);
      const r = await runCli(['orders', 'import', fixturePath(preset), ...args, '--initial-sync', '--json'], { env: env() });
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      expect(JSON.parse(r.stdout)).toMatchObject({
        rows: 6,
        created: 6,
        rejected: 0,
        failed: 0,
        preset: { name: presetOf(preset), recognised: true },
      });
      for (const o of orders) {
        const s = await stored(o);
        expect(s, `${preset} ${o.order_id}`).toEqual({ ...o, order_date: expect.any(String) });
        expect(instant(s?.order_date as string), `${preset} ${o.order_id} order_date`).toBe(instant(o.order_date));
      }
      // Zones are kept as the file or --timezone says: at least one order of each export has a phone
      // read from a local number with the row's country, and the line items of multi-item orders are exact.
      expect(orders.some((o) => (o.line_items?.length ?? 0) > 1) || preset === 'magento').toBe(true);
    },
  );

  it.each(presets)('%s: recognised without --preset (dry run names it); --preset none: exit 2, nothing sent', async (preset) => {
    const { args } = generated(preset);
    const r = await runCli(['orders', 'import', fixturePath(preset), ...args, '--dry-run', '--json'], { env: env() });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.stdout);
    expect(doc).toMatchObject({ rows: 6, valid: 6, mapping: { from: `preset ${presetOf(preset)} (recognised from the header)` } });
    expect(doc.mapping.preset).toMatchObject({ name: presetOf(preset), variant: expect.any(String), recognised: true });
    const none = await runCli(['orders', 'import', fixturePath(preset), ...args, '--preset', 'none', '--initial-sync'], { env: env() });
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/lacks the column|no e-mail and no phone column|could be/);
  });

  it.each([
    ['woocommerce-customer-order', 'default', { line_items: { columns: ['line_items'] } }],
    ['woocommerce-customer-order-date', 'default', { order_date: { columns: ['date'] } }],
    [
      'woocommerce-customer-order-item',
      'per-item',
      {
        order_id: { columns: ['order_number', 'order_id'] },
        line_item_quantity: { columns: ['item_quantity'] },
        line_item_total: { columns: ['item_total'] },
      },
    ],
    [
      'woocommerce-customer-order-legacy-item',
      'legacy-per-item',
      {
        order_id: { columns: ['Order ID'] },
        line_item_quantity: { columns: ['Item Amount'] },
        line_item_total: { columns: ['Row Price'] },
      },
    ],
  ])('SkyVerge %s: recognised as its variant %s, the columns read', async (fixture, variant, fields) => {
    const { args } = generated(fixture);
    const r = await runCli(['orders', 'import', fixturePath(fixture), ...args, '--dry-run', '--json'], { env: env() });
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.stdout);
    expect(doc.mapping.preset).toMatchObject({ name: 'woocommerce-customer-order', variant, recognised: true });
    expect(doc.mapping.fields).toMatchObject(fields);
  });

  it('SkyVerge one row per item: the item price column is the line total; one that is not the quantity times a price rejects its order, naming the line (exit 4)', async () => {
    const { text, orders } = exportOf('woocommerce-customer-order-item', 2, { prefix: 'LT' }) as { text: string; orders: Order[] };
    const [head, first, second] = text.split('\n');
    const header = (head as string).split(',');
    // The second order (two items): its second item 3 × for 10.00 in all.
    const cells = (second as string).match(/("([^"]|"")*"|[^,]*)(,|$)/g)?.map((c) => c.replace(/,$/, '')) ?? [];
    cells[header.indexOf('item_quantity')] = '3';
    cells[header.indexOf('item_total')] = '10.00';
    const file = join(suite.tmp.dir, 'skyverge-per-item.csv');
    writeFileSync(file, `${head}\n${first}\n${second}\n${cells.slice(0, header.length).join(',')}\n`);
    const r = await runCli(['orders', 'import', '--live', file], { env: env() });
    expect(r.code).toBe(4);
    expect(r.stdout).toMatch(/^rows\t2\ncreated\t1\n.*rejected\t1\n/s);
    expect(r.stderr).toContain(
      '  line 3 (LT5602): rejected invalid_row: line item on line 4.price: the line total 10.00 is not 3 times a price in whole minor units\n',
    );
    expect(await stored(orders[0] as Order)).toEqual({ ...orders[0], order_date: expect.any(String) });
    expect(await suite.sb.admin.order('LT5602')).toBeUndefined();
  });

  it('SkyVerge one row per item with a numbering plugin: order_number keys the order, its rows grouped by it (order_id where it is empty)', async () => {
    const { text, orders } = exportOf('woocommerce-customer-order-item', 2, { prefix: 'NB' }) as { text: string; orders: Order[] };
    const [head, ...rows] = text.trimEnd().split('\n');
    const header = (head as string).split(',');
    const at = header.indexOf('order_number');
    const split = (row: string) => row.match(/("([^"]|"")*"|[^,]*)(,|$)/g)?.map((c) => c.replace(/,$/, '')) ?? [];
    const numbered = rows.map((row) => {
      const cells = split(row).slice(0, header.length);
      cells[at] = `WC-${cells[header.indexOf('order_id')]}`;
      return cells.join(',');
    });
    const file = join(suite.tmp.dir, 'skyverge-per-item-numbered.csv');
    writeFileSync(file, `${head}\n${numbered.join('\n')}\n`);
    const r = await runCli(['orders', 'import', '--live', file], { env: env() });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^rows\t2\ncreated\t2\n/);
    for (const order of orders) {
      const kept = await suite.sb.admin.order(`WC-${order.order_id}`);
      expect(kept?.line_items).toEqual(order.line_items);
      expect(await suite.sb.admin.order(order.order_id)).toBeUndefined();
    }
  });

  it('the dry run shows the mapping, the first 3 requests as JSON and a summary of the values; --json gives the same', async () => {
    const { orders, args } = generated('woocommerce');
    const file = fixturePath('woocommerce');
    const r = await runCli(['orders', 'import', file, '--preset', 'woocommerce', ...args, '--dry-run'], { env: env() });
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(
      'mapping (preset woocommerce):\n  variant aoe-3: Advanced Order Export 3.x-4.x (Item Name, Quantity (- Refund))\n  order_id ← Order Number\n  total ← Order Total Amount\n  currency = EUR\n  order_date ← Order Date\n  email ← Email (Billing)\n  phone ← Phone (Billing)\n',
    );
    expect(r.stderr).toContain('  times without an offset read in Europe/Berlin (--timezone)\n');
    const lines = r.stdout.split('\n');
    expect(lines[0]).toBe('dry run: 6 order(s) on 12 lines, 6 valid, 0 rejected; nothing was sent');
    expect(lines[1]).toBe('the first 3 request(s) as they would be sent:');
    expect(lines.slice(2, 5).map((l) => JSON.parse(l))).toEqual(orders.slice(0, 3));
    const eur = orders.map((o) => Number(o.total));
    const sum = eur.reduce((a, b) => a + b, 0).toFixed(2);
    const sorted = [...orders].sort((a, b) => Date.parse(a.order_date) - Date.parse(b.order_date));
    expect(lines.slice(5)).toEqual([
      'totals:',
      `  EUR: 6 order(s), sum ${sum}, from ${Math.min(...eur).toFixed(2)} to ${Math.max(...eur).toFixed(2)}`,
      `order dates: ${sorted[0]?.order_date} to ${sorted[5]?.order_date}`,
      'with a phone: 5 of 6 (83.3%)',
      '',
    ]);
    const json = await runCli(['orders', 'import', file, '--preset', 'woocommerce', ...args, '--dry-run', '--json'], { env: env() });
    expect(json.code).toBe(0);
    const doc = JSON.parse(json.stdout);
    expect(doc).toMatchObject({
      dry_run: true,
      rows: 6,
      valid: 6,
      mapping: {
        from: 'preset woocommerce',
        fields: { order_id: { columns: ['Order Number'] }, currency: { value: 'EUR' } },
        timezone: 'Europe/Berlin',
      },
      preview: orders.slice(0, 3),
      totals: { EUR: { orders: 6, sum } },
      dates: { first: sorted[0]?.order_date, last: sorted[5]?.order_date },
      with_phone: { orders: 5, of: 6, percent: 83.3 },
    });
    expect(await suite.sb.admin.order(orders[0]?.order_id as string)).toBeUndefined();
  });

  it('WooCommerce without a currency: the hint gives --set; Magento with a $ total asks for the currency', async () => {
    const woo = await runCli(['orders', 'import', fixturePath('woocommerce'), '--preset', 'woocommerce', '--dry-run'], { env: env() });
    expect(woo.code).toBe(2);
    expect(woo.stderr).toContain('lacks the column currency');
    expect(woo.stderr).toContain('--set currency=<ISO code, e.g. EUR>');
    const file = join(suite.tmp.dir, 'magento.csv');
    writeFileSync(
      file,
      '"ID","Purchase Point","Purchase Date","Grand Total (Base)","Grand Total (Purchased)","Customer Email"\n"000000007","Main","Jun 10, 2024 10:00:00 AM","$219.40","$219.40","a@example.com"\n',
    );
    const dollar = await runCli(['orders', 'import', file, '--preset', 'magento', '--dry-run'], { env: env() });
    expect(dollar.code).toBe(4);
    expect(dollar.stdout).toContain(
      'currency: the file has no currency column and the total "$219.40" could be USD, CAD, AUD, NZD, SGD, …: give it with --set currency=USD',
    );
    const set = await runCli(['orders', 'import', '--live', file, '--preset', 'magento', '--set', 'currency=USD', '--json'], {
      env: env(),
    });
    expect(set.code).toBe(0);
    expect(await suite.sb.admin.order('000000007')).toMatchObject({ total: '219.40', currency: 'USD', order_date: '2024-06-10T10:00:00Z' });
  });

  it('a shop export mapped by hand (--preset none) gets no confident wrong guess: the missing total is never a shipping or tax column (exit 2, nothing sent)', async () => {
    const woo = fixturePath('woocommerce-customer-order');
    const r = await runCli(['orders', 'import', woo, '--preset', 'none', '--map', 'email=billing_email', '--dry-run'], { env: env() });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      'hint: name the columns after the fields, or map them: --map total=order_total --map currency=order_currency\n',
    );
    expect(r.stderr).not.toMatch(/total=(shipping|tax)_total/);
    const big = await runCli(
      ['orders', 'import', '--live', fixturePath('bigcommerce'), '--preset', 'none', '--map', 'email=Customer Email'],
      {
        env: env(),
      },
    );
    expect(big.code).toBe(2);
    expect(big.stderr).toContain(
      '--map total=? (several columns could be total: "Order Total (inc tax)", "Order Total (ex tax)"; pick one)',
    );
    const hintOf = (stderr: string) => stderr.split('\n').find((l) => l.startsWith('hint:')) ?? '';
    expect(hintOf(big.stderr)).not.toContain('Tax Total');
    const magento = await runCli(
      ['orders', 'import', '--live', fixturePath('magento'), '--preset', 'none', '--map', 'email=Customer Email'],
      {
        env: env(),
      },
    );
    expect(magento.code).toBe(2);
    expect(magento.stderr).toContain('--map order_id=ID');
    expect(hintOf(magento.stderr)).not.toContain('Bill-to Name');
  });
});
