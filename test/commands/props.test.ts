import { describe, expect, it } from 'vitest';
import { mergeProperties, PropError, parseProp, parseProps, typeValue } from '../../src/commands/props.js';

describe('typeValue (key=value)', () => {
  it('types numbers, booleans and null, and keeps everything else as written', () => {
    expect(typeValue('42')).toBe(42);
    expect(typeValue('-3.5')).toBe(-3.5);
    expect(typeValue('1e3')).toBe(1000);
    expect(typeValue('0')).toBe(0);
    expect(typeValue('true')).toBe(true);
    expect(typeValue('false')).toBe(false);
    expect(typeValue('null')).toBeNull();
    expect(typeValue('007')).toBe('007');
    expect(typeValue('TRUE')).toBe('TRUE');
    expect(typeValue('')).toBe('');
    expect(typeValue('+14155550100')).toBe('+14155550100');
    expect(typeValue('1.')).toBe('1.');
    expect(typeValue('0x10')).toBe('0x10');
    expect(typeValue('Infinity')).toBe('Infinity');
  });

  it('keeps numbers that JSON cannot carry exactly as strings', () => {
    expect(typeValue('12345678901234567890')).toBe('12345678901234567890');
    expect(typeValue('1e999')).toBe('1e999');
    expect(typeValue('9007199254740991')).toBe(9007199254740991);
  });
});

describe('parseProps', () => {
  it('builds typed, nested properties like httpie', () => {
    expect(
      parseProps(['plan=pro', 'seats=5', 'trial=false', 'coupon=null', 'price=19.90', 'address.city=Paris', 'address.geo.lat=48.85']),
    ).toEqual({ plan: 'pro', seats: 5, trial: false, coupon: null, price: 19.9, address: { city: 'Paris', geo: { lat: 48.85 } } });
  });

  it('takes raw JSON after := (and that is how to force a string)', () => {
    expect(parseProps(['tags:=["a","b"]', 'code:="007"', 'flag:="true"', 'meta:={"x":1}', 'n:=12'])).toEqual({
      tags: ['a', 'b'],
      code: '007',
      flag: 'true',
      meta: { x: 1 },
      n: 12,
    });
  });

  it('keeps = and := inside the value, and splits on the first separator only', () => {
    expect(parseProps(['query=a=b', 'url=https://x.test/?q=1', 'expr:="a:=b"'])).toEqual({
      query: 'a=b',
      url: 'https://x.test/?q=1',
      expr: 'a:=b',
    });
  });

  it('appends with key[]= and escapes dots, equals and colons with a backslash', () => {
    expect(parseProps(['tags[]=a', 'tags[]=2', 'file\\.name=x.txt', 'a\\=b=c', 'k\\:=v', 'tag\\[]=lit'])).toEqual({
      tags: ['a', 2],
      'file.name': 'x.txt',
      'a=b': 'c',
      'k:': 'v',
      'tag[]': 'lit',
    });
  });

  it('refuses a missing value, an empty key, invalid raw JSON, a key given twice and a value used as an object', () => {
    expect(() => parseProps(['plan'])).toThrow(PropError);
    expect(() => parseProps(['plan'])).toThrow(/no value/);
    expect(() => parseProps(['=x'])).toThrow(/empty key/);
    expect(() => parseProps(['a..b=1'])).toThrow(/empty key/);
    expect(() => parseProps(['x:={bad'])).toThrow(/not valid JSON/);
    expect(() => parseProps(['a=1', 'a=2'])).toThrow(/given twice/);
    expect(() => parseProps(['a=1', 'a.b=2'])).toThrow(/already set to a value/);
    expect(() => parseProps(['a=1', 'a[]=2'])).toThrow(/not an array/);
  });

  it('treats __proto__ as a plain key and never touches Object.prototype', () => {
    const props = parseProps(['__proto__.polluted=yes', 'constructor.prototype.x=1']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(({} as Record<string, unknown>).x).toBeUndefined();
    expect(JSON.stringify(props)).toBe('{"__proto__":{"polluted":"yes"},"constructor":{"prototype":{"x":1}}}');
  });

  it('parseProp reports the path, the append flag and the value', () => {
    expect(parseProp('a.b[]=1')).toEqual({ path: ['a', 'b'], append: true, value: 1 });
  });
});

describe('mergeProperties', () => {
  it('lets --prop values override --properties, merging nested objects', () => {
    const base = { plan: 'free', address: { city: 'Lyon', zip: '69001' }, tags: ['x'] };
    expect(mergeProperties(base, { plan: 'pro', address: { city: 'Paris' }, tags: ['y'] })).toEqual({
      plan: 'pro',
      address: { city: 'Paris', zip: '69001' },
      tags: ['y'],
    });
    expect(base.address.city).toBe('Lyon');
  });
});
