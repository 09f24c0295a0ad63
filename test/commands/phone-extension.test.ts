/**
 * A phone number with an extension cannot be texted: E.164 has no place for it, and dropping it
 * silently (as before) would message the switchboard. Refused, with the field named, wherever a
 * phone is read: contacts, the order importer's mapping and events.
 */
import { describe, expect, it } from 'vitest';
import { parseEventLine } from '../../src/bulk/adapters/event-lines.js';
import { normalizePhone } from '../../src/contract/phone.js';
import { readOrderFields, resolveColumns } from '../../src/importer/mapping.js';
import { cliSuite } from '../helpers/cli-suite.js';
import { runCli } from '../helpers/run-cli.js';

const t = cliSuite();

describe('phone extensions', () => {
  it('normalizePhone refuses x123, ext. 123, extension 5, ;ext=9 and #123, naming the extension', () => {
    for (const [input, ext] of [
      ['+14155550100x123', '123'],
      ['+1 415 555 0100 ext. 123', '123'],
      ['+14155550100 extension 5', '5'],
      ['+14155550100;ext=9', '9'],
      ['(415) 555-0100 #123', '123'],
    ] as const) {
      expect(normalizePhone(input, 'US'), input).toEqual({
        ok: false,
        message: `${JSON.stringify(input)} has an extension (x${ext}), which SMS cannot use; remove it`,
      });
    }
    expect(normalizePhone('+14155550100')).toEqual({ ok: true, e164: '+14155550100' });
  });

  it('the order importer rejects the row with the phone field named', () => {
    const layout = resolveColumns(['order_id', 'total', 'currency', 'order_date', 'phone'], new Map(), ',');
    const f = readOrderFields(['A', '1', 'EUR', '2024-01-01', '+14155550100x123'], layout, { delimiter: ',', initialSync: false });
    expect(f.errors).toEqual([{ field: 'phone', message: '"+14155550100x123" has an extension (x123), which SMS cannot use; remove it' }]);
  });

  it('an event line with one is invalid, naming phone', () => {
    const parsed = parseEventLine({ line: 1, text: '{"event_type":"signed_up","phone":"+14155550100 ext. 7"}' }, { normalizePhone });
    expect(parsed).toMatchObject({
      kind: 'invalid',
      message: expect.stringMatching(/^phone "\+14155550100 ext\. 7" has an extension \(x7\)/),
    });
  });

  it('contacts create --phone with one is refused before anything is sent', async () => {
    const r = await runCli(['contacts', 'create', '--phone', '+14155550100x123'], { env: t.env() });
    expect(r.stderr).toContain('invalid --phone: "+14155550100x123" has an extension (x123), which SMS cannot use; remove it');
    expect(r.code).not.toBe(0);
    const list = await runCli(['contacts', 'list', '--json'], { env: t.env() });
    expect(JSON.parse(list.stdout)).toEqual([]);
  });
});
