/**
 * Contact exports recognised from the header (presets/contacts/*.json): each fixture of
 * fixtures/contact-exports.mjs imports with no flag, and every person is exact in the sandbox
 * (e-mail, phone, names, consent); Mailchimp's consent is its file's, `--set email_consent=…`
 * overrides it; the dry run and --json name the preset as recognised; `--preset none` reads
 * columns by name (exit 2); a tie between presets stops naming both.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain ES module that writes the fixtures (no types)
import { EXPECTED } from '../../fixtures/contact-exports.mjs';
import { chooseContactMapping, contactMappingForHeader } from '../../src/commands/contacts/import-mapping.js';
import { CONTACT_MAPPING_SCHEMA } from '../../src/importer/contact-mapping.js';
import { parseFamily } from '../../src/importer/presets/family.js';
import { cliSuite } from '../helpers/cli-suite.js';
import { runCli } from '../helpers/run-cli.js';

const t = cliSuite();
const FIXTURES = join(import.meta.dirname, '../../fixtures/contacts');

const PRESET_OF: Record<string, [string, string]> = {
  'mailchimp-subscribed_members_export.csv': ['mailchimp', 'subscribed'],
  'mailchimp-unsubscribed_members_export.csv': ['mailchimp', 'unsubscribed'],
  'mailchimp-cleaned_members_export.csv': ['mailchimp', 'cleaned'],
  'woocommerce-customer-order-customers.csv': ['woocommerce-customer-order', 'standard'],
  'woocommerce-customer-order-customers-legacy.csv': ['woocommerce-customer-order', 'legacy'],
  'woocommerce-customer-order-customers-import.csv': ['woocommerce-customer-order', 'import'],
  'woocommerce-analytics-customers.csv': ['woocommerce-analytics', 'download'],
  'woocommerce-analytics-customers-emailed.csv': ['woocommerce-analytics', 'emailed'],
  'klaviyo-list-export.csv': ['klaviyo', 'list-export'],
  'omnisend-contacts_export.csv': ['omnisend', 'contacts-export'],
};

async function contactBy(email: string) {
  const r = await runCli(['contacts', 'list', '--email', email, '--json'], { env: t.env() });
  return JSON.parse(r.stdout)[0];
}

describe('contacts import: exports recognised from the header', () => {
  it('lists a preset for every fixture', () => {
    expect(Object.keys(EXPECTED).sort()).toEqual(Object.keys(PRESET_OF).sort());
  });

  it.each(Object.keys(PRESET_OF))('%s imports with no flag, every person exact', async (file) => {
    const [preset, variant] = PRESET_OF[file] as [string, string];
    const people = EXPECTED[file] as Array<Record<string, unknown>>;
    const r = await runCli(['contacts', 'import', join(FIXTURES, file), '--json'], { env: t.env() });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const summary = JSON.parse(r.stdout);
    // Klaviyo's phone-only profile is a row of its own (not in EXPECTED: it has no e-mail to look up).
    const rows = file.startsWith('klaviyo') ? people.length + 1 : people.length;
    expect(summary).toMatchObject({ rows, created: rows, rejected: 0, failed: 0 });
    expect(summary.preset).toMatchObject({ name: preset, variant, recognised: true });
    for (const person of people) {
      const got = await contactBy(person.email as string);
      expect(got).toMatchObject({ ...person, phone: person.phone ?? null });
    }
  });

  it('Klaviyo: a profile with an empty consent cell gets none written; its phone is exact', async () => {
    const r = await runCli(['contacts', 'import', join(FIXTURES, 'klaviyo-list-export.csv'), '--json'], { env: t.env() });
    expect(r.code).toBe(0);
    const list = await runCli(['contacts', 'list', '--phone', '+13035550114', '--json'], { env: t.env() });
    expect(JSON.parse(list.stdout)).toMatchObject([
      { email: null, phone: '+13035550114', first_name: 'Vik', email_consent: 'never_subscribed' },
    ]);
  });

  it('Omnisend: the mapping shows its words for the consents; a status outside them rejects the row naming the field', async () => {
    const file = join(FIXTURES, 'omnisend-contacts_export.csv');
    const dry = await runCli(['contacts', 'import', file, '--dry-run'], { env: t.env() });
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stderr).toContain('mapping (preset omnisend (recognised from the header)):');
    expect(dry.stderr).toContain('  email_consent ← Email subscription status (Non-subscribed = never_subscribed)');
    const json = await runCli(['contacts', 'import', file, '--dry-run', '--json'], { env: t.env() });
    expect(JSON.parse(json.stdout).mapping.fields.sms_consent).toEqual({
      columns: ['SMS subscription status'],
      values: { Subscribed: 'subscribed', 'Non-subscribed': 'never_subscribed', Unsubscribed: 'unsubscribed' },
    });
    const odd = join(t.tmp.dir, 'omnisend-odd.csv');
    const [header, first] = readFileSync(file, 'utf8').split('\n');
    writeFileSync(odd, `${header}\n${first?.replace('Subscribed,,,Subscribed', 'Pending,,,Subscribed').replace('ana.lund', 'odd.one')}\n`);
    const r = await runCli(['contacts', 'import', odd, '--json'], { env: t.env() });
    expect(r.code).toBe(4);
    expect(JSON.parse(r.stdout)).toMatchObject({ rows: 1, rejected: 1, created: 0 });
    expect(JSON.parse(r.stdout).rejected_lines).toEqual([2]);
    const human = await runCli(['contacts', 'import', odd], { env: t.env() });
    expect(human.stderr).toContain(
      'line 2 (odd.one@example.com): rejected invalid_row: email_consent: "Pending" is none of the export\'s words (Subscribed, Non-subscribed, Unsubscribed) and not a consent',
    );
    expect(await contactBy('odd.one@example.com')).toBeUndefined();
  });

  it("Mailchimp: the dry run states the file's consent; --set email_consent=… overrides it", async () => {
    const file = join(FIXTURES, 'mailchimp-unsubscribed_members_export.csv');
    const dry = await runCli(['contacts', 'import', file, '--dry-run'], { env: t.env() });
    expect(dry.code).toBe(0);
    expect(dry.stderr).toContain('mapping (preset mailchimp (recognised from the header)):');
    expect(dry.stderr).toContain('  variant unsubscribed: unsubscribed_members_export');
    expect(dry.stderr).toContain('  email_consent = unsubscribed (the preset; --set email_consent=… overrides)');
    const json = await runCli(['contacts', 'import', file, '--dry-run', '--json'], { env: t.env() });
    expect(JSON.parse(json.stdout).mapping).toMatchObject({
      from: 'preset mailchimp (recognised from the header)',
      preset: { name: 'mailchimp', variant: 'unsubscribed', recognised: true },
      fields: { email: { columns: ['Email Address'] }, email_consent: { value: 'unsubscribed' } },
    });
    const r = await runCli(['contacts', 'import', file, '--set', 'email_consent=never_subscribed', '--json'], { env: t.env() });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ created: 2, rejected: 0 });
    expect(await contactBy('ines.kaur@example.com')).toMatchObject({ email_consent: 'never_subscribed', phone: '+442079460102' });
    const human = await runCli(['contacts', 'import', file, '--set', 'email_consent=subscribed'], { env: t.env() });
    expect(human.code).toBe(0);
    expect(human.stdout + human.stderr).toContain('preset mailchimp (recognised from the header), variant unsubscribed');
    expect(await contactBy('olu.berg@example.com')).toMatchObject({ email_consent: 'subscribed' });
  });

  it('--set refuses a read-only consent and a field it cannot give, naming it (exit 2, nothing sent)', async () => {
    const file = join(FIXTURES, 'mailchimp-subscribed_members_export.csv');
    const ro = await runCli(['contacts', 'import', file, '--set', 'email_consent=compliance_suppressed'], { env: t.env() });
    expect(ro.code).toBe(2);
    expect(ro.stderr).toContain('--set email_consent');
    const bad = await runCli(['contacts', 'import', file, '--set', 'email=x@example.com'], { env: t.env() });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('"email"');
    expect(await contactBy('maren.holt@example.com')).toBeUndefined();
  });

  it("Shopify's customers export is recognised (its current generation), no --preset", async () => {
    const file = join(FIXTURES, '../shopify-customers-export.csv');
    const r = await runCli(['contacts', 'import', file, '--dry-run', '--json'], { env: t.env() });
    expect(JSON.parse(r.stdout).mapping.preset).toEqual({
      name: 'shopify',
      variant: 'current',
      label: 'customers export with Customer ID and Default Address columns',
      recognised: true,
    });
  });

  it('--preset none reads the columns by name: a Mailchimp file has no email column (exit 2)', async () => {
    const r = await runCli(['contacts', 'import', join(FIXTURES, 'mailchimp-subscribed_members_export.csv'), '--preset', 'none'], {
      env: t.env(),
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('email or phone');
  });

  it('a header two presets fit equally stops, naming both', async () => {
    const family = (name: string) =>
      parseFamily(
        JSON.stringify({
          kind: 'contacts',
          columns: { email: 'Mail' },
          variants: [{ name: 'a', label: `${name} export`, detect: ['Shared One'] }],
        }),
        name,
        CONTACT_MAPPING_SCHEMA,
      );
    const choice = await chooseContactMapping({});
    expect(() => contactMappingForHeader('x.csv', ['Mail', 'Shared One'], choice, [family('first'), family('second')])).toThrow(
      /fits 2 presets equally: first \(first export\), second \(second export\)/,
    );
  });
});
