import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { parseEventLine } from '../../src/bulk/adapters/event-lines.js';
import { MAX_LINE_CHARS, type RawLine, readLines } from '../../src/bulk/sources/ndjson-source.js';
import { normalizePhone } from '../../src/contract/phone.js';

async function collect(chunks: Array<string | Buffer>): Promise<RawLine[]> {
  const out: RawLine[] = [];
  for await (const l of readLines(Readable.from(chunks))) out.push(l);
  return out;
}

describe('readLines', () => {
  it('splits LF and CRLF lines across chunk boundaries, drops a BOM and keeps a last line without newline', async () => {
    const lines = await collect(['\uFEFF{"a":1}\r\n{"b"', ':2}\n\n', '{"c":3}']);
    expect(lines).toEqual([
      { line: 1, text: '{"a":1}' },
      { line: 2, text: '{"b":2}' },
      { line: 3, text: '' },
      { line: 4, text: '{"c":3}' },
    ]);
  });

  it('decodes multi-byte characters split between chunks', async () => {
    const bytes = Buffer.from('{"name":"Zoë 🎉"}\n');
    const lines = await collect([bytes.subarray(0, 12), bytes.subarray(12, 17), bytes.subarray(17)]);
    expect(lines).toEqual([{ line: 1, text: '{"name":"Zoë 🎉"}' }]);
  });

  it('marks a line longer than the body limit without keeping it in memory, and goes on', async () => {
    const big = 'x'.repeat(MAX_LINE_CHARS + 10);
    const lines = await collect([big.slice(0, 600_000), big.slice(600_000), '\n{"ok":1}\n']);
    expect(lines).toHaveLength(2);
    expect(lines[0]?.oversize).toBe(true);
    expect(lines[0]?.text.length).toBeLessThan(1000);
    expect(lines[1]).toEqual({ line: 2, text: '{"ok":1}' });
  });
});

describe('parseEventLine', () => {
  const at = (text: string, line = 7): RawLine => ({ line, text });

  it('accepts a valid event and lower-cases the email', () => {
    expect(parseEventLine(at('{"event_type":"signed_up","email":"Ada@Example.com","properties":{"plan":"pro"}}'))).toEqual({
      kind: 'event',
      event: { event_type: 'signed_up', email: 'ada@example.com', properties: { plan: 'pro' } },
    });
  });

  it('skips blank lines', () => {
    expect(parseEventLine(at('   '))).toEqual({ kind: 'blank' });
  });

  it('rejects invalid JSON, a missing event_type, no contact, unknown fields and non-objects', () => {
    expect(parseEventLine(at('{"event_type":'))).toMatchObject({ kind: 'invalid', code: 'invalid_json' });
    expect(parseEventLine(at('{"email":"a@b.co"}'))).toMatchObject({
      kind: 'invalid',
      code: 'invalid_request',
      message: 'event_type is required',
    });
    expect(parseEventLine(at('{"event_type":"x"}'))).toMatchObject({
      kind: 'invalid',
      eventType: 'x',
      message: 'one of email, phone or contact_id is required',
    });
    expect(parseEventLine(at('{"event_type":"x","email":"a@b.co","colour":"red"}'))).toMatchObject({
      kind: 'invalid',
      message: 'colour is not a known event field',
    });
    expect(parseEventLine(at('[1,2]'))).toMatchObject({ kind: 'invalid', code: 'invalid_request' });
    expect(parseEventLine({ line: 1, text: 'xxx', oversize: true })).toMatchObject({ kind: 'invalid', code: 'payload_too_large' });
  });

  it('says when a line that is not JSON holds bare CR line ends (a classic Mac file reads as one line)', () => {
    const text = '{"event_type":"a","email":"a@b.co"}\r{"event_type":"b","email":"b@b.co"}\r';
    const r = parseEventLine(at(text, 1));
    expect(r).toMatchObject({ kind: 'invalid', code: 'invalid_json' });
    expect((r as { message: string }).message).toMatch(
      /^not valid JSON \(.+\); the line holds bare carriage returns \(CR\): NDJSON lines end in LF or CRLF/,
    );
    // Invalid JSON without a CR keeps the plain message; a CR as JSON whitespace in a valid line is no error.
    expect((parseEventLine(at('{"event_type":')) as { message: string }).message).not.toMatch(/carriage/);
    expect(parseEventLine(at('{"event_type":"a",\r"email":"a@b.co"}'))).toMatchObject({ kind: 'event' });
  });

  it('normalises local phone numbers with the default country, and rejects ones without a country', () => {
    expect(parseEventLine(at('{"event_type":"x","phone":"(415) 555-0100"}'), { defaultCountry: 'US', normalizePhone })).toEqual({
      kind: 'event',
      event: { event_type: 'x', phone: '+14155550100' },
    });
    const bad = parseEventLine(at('{"event_type":"x","phone":"(415) 555-0100"}'), { normalizePhone });
    expect(bad).toMatchObject({ kind: 'invalid', code: 'invalid_request' });
    expect((bad as { message: string }).message).toMatch(/^phone .*--default-country/);
  });

  it('asks for the phone normaliser only when a line has a phone that is not E.164', () => {
    expect(parseEventLine(at('{"event_type":"x","phone":"(415) 555-0100"}'))).toEqual({ kind: 'needs_phone' });
    expect(parseEventLine(at('{"event_type":"x","phone":"+14155550100"}'))).toEqual({
      kind: 'event',
      event: { event_type: 'x', phone: '+14155550100' },
    });
  });
});

describe('readLines with one huge chunk', () => {
  it('also marks an over-long line that arrives in a single chunk', async () => {
    const lines = await collect([`${'y'.repeat(MAX_LINE_CHARS + 1)}\n{"ok":1}`]);
    expect(lines.map((l) => [l.line, l.oversize === true])).toEqual([
      [1, true],
      [2, false],
    ]);
  });
});
