/** Small HTTP helpers shared by the service routes and the admin routes. */
import type { FastifyReply } from 'fastify';
import type { FieldError } from '../contract/errors.js';
import { invalidRequest, ServiceError } from './domain/errors.js';

export const JSON_TYPE = 'application/json; charset=utf-8';

export function sendJson(reply: FastifyReply, status: number, body: unknown, headers?: Record<string, string>): FastifyReply {
  reply.code(status).header('content-type', JSON_TYPE);
  if (headers) reply.headers(headers);
  return reply.send(JSON.stringify(body));
}

/** The service's error body, with the request id. */
export function sendError(reply: FastifyReply, e: ServiceError): FastifyReply {
  const error: Record<string, unknown> = { code: e.code, message: e.message, ...e.extra, request_id: reply.request.id };
  return sendJson(reply, e.status, { error }, e.headers);
}

const MAX_DEPTH = 64;

/**
 * Rejects what JSON.parse lets through but a store should not take: lone surrogates, NUL
 * characters, and nesting deeper than 64 levels. Returns the first problem found.
 */
export function oddJson(value: unknown, path = '(body)', depth = 0): FieldError | undefined {
  if (depth > MAX_DEPTH) return { field: path, message: `is nested more than ${MAX_DEPTH} levels deep` };
  if (typeof value === 'string') return oddString(value, path);
  if (typeof value !== 'object' || value === null) return undefined;
  if (Array.isArray(value)) return oddItem(value, path, depth);
  return oddMember(value as Record<string, unknown>, path, depth);
}

/** The first problem in an array's items. */
function oddItem(items: unknown[], path: string, depth: number): FieldError | undefined {
  for (let i = 0; i < items.length; i++) {
    const p = oddJson(items[i], `${path}[${i}]`, depth + 1);
    if (p) return p;
  }
  return undefined;
}

/** The first problem in an object's keys and values (a top-level member is named by its key alone). */
function oddMember(object: Record<string, unknown>, path: string, depth: number): FieldError | undefined {
  for (const key of Object.keys(object)) {
    const field = depth === 0 ? key : `${path}.${key}`;
    const p = oddString(key, field) ?? oddJson(object[key], field, depth + 1);
    if (p) return p;
  }
  return undefined;
}

function oddString(s: string, field: string): FieldError | undefined {
  if (!(s as unknown as { isWellFormed(): boolean }).isWellFormed())
    return { field, message: 'contains a lone UTF-16 surrogate (not valid Unicode)' };
  if (s.includes('\u0000')) return { field, message: 'contains a NUL character' };
  return undefined;
}

const decoder = new TextDecoder('utf-8', { fatal: true });

/** Parses a JSON body: undefined when empty; ServiceError invalid_json or invalid_request otherwise. */
export function parseJsonBody(raw: Buffer): unknown {
  if (raw.length === 0) return undefined;
  let text: string;
  try {
    text = decoder.decode(raw);
  } catch {
    throw new ServiceError(400, 'invalid_json', 'the body is not valid UTF-8');
  }
  if (text.trim() === '') return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw new ServiceError(400, 'invalid_json', `the body is not valid JSON: ${(e as Error).message}`);
  }
  const odd = oddJson(value);
  if (odd) throw invalidRequest([odd]);
  return value;
}

/** A form body as field → value, or field → values when repeated. */
export function parseFormBody(raw: Buffer): Record<string, string | string[]> {
  let text: string;
  try {
    text = decoder.decode(raw);
  } catch {
    throw new ServiceError(400, 'invalid_request', 'the body is not valid UTF-8');
  }
  const out: Record<string, string | string[]> = Object.create(null);
  for (const [k, v] of new URLSearchParams(text)) {
    const prev = out[k];
    out[k] = prev === undefined ? v : Array.isArray(prev) ? [...prev, v] : [prev, v];
  }
  const odd = oddJson(out);
  if (odd) throw invalidRequest([odd]);
  return out;
}

export function isLoopback(address: string | undefined): boolean {
  return address === '127.0.0.1' || address === '::1' || address === '::ffff:127.0.0.1' || (address?.startsWith('127.') ?? false);
}
