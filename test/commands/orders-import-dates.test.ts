/**
 * orders import: --date-format, --timezone, --set, Excel serial dates, E-Mail headers, yes/no in
 * shop languages and country names, against the sandbox (issue 27).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { mappingResumeArgs } from '../../src/commands/orders/import-mapping.js';
import { shellQuote } from '../../src/io/shell-quote.js';
import { cliSuite } from '../helpers/cli-suite.js';
import { runCli } from '../helpers/run-cli.js';

const suite = cliSuite();
const env = suite.env;

const csv = suite.file;

describe('orders import: dates, zones and constants', () => {
  it('--date-format and --timezone read a locale date in its zone; --set gives the missing currency; the dry run states the zone', async () => {
    const file = csv(
      'shop.csv',
      'Order No;Placed;Amount;E-Mail;Telefon;Land;Newsletter\r\nB-1;Jun 10, 2024 10:00:00 AM;59,80;kunde@example.com;030 901820;Deutschland;ja\r\nB-2;Jan 5, 2024 9:30:00 PM;12,00;zwei@example.com;0664 1234567;Österreich;nein\r\n',
    );
    const map = join(suite.tmp.dir, 'map.json');
    writeFileSync(
      map,
      JSON.stringify({
        kind: 'orders',
        columns: { order_id: 'Order No', order_date: 'Placed', total: 'Amount', phone: 'Telefon', accepts_email_marketing: 'Newsletter' },
        country_columns: ['Land'],
      }),
    );
    const args = [
      'orders',
      'import',
      file,
      '--map-file',
      map,
      '--date-format',
      'MMM D, YYYY h:mm:ss A',
      '--timezone',
      'Europe/Berlin',
      '--set',
      'currency=EUR',
    ];
    const dry = await runCli([...args, '--dry-run'], { env: env() });
    expect(dry.code).toBe(0);
    expect(dry.stderr).toContain('  currency = EUR\n');
    expect(dry.stderr).toContain('  email ← E-Mail\n');
    expect(dry.stderr).toContain('  dates read as "MMM D, YYYY h:mm:ss A"\n  times without an offset read in Europe/Berlin (--timezone)\n');
    const r = await runCli([...args, '--live', '--json'], { env: env() });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(await suite.sb.admin.order('B-1')).toMatchObject({
      order_date: '2024-06-10T08:00:00Z',
      total: '59.80',
      currency: 'EUR',
      email: 'kunde@example.com',
      phone: '+4930901820',
      accepts_email_marketing: true,
    });
    expect(await suite.sb.admin.order('B-2')).toMatchObject({
      order_date: '2024-01-05T20:30:00Z',
      phone: '+436641234567',
      accepts_email_marketing: false,
    });
    // Without --timezone the same times are UTC, and the dry run says so.
    const utc = await runCli(
      ['orders', 'import', file, '--map-file', map, '--date-format', 'MMM D, YYYY h:mm:ss A', '--set', 'currency=EUR', '--dry-run'],
      {
        env: env(),
      },
    );
    expect(utc.stderr).toContain('  times without an offset read in UTC (--timezone)\n');
    expect(utc.stdout).toContain('"order_date":"2024-06-10T10:00:00Z"');
  });

  it('Excel serial dates are refused naming --date-format excel, which reads them', async () => {
    const file = csv('excel.csv', 'order_id,total,currency,order_date,email\nX-1,10.00,EUR,45453.5,x@example.com\n');
    const r = await runCli(['orders', 'import', file, '--dry-run'], { env: env() });
    expect(r.code).toBe(4);
    expect(r.stdout).toContain(
      'order_date: "45453.5" looks like an Excel serial date (2024-06-10 12:00:00): give --date-format excel to read such numbers, or export the column as dates',
    );
    const ok = await runCli(['orders', 'import', '--live', file, '--date-format', 'excel', '--json'], { env: env() });
    expect(ok.code).toBe(0);
    expect((await suite.sb.admin.order('X-1'))?.order_date).toBe('2024-06-10T12:00:00Z');
  });

  it('refuses a bad --date-format, --timezone or --set before reading, naming the option (exit 2)', async () => {
    const file = csv('o.csv', 'order_id,total,currency,order_date,email\nA,1.00,EUR,2024-01-01,a@example.com\n');
    const cases: Array<[string[], RegExp]> = [
      [['--date-format', 'YYYY-MM'], /--date-format "YYYY-MM" needs a year .* a month .* and a day/],
      [['--timezone', 'Mars/Base'], /--timezone: unknown time zone "Mars\/Base"/],
      [['--set', 'order_id=1'], /--set cannot give order_id: every row would be the same order/],
      [['--set', 'colour=red'], /--set names an unknown field "colour"/],
      [['--set', 'currency'], /--set must look like field=value/],
    ];
    for (const [args, message] of cases) {
      const r = await runCli(['orders', 'import', file, '--dry-run', ...args], { env: env() });
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr).toMatch(message);
    }
  });

  it('--set replaces a column of its field; a fixed offset works as --timezone', async () => {
    const file = csv('o.csv', 'order_id,total,currency,order_date,email\nA-1,1.00,USD,2024-01-01 10:00,a@example.com\n');
    const r = await runCli(['orders', 'import', '--live', file, '--set', 'currency=EUR', '--timezone', '+05:30', '--json'], { env: env() });
    expect(r.code).toBe(0);
    expect(await suite.sb.admin.order('A-1')).toMatchObject({ currency: 'EUR', order_date: '2024-01-01T04:30:00Z' });
  });

  it('the resume command repeats --date-format, --timezone and --set', () => {
    expect(
      mappingResumeArgs({ dateFormat: 'MMM D, YYYY h:mm:ss A', timezone: 'Europe/Berlin', set: ['currency=EUR'] }, shellQuote).join(' '),
    ).toBe("--date-format 'MMM D, YYYY h:mm:ss A' --timezone Europe/Berlin --set currency=EUR");
  });
});
