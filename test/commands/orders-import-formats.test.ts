import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliSuite } from '../helpers/cli-suite.js';
import { runCli } from '../helpers/run-cli.js';

const suite = cliSuite();
const env = suite.env;

/** The report's lines as [line, order_id, outcome, message]. */
function reportRows(path: string): string[][] {
  const [, ...rows] = readFileSync(path, 'utf8').trimEnd().split('\n');
  return rows.map((r) => {
    const cells = r.match(/("([^"]|"")*"|[^,]*)(,|$)/g)?.map((c) => c.replace(/,$/, '').replace(/^"|"$/g, '').replace(/""/g, '"')) ?? [];
    return [cells[0], cells[1], cells[2], cells[5]] as string[];
  });
}

const CSV = [
  'order_id;total;currency;order_date;email;accepts_email_marketing;accepts_sms_marketing;phone',
  'F-1;$1,234.50;USD;2024-06-10 10:00:00 -0400;f1@example.com;TRUE;FALSE;',
  'F-2;1.234,50 €;EUR;2024-06-10 10:00:00.250 +0200;f2@example.com;yes;No;',
  'F-3;EUR 12.00;EUR;2024-06-10T08:00:00Z;f3@example.com;;;',
  'F-4;12,00;EUR;03/04/2024;f4@example.com;NO;;',
  'F-5;7.5;EUR;3/4/2024 14:30;f5@example.com;;;',
  'F-6;$12.00;EUR;2024-06-10;f6@example.com;;;',
  'F-7;EUR 12.00;GBP;2024-06-10;f7@example.com;;;',
  'F-8;12.00;EUR;2024-06-10;f8@example.com;maybe;;',
  'F-9;12.00;EUR;2024-06-10 10:00:00 -0400;f9@example.com;;YES;+1 415 555 0109',
  '',
].join('\r\n');

describe('orders import: the formats real files use', () => {
  it('reads them with --date-order DMY, and rejects mismatched currencies and bad values naming the field', async () => {
    const file = join(suite.tmp.dir, 'formats.csv');
    writeFileSync(file, CSV);
    const report = join(suite.tmp.dir, 'report.csv');
    const r = await runCli(['orders', 'import', '--live', file, '--date-order', 'DMY', '--report', report, '--json'], { env: env() });
    expect(r.code).toBe(4);
    expect(JSON.parse(r.stdout)).toMatchObject({ rows: 9, created: 6, rejected: 3 });
    const rows = reportRows(report);
    expect(rows.filter((x) => x[2] === 'rejected')).toEqual([
      ['7', 'F-6', 'rejected', 'total: "$12.00" is in one of USD, CAD, AUD, NZD, SGD, HKD, …, but the row\'s currency is EUR'],
      ['8', 'F-7', 'rejected', 'total: "EUR 12.00" is in EUR, but the row\'s currency is GBP'],
      ['9', 'F-8', 'rejected', 'accepts_email_marketing: must be true/false, yes/no or 1/0 (or ja/nein, oui/non, sí/no…), got "maybe"'],
    ]);
    const stored = async (id: string) => {
      const o = await suite.sb.admin.order(id);
      return [o?.total, o?.order_date, o?.accepts_email_marketing ?? null, o?.accepts_sms_marketing ?? null];
    };
    expect(await stored('F-1')).toEqual(['1234.50', '2024-06-10T14:00:00Z', true, false]);
    expect(await stored('F-2')).toEqual(['1234.50', '2024-06-10T08:00:00.250Z', true, false]);
    expect(await stored('F-3')).toEqual(['12.00', '2024-06-10T08:00:00Z', null, null]);
    expect(await stored('F-4')).toEqual(['12.00', '2024-04-03T00:00:00Z', false, null]);
    expect(await stored('F-5')).toEqual(['7.50', '2024-04-03T14:30:00Z', null, null]);
    expect((await stored('F-9'))[3]).toBe(true);
  });

  it('never guesses a day/month order: without --date-order such dates are rejected, saying what to add', async () => {
    const file = join(suite.tmp.dir, 'formats.csv');
    writeFileSync(file, CSV);
    const r = await runCli(['orders', 'import', file, '--dry-run'], { env: env() });
    expect(r.code).toBe(4);
    expect(r.stdout).toContain(
      'line 5 (F-4): order_date: "03/04/2024" is ambiguous (day/month or month/day): give --date-order MDY or DMY, or write the date as YYYY-MM-DD',
    );
    const mdy = await runCli(['orders', 'import', file, '--dry-run', '--date-order', 'mdy', '--json'], { env: env() });
    expect(JSON.parse(mdy.stdout)).toMatchObject({ valid: 6, rejected: 3 });
  });

  it('a line item price in another currency rejects its order, naming the item line', async () => {
    const file = join(suite.tmp.dir, 'items.csv');
    writeFileSync(
      file,
      'order_id,total,currency,order_date,email,line_item_name,line_item_quantity,line_item_price\n' +
        'L-1,20.00,EUR,2024-06-10,l@example.com,Mug,1,€10.00\nL-1,,,,,Cup,1,"$10.00"\n' +
        'L-2,20.00,EUR,2024-06-10,l@example.com,Mug,2,10.00 EUR\n',
    );
    const r = await runCli(['orders', 'import', file, '--dry-run'], { env: env() });
    expect(r.code).toBe(4);
    expect(r.stdout).toContain('line 2 (L-1): line item on line 3.price: "$10.00" is in one of USD');
    expect(r.stdout).toContain('2 order(s) on 3 lines, 1 valid, 1 rejected');
  });
});
