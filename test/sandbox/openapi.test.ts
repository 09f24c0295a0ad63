/** The OpenAPI document: generated from the route table, served without a token, checked in and current. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { buildOpenApi } from '../../src/sandbox/openapi.js';
import { ROUTES } from '../../src/sandbox/routes.js';
import { http, type TestSandbox, useSandbox } from '../helpers/sandbox.js';

let sb: TestSandbox;
useSandbox((s) => ({ sb } = s));

const checkedIn = () => readFileSync(new URL('../../docs/openapi.json', import.meta.url), 'utf8');

describe('OpenAPI document', () => {
  it('docs/openapi.json is current (regenerate with npm run openapi)', () => {
    expect(checkedIn()).toBe(`${JSON.stringify(buildOpenApi(), null, 2)}\n`);
  });

  it('GET /openapi.json serves the same document without a token', async () => {
    const r = await http(sb.baseUrl, 'GET', '/openapi.json');
    expect(r.status).toBe(200);
    expect(r.text).toBe(checkedIn());
  });

  it('is OpenAPI 3.1 and describes every service route, not the admin surface', () => {
    const doc = buildOpenApi() as { openapi: string; paths: Record<string, Record<string, unknown>> };
    expect(doc.openapi).toBe('3.1.0');
    for (const r of ROUTES) expect(doc.paths[r.url.replace(/:([a-z_]+)/g, '{$1}')]?.[r.method.toLowerCase()], r.operationId).toBeDefined();
    expect(Object.keys(doc.paths).some((p) => p.startsWith('/_sandbox'))).toBe(false);
  });

  it('marks the deprecated unsubscribe and the open-points decisions', () => {
    const text = JSON.stringify(buildOpenApi());
    const doc = buildOpenApi() as { paths: Record<string, Record<string, { deprecated?: boolean }>> };
    expect(doc.paths['/v1/contacts/{id}/unsubscribe']?.post?.deprecated).toBe(true);
    expect(text.match(/Sandbox decision:/g)?.length).toBeGreaterThan(20);
  });

  it('every $ref resolves inside the document', () => {
    const doc = buildOpenApi() as { components: { schemas: Record<string, unknown> } };
    const refs = [...JSON.stringify(doc).matchAll(/"\$ref":"#\/components\/schemas\/([A-Za-z]+)"/g)].map((m) => m[1] as string);
    expect(refs.length).toBeGreaterThan(0);
    for (const ref of refs) expect(doc.components.schemas[ref], ref).toBeDefined();
  });
});

describe('OpenAPI document: every answer documented', () => {
  type Op = { parameters?: Array<{ in: string; schema: { maxLength?: number } }>; responses: Record<string, unknown> };
  const doc = buildOpenApi() as { paths: Record<string, Record<string, Op>>; components: { schemas: Record<string, unknown> } };

  it('ids in paths carry their maxLength, and an id over it is a documented 400', async () => {
    for (const [path, ops] of Object.entries(doc.paths)) {
      for (const op of Object.values(ops)) {
        for (const p of op.parameters?.filter((x) => x.in === 'path') ?? []) expect(p.schema.maxLength, path).toBe(1024);
        if (path.includes('{id}')) expect(op.responses['400'], path).toBeDefined();
      }
    }
    const token = await sb.tokenWithAllScopes();
    expect((await http(sb.baseUrl, 'GET', `/v1/contacts/${'x'.repeat(1024)}`, { token })).status).toBe(404);
    expect((await http(sb.baseUrl, 'GET', `/v1/contacts/${'x'.repeat(1025)}`, { token })).status).toBe(400);
  });

  it('the token endpoint documents its 413, every operation its 431', () => {
    expect(doc.paths['/oauth/token']?.post?.responses['413']).toBeDefined();
    for (const ops of Object.values(doc.paths)) for (const op of Object.values(ops)) expect(op.responses['431']).toBeDefined();
  });

  it('order_id says what the sandbox accepts: a string, or a whole number from 0 to 2^53-1', () => {
    const orderId = (doc.components.schemas.OrderInput as { properties: { order_id: { anyOf: unknown[] } } }).properties.order_id;
    expect(orderId.anyOf).toContainEqual({ type: 'string', minLength: 1, maxLength: 255 });
    expect(orderId.anyOf).toContainEqual({ type: 'integer', minimum: 0, maximum: Number.MAX_SAFE_INTEGER });
  });
});
