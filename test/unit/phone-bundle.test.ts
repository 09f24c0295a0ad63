/**
 * The bundle's libphonenumber: src/contract/phone.ts imports the package's published modern build
 * (`libphonenumber-js/max/es6`, no Babel helpers), bundled as build.mjs does (no plugin, no file
 * rewritten). It must normalise phone numbers exactly as the package's classic entry
 * (`libphonenumber-js/max`, what the code used before) does: both bundles are built here and
 * compared over numbers of every country in many spellings, valid and not.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import fc from 'fast-check';
import { type CountryCode, getCountries, getExampleNumber } from 'libphonenumber-js/max';
import examples from 'libphonenumber-js/mobile/examples';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { normalizePhone } from '../../src/contract/phone.js';

const dir = mkdtempSync(join(tmpdir(), 'svc-phone-bundle-'));
let bundled: typeof normalizePhone;
let classic: typeof normalizePhone;

async function bundle(outfile: string, alias?: Record<string, string>): Promise<typeof normalizePhone> {
  await build({
    entryPoints: [new URL('../../src/contract/phone.ts', import.meta.url).pathname],
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    outfile,
    alias,
    logLevel: 'error',
  });
  return (await import(pathToFileURL(outfile).href)).normalizePhone;
}

beforeAll(async () => {
  bundled = await bundle(join(dir, 'phone.mjs'));
  // The same source on the package's classic entry (its Babel build).
  classic = await bundle(join(dir, 'phone-classic.mjs'), { 'libphonenumber-js/max/es6': 'libphonenumber-js/max' });
}, 30_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the bundled phone normaliser', () => {
  it('is built from the published modern build (es6-modern), not the Babel one', () => {
    const text = readFileSync(join(dir, 'phone.mjs'), 'utf8');
    expect(text).toContain('// node_modules/libphonenumber-js/es6-modern/');
    expect(text).not.toContain('// node_modules/libphonenumber-js/es6/');
    expect(text).not.toContain('// node_modules/libphonenumber-js/source/');
    expect(readFileSync(join(dir, 'phone-classic.mjs'), 'utf8')).toContain('// node_modules/libphonenumber-js/es6/');
  });

  it("gives the classic entry's answer for every country's example numbers, spelled in several ways", () => {
    const countries = getCountries();
    let compared = 0;
    for (const country of countries) {
      const example = getExampleNumber(country, examples);
      if (!example) continue;
      const national = example.formatNational();
      const spellings = [
        example.number,
        example.formatInternational(),
        national,
        national.replace(/\D/g, ''),
        `00${example.number.slice(1)}`,
        `${national} x12`,
        `${national}9`,
        national.slice(0, -2),
      ];
      for (const text of spellings) {
        for (const dflt of [country, 'US', undefined] as Array<CountryCode | undefined>) {
          expect(bundled(text, dflt), `${text} (${dflt ?? 'no country'})`).toEqual(classic(text, dflt));
          compared++;
        }
      }
    }
    expect(compared).toBeGreaterThan(4000);
  });

  it("gives the classic entry's answer for any string of phone-like characters", () => {
    const text = fc.stringMatching(/^[+0-9 ()\-.xet#;=a-z]{0,24}$/);
    const country = fc.constantFrom<CountryCode | undefined>(undefined, 'US', 'GB', 'DE', 'FR', 'BR', 'IN', 'RU', 'KZ', 'JP', 'AU', 'CA');
    fc.assert(
      fc.property(text, country, (t, c) => {
        expect(bundled(t, c)).toEqual(classic(t, c));
      }),
      { numRuns: 3000 },
    );
  });
});
