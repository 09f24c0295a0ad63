import { describe, expect, it } from 'vitest';
import { jsonTooDeep, MAX_JSON_DEPTH } from '../../src/contract/json-depth.js';

const nested = (levels: number, leaf = '1') => '['.repeat(levels) + leaf + ']'.repeat(levels);

describe('jsonTooDeep (the 64-level rule, without recursion)', () => {
  it('accepts a value at level 64 and refuses one at level 65', () => {
    expect(jsonTooDeep(nested(MAX_JSON_DEPTH))).toBe(false);
    expect(jsonTooDeep(nested(MAX_JSON_DEPTH + 1))).toBe(true);
    expect(jsonTooDeep(nested(MAX_JSON_DEPTH + 1, ''))).toBe(false); // an empty container at level 64
  });

  it('counts objects and arrays alike and ignores brackets inside strings', () => {
    const obj = (levels: number) => '{"a":'.repeat(levels) + '1' + '}'.repeat(levels);
    expect(jsonTooDeep(obj(64))).toBe(false);
    expect(jsonTooDeep(obj(65))).toBe(true);
    expect(jsonTooDeep(`{"s":"${'['.repeat(500)}\\"${'{'.repeat(500)}"}`)).toBe(false);
  });

  it('answers at once for a document 10,000 levels deep', () => {
    expect(jsonTooDeep(`{"event_type":"x","properties":${nested(10_000)}}`)).toBe(true);
  });
});
