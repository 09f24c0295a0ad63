/** A failure the service answers with its error body; thrown by domain functions, mapped by the server. */
import type { FieldError } from '../../contract/errors.js';

export class ServiceError extends Error {
  readonly status: number;
  readonly code: string;
  readonly extra: { id?: string; required_scope?: string; details?: FieldError[] };
  readonly headers: Record<string, string>;
  constructor(status: number, code: string, message: string, extra: ServiceError['extra'] = {}, headers: Record<string, string> = {}) {
    super(message);
    this.name = 'ServiceError';
    this.status = status;
    this.code = code;
    this.extra = extra;
    this.headers = headers;
  }
}

export function invalidRequest(details: FieldError[], message?: string): ServiceError {
  const first = details[0];
  const text =
    message ??
    (first ? `${first.field} ${first.message}` + (details.length > 1 ? ` (and ${details.length - 1} more)` : '') : 'invalid request');
  return new ServiceError(400, 'invalid_request', text, { details });
}

export function notFound(what: string): ServiceError {
  return new ServiceError(404, 'not_found', `${what} not found`);
}
