/** contract/exact-json.ts: numbers a double would change keep their text, both ways. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ExactNumber, isExactDouble, parseJson, stringifyJson } from '../../src/contract/exact-json.js';

describe('isExactDouble', () => {
  it('holds what a double holds, whatever the spelling', () => {
    for (const t of ['0', '-0', '1', '1.0', '1e2', '100', '0.1', '-12.50', '9007199254740991', '1.5E-3', '123456789012345'])
      expect(isExactDouble(t), t).toBe(true);
  });
  it('refuses what a double changes', () => {
    for (const t of [
      '12345678901234567890',
      '9007199254740993',
      '1e400',
      '-1e400',
      '1e-400',
      '0.1000000000000000000001',
      '3.14159265358979323846',
    ])
      expect(isExactDouble(t), t).toBe(false);
  });
});

describe('parseJson / stringifyJson', () => {
  it('keeps big integers, huge exponents and long decimals as written', () => {
    const text = '{"a":12345678901234567890,"b":1e400,"c":0.1000000000000000000001,"d":[1,2.5,-3],"e":"12345678901234567890"}';
    const value = parseJson(text) as Record<string, unknown>;
    expect(value.a).toBeInstanceOf(ExactNumber);
    expect(value.d).toEqual([1, 2.5, -3]);
    expect(value.e).toBe('12345678901234567890');
    expect(stringifyJson(value)).toBe(text);
  });

  it('returns plain JSON.parse values when every number is exact', () => {
    const text = '{"n":1,"s":"1e400 in a string","x":[0.5,{"y":-2}]}';
    expect(parseJson(text)).toEqual(JSON.parse(text));
  });

  it('is not fooled by a string that looks like its placeholder', () => {
    const text = '{"s":"\\u0000abc:12","n":12345678901234567890}';
    const value = parseJson(text) as Record<string, unknown>;
    expect(value.s).toBe('\u0000abc:12');
    expect(stringifyJson(value)).toBe(text);
  });

  it('throws the JSON.parse error on the text as written', () => {
    expect(() => parseJson('{"a":12345678901234567890,}')).toThrow(SyntaxError);
  });

  it('round-trips any JSON with any number text (property)', () => {
    const num = fc
      .tuple(
        fc.boolean(),
        fc.bigInt({ min: 0n, max: 10n ** 40n }),
        fc.option(fc.nat({ max: 10 ** 9 })),
        fc.option(fc.integer({ min: -500, max: 500 })),
      )
      .map(([neg, i, f, e]) => `${neg ? '-' : ''}${i}${f === null ? '' : `.${f}`}${e === null ? '' : `e${e}`}`);
    const json: fc.Arbitrary<string> = fc.letrec<{ v: string }>((tie) => ({
      v: fc.oneof(
        { depthSize: 'small' },
        num,
        fc.string().map((s) => JSON.stringify(s)),
        fc.array(tie('v'), { maxLength: 4 }).map((a) => `[${a.join(',')}]`),
        fc.array(fc.tuple(fc.string(), tie('v')), { maxLength: 4 }).map((kv) => {
          const seen = new Set<string>();
          return `{${kv
            .filter(([k]) => !seen.has(k) && seen.add(k))
            .map(([k, v]) => `${JSON.stringify(k)}:${v}`)
            .join(',')}}`;
        }),
      ),
    })).v;
    fc.assert(
      fc.property(json, (text) => {
        const back = stringifyJson(parseJson(text));
        // Every number keeps its value: exact ones may be re-spelled by JSON.stringify, the rest keep their text.
        expect(JSON.parse(back)).toEqual(JSON.parse(text));
        const inexact = (t: string) => (t.match(/-?\d+(\.\d+)?(e-?\d+)?/g) ?? []).filter((n) => !isExactDouble(n));
        expect(inexact(back).sort()).toEqual(inexact(text).sort());
      }),
    );
  });
});

describe('an order total written as a long JSON number', () => {
  it('is taken from its text, not from a double', async () => {
    const { validateOrderInput } = await import('../../src/contract/orders.js');
    const order = parseJson(
      '{"order_id":"big-1","total":1234567890123456.78,"currency":"EUR","order_date":"2026-01-02T00:00:00Z","email":"a@b.test"}',
    );
    const result = validateOrderInput(order);
    expect(result.ok && result.value.total).toBe('1234567890123456.78');
  });
});
