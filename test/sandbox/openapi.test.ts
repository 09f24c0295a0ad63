/** The OpenAPI document: generated from the route table, served without a token, checked in and current. */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildOpenApi } from '../../src/sandbox/openapi.js';
import { ROUTES } from '../../src/sandbox/routes.js';
import { http, type TestSandbox, withSandbox } from '../helpers/sandbox.js';

let sb: TestSandbox;
beforeAll(async () => {
  sb = await withSandbox();
});
afterAll(() => sb.close());

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
