import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliSuite } from '../helpers/cli-suite.js';
import { SHIPPED_PRESETS } from '../helpers/contract-commands.js';
import { ctrlCWhen, runCli } from '../helpers/run-cli.js';
import { importSummary } from '../helpers/summary.js';

const fixture = join(import.meta.dirname, '../../fixtures/shopify-orders-export.csv');
const presetFile = join(import.meta.dirname, '../../presets/orders/shopify.json');

const suite = cliSuite();
const env = suite.env;

const ORDERS = ['#1001', '#1002', '#1003', '#1004', '#1005', '#1006'];

async function storedOrders() {
  const out: Record<string, unknown> = {};
  for (const id of ORDERS) {
    const o = await suite.sb.admin.order(id);
    out[id] = o && {
      total: o.total,
      currency: o.currency,
      order_date: o.order_date,
      email: o.email ?? null,
      phone: o.phone ?? null,
      accepts_email_marketing: o.accepts_email_marketing,
      line_items: o.line_items,
    };
  }
  return out;
}

describe('svc orders import --preset shopify', () => {
  it('imports the Shopify export as exported: one order per Name, exact totals, line items and E.164 phones', async () => {
    const r = await runCli(['orders', 'import', fixture, '--preset', 'shopify', '--initial-sync', '--json'], { env: env() });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual(
      importSummary({
        rows: 6,
        lines: 9,
        created: 6,
        preset: {
          name: 'shopify',
          variant: 'default',
          label: 'Shopify orders export (Admin → Orders → Export), one row per line item',
          recognised: false,
        },
      }),
    );
    expect(await storedOrders()).toMatchInlineSnapshot(`
      {
        "#1001": {
          "accepts_email_marketing": true,
          "currency": "USD",
          "email": "one@example.com",
          "line_items": [
            {
              "name": "Ceramic Mug - Blue",
              "price": "12.00",
              "quantity": 2,
              "sku": "MUG-BLUE",
            },
            {
              "name": "Tea Sampler",
              "price": "30.00",
              "quantity": 1,
              "sku": "TEA-SAMPLER",
            },
          ],
          "order_date": "2024-06-10T14:00:00Z",
          "phone": "+14155550101",
          "total": "63.32",
        },
        "#1002": {
          "accepts_email_marketing": false,
          "currency": "USD",
          "email": "two@example.com",
          "line_items": [
            {
              "name": "Notebook A5",
              "price": "19.90",
              "quantity": 1,
              "sku": "NB-A5",
            },
          ],
          "order_date": "2024-06-10T15:29:58Z",
          "phone": "+15035550102",
          "total": "19.90",
        },
        "#1003": {
          "accepts_email_marketing": true,
          "currency": "GBP",
          "email": "three@example.com",
          "line_items": [
            {
              "name": "Tea Sampler",
              "price": "25.00",
              "quantity": 1,
              "sku": "TEA-SAMPLER",
            },
            {
              "name": "Coaster Set",
              "price": "5.00",
              "quantity": 2,
              "sku": "COASTER",
            },
            {
              "name": "Gift Wrap",
              "price": "10.00",
              "quantity": 1,
            },
          ],
          "order_date": "2024-06-11T07:59:30Z",
          "phone": "+442079460958",
          "total": "49.95",
        },
        "#1004": {
          "accepts_email_marketing": false,
          "currency": "USD",
          "email": "four@example.com",
          "line_items": [
            {
              "name": "Ceramic Mug - Blue",
              "price": "12.00",
              "quantity": 1,
              "sku": "MUG-BLUE",
            },
          ],
          "order_date": "2024-06-12T14:00:00Z",
          "phone": null,
          "total": "17.99",
        },
        "#1005": {
          "accepts_email_marketing": true,
          "currency": "EUR",
          "email": "five@example.com",
          "line_items": [
            {
              "name": "Tea Sampler",
              "price": "25.00",
              "quantity": 1,
              "sku": "TEA-SAMPLER",
            },
          ],
          "order_date": "2024-06-13T11:59:59Z",
          "phone": "+4930901820",
          "total": "25.00",
        },
        "#1006": {
          "accepts_email_marketing": false,
          "currency": "USD",
          "email": null,
          "line_items": [
            {
              "name": "Ceramic Mug - Blue",
              "price": "12.00",
              "quantity": 4,
              "sku": "MUG-BLUE",
            },
          ],
          "order_date": "2024-06-15T00:45:00Z",
          "phone": "+17205550106",
          "total": "48.00",
        },
      }
    `);
  });
});

describe('known exports, mapping files and presets', () => {
  it('a Shopify export imported without flags is recognised from its header and imported; --preset none reads columns by name (exit 2)', async () => {
    // Issue 34 replaces issue 27's stop (exit 2 "add --preset shopify"): a recognised export imports as it comes.
    const r = await runCli(['orders', 'import', '--live', fixture, '--json'], { env: env() });
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout)).toMatchObject({ rows: 6, created: 6, rejected: 0, preset: { name: 'shopify', recognised: true } });
    expect(await suite.sb.admin.order('#1001')).toMatchObject({ phone: '+14155550101', total: '63.32' });
    await suite.reset();
    const human = await runCli(['orders', 'import', '--live', fixture], { env: env() });
    expect(human.code).toBe(0);
    expect(human.stderr).toContain('preset shopify (recognised from the header)\n');
    const plan = await runCli(['orders', 'import', fixture, '--plan'], { env: env() });
    expect(plan.code).toBe(0);
    expect(plan.stderr).toContain('preset shopify (recognised from the header)\n');
    await suite.reset();
    // --map goes over the recognised preset's columns.
    const mapped = await runCli(['orders', 'import', fixture, '--map', 'phone=Shipping Phone', '--dry-run', '--json'], { env: env() });
    expect(JSON.parse(mapped.stdout).mapping).toMatchObject({
      from: 'preset shopify (recognised from the header)',
      fields: { order_id: { columns: ['Name'] }, phone: { columns: ['Shipping Phone'] } },
    });
    const none = await runCli(['orders', 'import', fixture, '--preset', 'none', '--initial-sync'], { env: env() });
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('the CSV header lacks the column');
    expect(await suite.sb.admin.order('#1001')).toBeUndefined();
  });

  it("a mapping file with the preset's content imports the same orders; --dry-run prints the mapping on stderr", async () => {
    const doc = JSON.parse(readFileSync(presetFile, 'utf8'));
    delete doc.detect;
    doc.name = 'my-shop';
    const mapFile = join(suite.tmp.dir, 'my-shop.json');
    writeFileSync(mapFile, JSON.stringify(doc, null, 2));
    const dry = await runCli(['orders', 'import', fixture, '--map-file', mapFile, '--dry-run'], { env: env() });
    expect(dry.code).toBe(0);
    expect(dry.stderr).toContain(`mapping (${mapFile}):\n  order_id ← Name\n  total ← Total\n`);
    expect(dry.stderr).toContain('  phone ← Phone, else Billing Phone, else Shipping Phone\n');
    expect(dry.stderr).toContain('  (phone country) ← Billing Country, else Shipping Country\n');
    expect(dry.stdout).toContain('dry run: 6 order(s) on 9 lines, 6 valid, 0 rejected');
    const viaFile = await runCli(['orders', 'import', '--live', fixture, '--map-file', mapFile, '--json'], { env: env() });
    expect(viaFile.code).toBe(0);
    const fromFile = await storedOrders();
    await suite.reset();
    const viaPreset = await runCli(['orders', 'import', '--live', fixture, '--preset', 'shopify', '--json'], { env: env() });
    expect(viaPreset.code).toBe(0);
    expect(await storedOrders()).toEqual(fromFile);
    expect(fromFile['#1001']).toMatchObject({ phone: '+14155550101', total: '63.32' });
  });

  it('without ignore_unmapped the other columns are named once; --map overrides a mapping file column', async () => {
    const csv = 'Order No,Amount,Curr,Placed,Mail,Note\r\nA-1,10.00,EUR,2024-06-10,a@example.com,hi\r\n';
    const file = join(suite.tmp.dir, 'shop.csv');
    writeFileSync(file, csv);
    const mapFile = join(suite.tmp.dir, 'map.json');
    writeFileSync(
      mapFile,
      JSON.stringify({
        kind: 'orders',
        columns: { order_id: 'Order No', total: 'Amount', currency: 'Curr', order_date: 'Created', email: 'Mail' },
      }),
    );
    const bad = await runCli(['orders', 'import', file, '--map-file', mapFile, '--dry-run'], { env: env() });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain(`${mapFile}: order_date: the file has no column "Created"`);
    const r = await runCli(['orders', 'import', '--live', file, '--map-file', mapFile, '--map', 'order_date=Placed', '--json'], {
      env: env(),
    });
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('warning: ignoring column "Note" (not order fields)');
    expect((await suite.sb.admin.order('A-1'))?.total).toBe('10.00');
  });

  it('refuses a bad mapping file naming the key, --preset with --map-file, an unknown preset and a bad --date-order (exit 2)', async () => {
    const mapFile = join(suite.tmp.dir, 'map.json');
    writeFileSync(mapFile, JSON.stringify({ kind: 'orders', columns: { order_number: 'Name' } }));
    const cases: Array<[string[], RegExp]> = [
      [['--map-file', mapFile], /"columns" names an unknown orders field "order_number"/],
      [['--map-file', join(suite.tmp.dir, 'none.json')], /--map-file .*none.json: no such file/],
      [['--preset', 'shopify', '--map-file', mapFile], /--preset and --map-file do not go together/],
      [
        ['--preset', 'oscommerce'],
        /no orders preset named "oscommerce"[\s\S]*known presets: amazon, bigcommerce, ebay, etsy, magento, prestashop, shopify, square, squarespace, stripe, woocommerce, woocommerce-analytics, woocommerce-customer-order, woocommerce-webtoffee \(or none: columns by name\)/,
      ],
      [['--preset', 'shopify', '--date-order', 'YMD'], /--date-order must be MDY .* or DMY/],
    ];
    for (const [args, message] of cases) {
      const r = await runCli(['orders', 'import', '--live', fixture, ...args], { env: env() });
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr).toMatch(message);
    }
  });

  it('svc orders presets lists the shipped presets; presets show prints one as a mapping file', async () => {
    const list = await runCli(['orders', 'presets'], { env: env() });
    expect(list.code).toBe(0);
    expect(list.stdout.split('\n').map((l) => l.split('\t')[0])).toEqual([...SHIPPED_PRESETS, '']);
    expect(list.stdout).toContain('shopify\tShopify orders export (Admin → Orders → Export), one row per line item\n');
    const json = await runCli(['orders', 'presets', '--json'], { env: env() });
    expect(JSON.parse(json.stdout)).toContainEqual({ name: 'shopify', description: expect.stringContaining('Shopify') });
    expect(JSON.parse(json.stdout)).toHaveLength(SHIPPED_PRESETS.length);
    const show = await runCli(['orders', 'presets', 'show', 'shopify'], { env: env() });
    expect(show.code).toBe(0);
    expect(show.stdout).toBe(readFileSync(presetFile, 'utf8'));
    const unknown = await runCli(['orders', 'presets', 'show', 'nope'], { env: env() });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/no orders preset named "nope"/);
  });

  it("docs/presets.md's worked mapping file for a second system imports its example file as the docs say", async () => {
    const docs = readFileSync(join(import.meta.dirname, '../../docs/presets.md'), 'utf8');
    const example = docs.slice(docs.indexOf('**A worked example for a second system.**'));
    const [csv, json] = [...example.matchAll(/```\w*\n([\s\S]*?)```/g)].map((m) => m[1] as string);
    const file = join(suite.tmp.dir, 'woo-orders.csv');
    const mapFile = join(suite.tmp.dir, 'woo-orders.json');
    writeFileSync(file, csv as string);
    writeFileSync(mapFile, json as string);
    const r = await runCli(['orders', 'import', '--live', file, '--map-file', mapFile, '--json'], { env: env() });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const o = await suite.sb.admin.order('4711');
    expect([o?.order_date, o?.total, o?.currency, o?.phone, o?.line_items?.length]).toEqual([
      '2024-06-10T10:00:00Z',
      '59.80',
      'EUR',
      '+4930901820',
      2,
    ]);
  });

  it('an interrupted preset import resumes with the same mapping only; the resume command repeats it', async () => {
    const lines = [
      'Name,Email,Financial Status,Accepts Marketing,Currency,Total,Created at,Lineitem quantity,Lineitem name,Lineitem price,Lineitem sku,Billing Phone,Billing Country',
    ];
    for (let i = 1; i <= 300; i++)
      lines.push(`#${i},c${i}@example.com,paid,yes,USD,10.00,10/06/2024 10:00,1,Mug,10.00,MUG,(415) 555-0100,US`);
    const file = join(suite.tmp.dir, 'shop.csv');
    writeFileSync(file, `${lines.join('\r\n')}\r\n`);
    const journal = join(suite.tmp.dir, 'shop.journal');
    const args = ['orders', 'import', '--live', file, '--preset', 'shopify', '--date-order', 'dmy', '--journal', journal];
    await suite.sb.admin.setFaults({ latency_ms: 20 });
    const ctrlC = ctrlCWhen(() => suite.sb.admin.order('#20'), 20);
    const first = await runCli([...args, '--concurrency', '2'], { env: env(), signal: ctrlC.signal });
    ctrlC.stop();
    await suite.sb.admin.setFaults({});
    expect(first.code).toBe(130);
    expect(first.stderr).toContain(
      `continue with: svc orders import ${file} --resume --live --preset shopify --date-order DMY --concurrency 2 --journal ${journal}`,
    );
    const doc = JSON.parse(readFileSync(presetFile, 'utf8'));
    doc.columns.phone = 'Billing Phone';
    const mapFile = join(suite.tmp.dir, 'other.json');
    writeFileSync(mapFile, JSON.stringify(doc));
    const other = await runCli(
      ['orders', 'import', '--live', file, '--map-file', mapFile, '--date-order', 'DMY', '--journal', journal, '--resume'],
      {
        env: env(),
      },
    );
    expect(other.code).toBe(2);
    expect(other.stderr).toMatch(/different options: mapping/);
    const resumed = await runCli([...args, '--resume', '--json'], { env: env() });
    expect(resumed.code).toBe(0);
    expect(JSON.parse(resumed.stdout)).toMatchObject({ rows: 300, rejected: 0, failed: 0 });
    expect((await suite.sb.admin.order('#300'))?.order_date).toBe('2024-06-10T10:00:00Z');
  });
});
