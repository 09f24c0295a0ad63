/**
 * The bundle's libphonenumber (build-plugins.mjs: the package's modern source instead of its Babel
 * build, and each whole-number pattern's RegExp kept) normalises phone numbers exactly as the
 * package itself does: src/contract/phone.ts bundled with the plugin against src/contract/phone.ts as
 * the tests load it, over numbers of every country in many spellings, valid and not.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import fc from 'fast-check';
import { type CountryCode, getCountries, getExampleNumber } from 'libphonenumber-js/max';
import examples from 'libphonenumber-js/mobile/examples';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// @ts-expect-error: a plain .mjs module of the build, without types
import { phoneLibrary } from '../../build-plugins.mjs';
import { normalizePhone } from '../../src/contract/phone.js';

const dir = mkdtempSync(join(tmpdir(), 'svc-phone-bundle-'));
let bundled: typeof normalizePhone;

beforeAll(async () => {
  const outfile = join(dir, 'phone.mjs');
  await build({
    entryPoints: [new URL('../../src/contract/phone.ts', import.meta.url).pathname],
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    outfile,
    plugins: [phoneLibrary],
    logLevel: 'error',
  });
  ({ normalizePhone: bundled } = await import(pathToFileURL(outfile).href));
}, 30_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the bundled phone normaliser', () => {
  it('is built from the modern source with kept patterns (not the Babel build)', async () => {
    const { readFileSync } = await import('node:fs');
    const text = readFileSync(join(dir, 'phone.mjs'), 'utf8');
    expect(text).toContain('// node_modules/libphonenumber-js/source/');
    expect(text).not.toContain('// node_modules/libphonenumber-js/es6/');
    expect(text).toContain('wholePatterns.set(');
  });

  it("gives the package's answer for every country's example numbers, spelled in several ways", () => {
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
          expect(bundled(text, dflt), `${text} (${dflt ?? 'no country'})`).toEqual(normalizePhone(text, dflt));
          compared++;
        }
      }
    }
    expect(compared).toBeGreaterThan(4000);
  });

  it("gives the package's answer for any string of phone-like characters", () => {
    const text = fc.stringMatching(/^[+0-9 ()\-.xet#;=a-z]{0,24}$/);
    const country = fc.constantFrom<CountryCode | undefined>(undefined, 'US', 'GB', 'DE', 'FR', 'BR', 'IN', 'RU', 'KZ', 'JP', 'AU', 'CA');
    fc.assert(
      fc.property(text, country, (t, c) => {
        expect(bundled(t, c)).toEqual(normalizePhone(t, c));
      }),
      { numRuns: 3000 },
    );
  });
});
