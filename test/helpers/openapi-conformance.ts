/**
 * Checks the sandbox's answers against the OpenAPI document it serves (docs/openapi.json, kept
 * equal to GET /openapi.json by test/sandbox/openapi.test.ts): the status is one the operation
 * documents, and the body matches the documented schema. Used by withSandbox() as a hook on every
 * answer, so a handler and the document cannot disagree silently in any test.
 */
import { readFileSync } from 'node:fs';
import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { buildAdminOpenApi } from '../../src/sandbox/admin-openapi.js';
import type { SentAnswer } from '../../src/sandbox/deps.js';

type Operation = { responses: Record<string, { content?: Record<string, { schema: unknown }> }> };
export type OpenApiDoc = { paths: Record<string, Record<string, Operation>>; components: Record<string, unknown> };

export const openApiDoc: OpenApiDoc = JSON.parse(readFileSync(new URL('../../docs/openapi.json', import.meta.url), 'utf8'));

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;
const ajv = new Ajv({ strict: false, allErrors: true });
addFormats(ajv);
// JSON Schema's idn-email (ajv-formats has only the ASCII email): one @, no spaces.
ajv.addFormat('idn-email', /^[^\s@]+@[^\s@]+$/u);
ajv.addSchema({ $id: 'openapi.json', components: openApiDoc.components });

/** The admin API's document (GET /_sandbox/openapi.json): admin answers are checked against it. */
export const adminOpenApiDoc = buildAdminOpenApi() as unknown as OpenApiDoc;

/** A document's path templates as patterns, e.g. /v1/contacts/{id} → ^/v1/contacts/[^/]+$ (static paths first). */
const templatesOf = (doc: OpenApiDoc) =>
  Object.keys(doc.paths)
    .sort((a, b) => Number(a.includes('{')) - Number(b.includes('{')))
    .map((template) => ({ doc, template, pattern: new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}$`) }));
const templates = [...templatesOf(openApiDoc), ...templatesOf(adminOpenApiDoc)];

/** The operation an answer belongs to: its path template and method, if a document has one. */
export function operationOf(method: string, url: string): { template: string; op: Operation } | undefined {
  const path = url.split('?', 1)[0] as string;
  for (const t of templates) {
    if (!t.pattern.test(path)) continue;
    const op = t.doc.paths[t.template]?.[method.toLowerCase()];
    return op ? { template: t.template, op } : undefined;
  }
  return undefined;
}

const validators = new Map<string, ValidateFunction>();

function validatorFor(template: string, method: string, status: string, schema: unknown): ValidateFunction {
  const key = `${method} ${template} ${status}`;
  let v = validators.get(key);
  if (!v) {
    // Refs in the document are #/components/schemas/X: resolve them in the document's components.
    const text = JSON.stringify(schema).replaceAll('"#/components/', '"openapi.json#/components/');
    v = ajv.compile(JSON.parse(text));
    validators.set(key, v);
  }
  return v;
}

/** What is wrong with one answer, or undefined when the document describes it. */
export function answerProblem(a: SentAnswer): string | undefined {
  const found = operationOf(a.method, a.url);
  if (!found) return undefined;
  const where = `${a.method} ${found.template} answered ${a.status}`;
  const res = found.op.responses[String(a.status)] ?? found.op.responses.default;
  if (!res) return `${where}, a status the document does not list: ${a.body.slice(0, 300)}`;
  // A body of another type the operation lists (NDJSON of an export) has no JSON schema to check.
  const type = a.contentType?.split(';', 1)[0]?.trim().toLowerCase();
  if (type !== undefined && type !== 'application/json' && res.content?.[type] !== undefined) return undefined;
  const schema = res.content?.['application/json']?.schema;
  if (!schema) return a.body === '' ? undefined : `${where} with a body the document does not describe`;
  let body: unknown;
  try {
    body = JSON.parse(a.body);
  } catch {
    return `${where} with a body that is not JSON: ${a.body.slice(0, 200)}`;
  }
  const validate = validatorFor(found.template, a.method, String(a.status), schema);
  if (validate(body)) return undefined;
  return `${where} with a body off its schema (${ajv.errorsText(validate.errors)}): ${a.body.slice(0, 300)}`;
}
