/**
 * The planner's pure parts: a stream's first rows peeked and handed on whole; a stream's later
 * unsuppressing rows held back; the historical threshold (30 days, over 1 %); the overlay that
 * lets a row see what the rows before it did.
 */
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { readContactBatches } from '../../src/bulk/adapters/contacts.js';
import { addContact, emptyAccount } from '../../src/bulk/plan/account.js';
import { planContacts } from '../../src/bulk/plan/contacts-plan.js';
import { holdUnsuppressing, tooHistorical } from '../../src/bulk/plan/guards.js';
import { isHistorical } from '../../src/bulk/plan/orders-plan.js';
import { peekCsv } from '../../src/bulk/plan/peek.js';
import { openCsv } from '../../src/bulk/sources/csv-source.js';
import { resolveContactColumns } from '../../src/importer/contact-mapping.js';

async function source(text: string) {
  return openCsv(Readable.from([Buffer.from(text)]), { name: 'stdin', live: true });
}

function people(n: number, consent = 'subscribed'): string {
  const lines = ['email,email_consent'];
  for (let i = 1; i <= n; i++) lines.push(`p${i}@example.com,${consent}`);
  return `${lines.join('\n')}\n`;
}

async function rowsOf(text: string, welcomeSms = false) {
  const src = await source(text);
  const layout = resolveContactColumns(src.header, new Map(), src.delimiter);
  return { src, layout, opts: { noMeans: 'nothing' as const, welcomeSms } };
}

describe('peekCsv', () => {
  it('hands on every row after the peeked ones, in order; says whether the input ended', async () => {
    const src = await source(people(30_000));
    const peeked = await peekCsv(src, 10_000);
    expect(peeked.complete).toBe(false);
    let head = 0;
    for await (const b of peeked.head.batches) head += b.length;
    expect(head).toBeGreaterThanOrEqual(10_000);
    expect(head).toBeLessThan(30_000);
    const lines: number[] = [];
    for await (const b of peeked.whole.batches) for (const item of b) lines.push(item.line);
    expect(lines).toHaveLength(30_000);
    expect(lines[0]).toBe(2);
    expect(lines.every((l, i) => l === i + 2)).toBe(true);
    const small = await peekCsv(await source(people(3)), 10_000);
    expect(small.complete).toBe(true);
  });
});

describe('holdUnsuppressing', () => {
  it('turns rows writing consent to a merchant-suppressed contact into rejected ones, leaves the rest', async () => {
    const suppressed = emptyAccount();
    addContact(suppressed, {
      id: 'ct_1',
      email: 'p2@example.com',
      phone: null,
      email_consent: 'suppressed',
      sms_consent: 'never_subscribed',
    });
    const { src, layout, opts } = await rowsOf(
      'email,email_consent,first_name\np1@example.com,subscribed,\np2@example.com,subscribed,\np2@example.com,,Ada\n',
    );
    const out = [];
    for await (const b of holdUnsuppressing(readContactBatches(src, layout, opts), suppressed)) out.push(...b);
    expect(out.map((w) => [w.line, w.problem?.code ?? 'send'])).toEqual([
      [2, 'send'],
      [3, 'would_unsuppress'],
      [4, 'send'],
    ]);
  });
});

describe('the historical threshold', () => {
  const now = Date.parse('2026-11-26T12:00:00Z');
  it('is more than 30 days before now, live orders only', () => {
    expect(isHistorical({ order_date: '2026-10-27T11:59:59Z' }, now)).toBe(true);
    expect(isHistorical({ order_date: '2026-10-27T12:00:01Z' }, now)).toBe(false);
    expect(isHistorical({ order_date: '2024-01-01', initial_sync: true }, now)).toBe(false);
  });
  it('stops over 1 % of the rows, not at it', () => {
    const cell = (count: number) => ({ count, lines: [], orderIds: [] });
    expect(tooHistorical({ rows: 100, historical: cell(1) })).toBe(false);
    expect(tooHistorical({ rows: 100, historical: cell(2) })).toBe(true);
    expect(tooHistorical({ rows: 1, historical: cell(1) })).toBe(true);
  });
});

describe('planContacts', () => {
  it('a row sees the rows before it: created, then updated by phone; the index is not changed', async () => {
    const account = emptyAccount();
    const { src, layout, opts } = await rowsOf(
      'email,phone,sms_consent\nn@example.com,+14155550999,subscribed\n,+14155550999,unsubscribed\nn@example.com,,subscribed\n',
      true,
    );
    const rows = [];
    for await (const b of readContactBatches(src, layout, opts)) rows.push(...b);
    const planned: string[] = [];
    const plan = planContacts(rows, account, { ifExists: 'update', welcomeSms: true }, (r) =>
      planned.push(`${r.line} ${r.outcome} ${r.smsFrom}>${r.smsTo} ${r.welcomeSms}`),
    );
    expect(planned).toEqual([
      '2 created new>subscribed sent',
      '3 updated subscribed>unsubscribed ',
      '4 updated unsubscribed>subscribed sent',
    ]);
    expect(plan.welcomeSms).toEqual({ count: 2, lines: [2, 4], sent: true });
    expect(account.byEmail.size).toBe(0);
  });
});
