/**
 * fast-check arbitraries built from the OpenAPI document's schemas (the subset of JSON Schema it
 * uses): values that fit a schema, and the same values broken the ways clients break them.
 */
import fc from 'fast-check';
import { openApiDoc } from './openapi-conformance.js';

export type Schema = Record<string, unknown>;

/** Rules the schemas state only in words (ISO 4217, dates, the currency's decimals): values that keep them, so valid requests succeed. */
export const HINTS: Record<string, fc.Arbitrary<unknown>> = {
  currency: fc.constantFrom('USD', 'eur', 'JPY'),
  order_date: fc.constantFrom('2026-01-02', '2026-01-02T10:00:00+02:00'),
  total: fc.oneof(fc.integer({ min: 0, max: 10_000 }), fc.constantFrom('49', '0')),
  price: fc.integer({ min: 0, max: 1000 }),
  phone: fc.integer({ min: 0, max: 9_999_999 }).map((n) => `+1415${String(n).padStart(7, '0')}`),
  accepts_sms_marketing: fc.constant(false),
  sms_consent: fc.constantFrom('unsubscribed', 'never_subscribed'),
  scope: fc.constantFrom('contacts_read', 'events_write', 'contacts_read events_write'),
  scopes: fc.constantFrom('contacts_read'),
};

function resolve(schema: Schema): Schema {
  const ref = schema.$ref;
  if (typeof ref !== 'string') return schema;
  const name = ref.replace('#/components/schemas/', '');
  return (openApiDoc.components as { schemas: Record<string, Schema> }).schemas[name] as Schema;
}

/** Values that fit a schema of the document (the subset of JSON Schema it uses). */
export function fromSchema(input: Schema, depth = 0, name = ''): fc.Arbitrary<unknown> {
  const hint = HINTS[name];
  if (hint) return hint;
  const s = resolve(input);
  if ('const' in s) return fc.constant(s.const);
  if (Array.isArray(s.enum)) return fc.constantFrom(...(s.enum as unknown[]));
  const union = (s.anyOf ?? s.oneOf) as Schema[] | undefined;
  if (union) return fc.oneof(...union.map((x) => fromSchema(x, depth)));
  const min = s.minLength as number | undefined;
  const max = s.maxLength as number | undefined;
  switch (s.type) {
    case 'string':
      if (s.format === 'email' || s.format === 'idn-email') return fc.emailAddress();
      if (s.format === 'date-time')
        return fc.date({ min: new Date('2000-01-01'), max: new Date('2030-01-01'), noInvalidDate: true }).map((d) => d.toISOString());
      if (typeof s.pattern === 'string') return fc.stringMatching(new RegExp(s.pattern as string));
      return fc.string({ minLength: min ?? 0, maxLength: Math.min(max ?? 30, 30) });
    case 'integer':
      return fc.integer({ min: (s.minimum as number) ?? -1000, max: Math.min((s.maximum as number) ?? 1e6, 1e6) });
    case 'number':
      return fc.double({ min: (s.minimum as number) ?? -1e6, max: 1e6, noNaN: true, noDefaultInfinity: true });
    case 'boolean':
      return fc.boolean();
    case 'array':
      return depth > 3 ? fc.constant([]) : fc.array(fromSchema(s.items as Schema, depth + 1), { maxLength: 3 });
    case 'object': {
      const props = (s.properties ?? {}) as Record<string, Schema>;
      if (Object.keys(props).length === 0 && s.additionalProperties === false) return fc.constant({});
      if (Object.keys(props).length === 0) return fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 1 }), { maxKeys: 3 });
      const record: Record<string, fc.Arbitrary<unknown>> = {};
      for (const [k, v] of Object.entries(props)) record[k] = fromSchema(v, depth + 1, k);
      return fc.record(record, { requiredKeys: (s.required as string[]) ?? [] });
    }
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

/** A valid-looking value, or one broken the ways clients break them. */
export function mutated(valid: fc.Arbitrary<unknown>): fc.Arbitrary<unknown> {
  const objectMutation = valid.chain((v) => {
    if (typeof v !== 'object' || v === null || Array.isArray(v)) return fc.constant(v);
    const keys = Object.keys(v);
    return fc.oneof(
      fc
        .record({ key: fc.constantFrom(...keys, 'unknown_field'), value: fc.jsonValue({ maxDepth: 2 }) })
        .map(({ key, value }) => ({ ...v, [key]: value })),
      keys.length > 0
        ? fc.constantFrom(...keys).map((k) => Object.fromEntries(Object.entries(v).filter(([x]) => x !== k)))
        : fc.constant(v),
      fc.constantFrom(...(keys.length > 0 ? keys : ['x'])).map((k) => ({ ...v, [k]: null })),
    );
  });
  return fc.oneof(
    { weight: 3, arbitrary: valid },
    { weight: 3, arbitrary: objectMutation },
    { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }) },
  );
}
