/** Error codes of the service (spec "Errors" and open-points "Status codes and error codes"). */

export const ERROR_CODES = {
  invalidJson: 'invalid_json',
  invalidRequest: 'invalid_request',
  unauthorized: 'unauthorized',
  insufficientScope: 'insufficient_scope',
  invalidIntegrationToken: 'invalid_integration_token',
  notFound: 'not_found',
  contactExists: 'contact_exists',
  payloadTooLarge: 'payload_too_large',
  unsupportedMediaType: 'unsupported_media_type',
  complianceSuppressed: 'compliance_suppressed',
  rateLimited: 'rate_limited',
  internalError: 'internal_error',
  unavailable: 'unavailable',
  invalidClient: 'invalid_client',
  invalidScope: 'invalid_scope',
  unsupportedGrantType: 'unsupported_grant_type',
} as const;

export type ErrorCode = (typeof ERROR_CODES)[keyof typeof ERROR_CODES];

/** One problem with one field of a request, as in `error.details`. */
export interface FieldError {
  field: string;
  message: string;
}

/** The service's error body: `{"error": {...}}`. */
export interface ErrorBody {
  error: {
    code: string;
    message: string;
    id?: string;
    request_id?: string;
    required_scope?: string;
    details?: FieldError[];
  };
}

/**
 * An error's message followed by the details it does not already say, for one line of output:
 * the service's message often is its first detail ("event_type contains a NUL character"), which
 * must not be printed twice.
 */
export function messageWithDetails(message: string, details: readonly FieldError[] | undefined): string {
  const extra = (details ?? []).map((d) => `${d.field} ${d.message}`).filter((d) => !message.includes(d));
  return extra.length > 0 ? `${message}: ${extra.join('; ')}` : message;
}
