/**
 * Property-based fuzzing of every operation of the served OpenAPI document (fast-check): requests
 * built from the document's own schemas, valid and mutated (wrong types, unknown and missing
 * fields, odd ids, no token), answer no 5xx and only statuses the operation documents; every
 * body is checked against its schema by withSandbox's conformance hook. Bounded: a few seconds.
 */
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { type OpenApiDoc, openApiDoc } from '../helpers/openapi-conformance.js';
import { type TestSandbox, useSandbox } from '../helpers/sandbox.js';
import { fromSchema, HINTS, mutated, type Schema } from '../helpers/schema-arbitrary.js';

const RUNS_PER_OPERATION = 25;

let sb: TestSandbox;
let token: string;
let app: { client_id: string; client_secret: string };
useSandbox((s) => ({ sb, token } = s));
beforeAll(async () => {
  app = await sb.admin.createApp(['contacts_read', 'events_write']);
  // Events name a contact that stays (the DELETE runs remove only their own).
  HINTS.contact_id = fc.constant(await newContact());
});

let contacts = 0;
/** A fresh contact for each operation (an earlier DELETE may have removed the last one). */
async function newContact(): Promise<string> {
  const r = await fetch(`${sb.baseUrl}/v1/contacts`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ email: `fuzz-operations-${++contacts}@example.com` }),
  });
  return ((await r.json()) as { id: string }).id;
}

const operations = Object.entries((openApiDoc as OpenApiDoc).paths).flatMap(([template, ops]) =>
  Object.entries(ops).map(([method, op]) => ({
    template,
    method: method.toUpperCase(),
    op: op as Schema & OpenApiDoc['paths'][string][string],
  })),
);

/**
 * A generated value as a form field. String(v) throws for an object whose toString is not a
 * function (fast-check generates `{"toString": null}`): that is the test's own encoding failing,
 * not the sandbox, so such values go as their JSON text.
 */
function formValue(v: unknown): string {
  if (typeof v === 'string') return v;
  try {
    return JSON.stringify(v) ?? String(v);
  } catch {
    return Object.prototype.toString.call(v);
  }
}

describe('fuzz every operation of the document', () => {
  it('covers every operation', () => {
    expect(operations.length).toBeGreaterThanOrEqual(9);
  });

  for (const { template, method, op } of operations) {
    it(`${method} ${template}: no 5xx, only documented statuses and bodies`, async () => {
      const contactId = await newContact();
      const requestBody = (op as { requestBody?: { content: Record<string, { schema: Schema }> } }).requestBody;
      const [contentType, media] = Object.entries(requestBody?.content ?? {})[0] ?? [undefined, undefined];
      const body = media ? fc.option(mutated(fromSchema(media.schema)), { nil: undefined, freq: 8 }) : fc.constant(undefined);
      const query =
        template === '/v1/contacts' && method === 'GET'
          ? fc.option(mutated(fromSchema(listQuerySchema(op))), { nil: undefined })
          : fc.constant(undefined);
      const id = fc.oneof({ weight: 4, arbitrary: fc.constant(contactId) }, fc.string({ maxLength: 40 }), fc.constant('x'.repeat(1025)));
      const auth = fc.oneof({ weight: 8, arbitrary: fc.constant(`Bearer ${token}`) }, fc.constantFrom(undefined, 'Bearer nope', 'Basic x'));
      const statuses: number[] = [];
      await fc.assert(
        fc.asyncProperty(body, query, id, auth, async (b, q, idValue, authorization) => {
          const path = template.replace('{id}', encodeURIComponent(idValue));
          const qs =
            q && typeof q === 'object'
              ? `?${new URLSearchParams(Object.entries(q).map(([k, v]): [string, string] => [k, formValue(v)])).toString()}`
              : '';
          const headers: Record<string, string> = {};
          let payload: string | undefined;
          if (template === '/oauth/token') {
            const form = {
              ...(typeof b === 'object' && b !== null ? b : {}),
              ...(idValue === contactId ? { client_id: app.client_id, client_secret: app.client_secret } : {}),
            } as Record<string, unknown>;
            payload = new URLSearchParams(Object.entries(form).map(([k, v]): [string, string] => [k, formValue(v)])).toString();
            headers['content-type'] = contentType as string;
          } else {
            if (authorization) headers.authorization = authorization;
            if (b !== undefined) {
              payload = JSON.stringify(b);
              headers['content-type'] = contentType as string;
            }
          }
          const res = await fetch(`${sb.baseUrl}${path}${qs}`, { method, headers, body: payload });
          await res.arrayBuffer();
          statuses.push(res.status);
          expect(res.status, `${method} ${path}${qs} ${payload ?? ''}`).toBeLessThan(500);
          expect(Object.keys(op.responses), `${method} ${path}${qs} ${payload ?? ''}`).toContain(String(res.status));
          expect(sb.offDocument).toEqual([]);
        }),
        { numRuns: RUNS_PER_OPERATION },
      );
      // The generator reaches the operation's success, not only its refusals.
      expect(
        statuses.some((s) => s < 300),
        statuses.join(' '),
      ).toBe(true);
    });
  }
});

/** The list's query parameters as one object schema. */
function listQuerySchema(op: unknown): Schema {
  const params = ((op as { parameters?: Array<{ name: string; in: string; schema: Schema }> }).parameters ?? []).filter(
    (p) => p.in === 'query',
  );
  return { type: 'object', properties: Object.fromEntries(params.map((p) => [p.name, p.schema])), required: [] };
}
