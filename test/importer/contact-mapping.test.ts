import { describe, expect, it } from 'vitest';
import { readContactRow, resolveContactColumns } from '../../src/importer/contact-mapping.js';
import type { ColumnChoice } from '../../src/importer/mapping.js';

const header = ['Email', 'Phone', 'Country', 'email_consent', 'accepts_email_marketing', 'accepts_sms_marketing', 'Notes'];
const layout = resolveContactColumns(
  header,
  new Map<string, string | ColumnChoice>([
    ['email', 'Email'],
    ['phone', { columns: ['Phone'], from: 'test' }],
  ]),
  ',',
  ['Country'],
);
const read = (cells: string[], opts: Partial<Parameters<typeof readContactRow>[2]> = {}) =>
  readContactRow(cells, layout, { noMeans: 'nothing', welcomeSms: false, ...opts });

describe('contact rows', () => {
  it('maps columns by name and choice, and lists the rest as ignored', () => {
    expect(layout.ignored).toEqual(['Notes']);
    expect(() => resolveContactColumns(['Name'], new Map(), ',')).toThrow(/lacks the column email or phone/);
    const hintFor = (header: string[]) => {
      try {
        resolveContactColumns(header, new Map(), ',');
      } catch (e) {
        return (e as { hint?: string }).hint;
      }
    };
    // The suggestion names a field that is missing and the column that looks like it.
    expect(hintFor(['Name', 'Mobile Number'])).toBe('name the columns after the fields, or map them: --map phone="Mobile Number"');
    expect(hintFor(['Name', 'Notes'])).toBe('name the columns after the fields, or map them: --map email="<column>"');
  });

  it('yes subscribes; no writes nothing unless --no-means unsubscribed; send_welcome_sms false unless asked', () => {
    expect(read(['A@X.io', '', '', '', 'yes', 'no', '']).write).toEqual({
      email: 'a@x.io',
      email_consent: 'subscribed',
      send_welcome_sms: false,
    });
    expect(read(['a@x.io', '', '', '', 'no', 'no', ''], { noMeans: 'unsubscribed' }).write).toMatchObject({
      email_consent: 'unsubscribed',
      sms_consent: 'unsubscribed',
    });
    expect(read(['a@x.io', '', '', '', '', '', ''], { welcomeSms: true }).write).toEqual({ email: 'a@x.io', send_welcome_sms: true });
  });

  it('an explicit consent column wins over the yes/no one; a read-only value rejects the row naming the field', () => {
    expect(read(['a@x.io', '', '', 'suppressed', 'yes', '', '']).write?.email_consent).toBe('suppressed');
    expect(read(['a@x.io', '', '', 'compliance_suppressed', '', '', '']).problem).toEqual({
      code: 'invalid_row',
      field: 'email_consent',
      message:
        'email_consent: "compliance_suppressed" is read-only (set by the system); writable values: subscribed, unsubscribed, never_subscribed, suppressed',
    });
    expect(read(['a@x.io', '', '', '', 'maybe', '', '']).problem?.message).toMatch(/^accepts_email_marketing: must be true\/false/);
  });

  it("phones: a leading ' dropped, the row's country for a local number, else the default", () => {
    expect(read(['', "'+44 20 7946 0958", '', '', '', '', '']).phone).toBe('+442079460958');
    expect(read(['', '030 901820', 'DE', '', '', '', '']).write?.phone).toBe('+4930901820');
    expect(read(['', '(415) 555-0100', '', '', '', '', ''], { defaultCountry: 'US' }).write?.phone).toBe('+14155550100');
    expect(read(['', '555-0100', '', '', '', '', '']).problem?.message).toMatch(/^phone: /);
    expect(read(['', '', '', '', '', '', '']).problem?.message).toBe('email: one of email or phone is required');
  });
});
