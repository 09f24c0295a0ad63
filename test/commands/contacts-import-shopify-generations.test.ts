/**
 * `contacts import --preset shopify` reads the three generations of Shopify's customers export:
 * the legacy one (`Accepts Marketing`, `Country Code`), the 2022 one (`Accepts Email Marketing`,
 * `Accepts SMS Marketing`) and the current one (`Customer ID`, `Default Address …`, ids and phones
 * written with a leading `'`; fixtures/shopify-customers-export.csv, contacts-import.test.ts).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliSuite } from '../helpers/cli-suite.js';
import { runCli } from '../helpers/run-cli.js';

const t = cliSuite();

async function contactBy(email: string) {
  const r = await runCli(['contacts', 'list', '--email', email, '--json'], { env: t.env() });
  return JSON.parse(r.stdout)[0];
}

const GENERATIONS: Record<string, string> = {
  legacy: [
    'First Name,Last Name,Email,Company,Address1,Address2,City,Province,Province Code,Country,Country Code,Zip,Phone,Accepts Marketing,Total Spent,Total Orders,Tags,Note,Tax Exempt',
    "Ada,Lovelace,ada@example.com,,1 Main St,,London,,,United Kingdom,GB,'SW1A 1AA,020 7946 0958,yes,10.00,1,,,no",
    'Bruno,Müller,bruno@example.com,,2 Hauptstr.,,Berlin,,,Germany,DE,10115,,no,0.00,0,,,no',
  ].join('\r\n'),
  '2022': [
    'First Name,Last Name,Email,Accepts Email Marketing,Company,Address1,Address2,City,Province,Province Code,Country,Country Code,Zip,Phone,Accepts SMS Marketing,Total Spent,Total Orders,Tags,Note,Tax Exempt',
    "Ada,Lovelace,ada@example.com,yes,,1 Main St,,London,,,United Kingdom,GB,'SW1A 1AA,'020 7946 0958,yes,10.00,1,,,no",
    'Bruno,Müller,bruno@example.com,no,,2 Hauptstr.,,Berlin,,,Germany,DE,10115,,no,0.00,0,,,no',
  ].join('\r\n'),
  current: [
    'Customer ID,First Name,Last Name,Email,Accepts Email Marketing,Default Address Company,Default Address Address1,Default Address Address2,Default Address City,Default Address Province Code,Default Address Country Code,Default Address Zip,Default Address Phone,Phone,Accepts SMS Marketing,Total Spent,Total Orders,Note,Tax Exempt,Tags',
    "'7000000001,Ada,Lovelace,ada@example.com,yes,,1 Main St,,London,,GB,'SW1A 1AA,020 7946 0958,,yes,10.00,1,,no,",
    "'7000000002,Bruno,Müller,bruno@example.com,no,,2 Hauptstr.,,Berlin,,DE,10115,,,no,0.00,0,,no,",
  ].join('\r\n'),
};

describe('contacts import --preset shopify: every generation of the customers export', () => {
  it.each(Object.keys(GENERATIONS))('%s header: names, email consent, local phones with the row country', async (generation) => {
    const file = join(t.tmp.dir, `${generation}.csv`);
    writeFileSync(file, `\uFEFF${GENERATIONS[generation]}\r\n`);
    const r = await runCli(['contacts', 'import', file, '--preset', 'shopify', '--json'], { env: t.env() });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ rows: 2, created: 2, rejected: 0 });
    expect(await contactBy('ada@example.com')).toMatchObject({
      first_name: 'Ada',
      last_name: 'Lovelace',
      phone: '+442079460958',
      email_consent: 'subscribed',
      // The legacy export has no SMS opt-in column: nothing is written for it.
      ...(generation === 'legacy' ? {} : { sms_consent: 'subscribed' }),
    });
    const bruno = await contactBy('bruno@example.com');
    expect(bruno).toMatchObject({ first_name: 'Bruno', last_name: 'Müller' });
    expect(bruno.email_consent).not.toBe('subscribed');
  });

  it.each([
    ['legacy', 'legacy'],
    ['2022', '2022'],
    ['current', 'current'],
  ])('%s header is recognised without --preset (variant %s)', async (generation, variant) => {
    const file = join(t.tmp.dir, `${generation}-recognised.csv`);
    writeFileSync(file, `\uFEFF${GENERATIONS[generation]}\r\n`);
    const r = await runCli(['contacts', 'import', file, '--dry-run', '--json'], { env: t.env() });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).mapping.preset).toMatchObject({ name: 'shopify', variant, recognised: true });
  });
});
