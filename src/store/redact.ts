/**
 * Redaction: masks secrets in any text before it reaches a terminal, a log or an error.
 * Each run owns one Redactor (context.ts): the secret values it learns (from the store, the
 * environment, the client, a login) are registered there; well-known patterns are masked too.
 */

const MASK = '[REDACTED]';

/** Keys whose values are secrets wherever they appear (JSON bodies, forms, headers, objects). */
export const SECRET_KEYS = [
  'client_secret',
  'clientSecret',
  'access_token',
  'accessToken',
  'api_token',
  'apiToken',
  'token',
  'authorization',
  'x-service-integration-token',
  'integration_token',
  'integrationToken',
  'password',
  'secret',
];

/**
 * `Bearer xxx` / `Basic xxx`: masked unless the value is a plain lower-case word, so prose such as
 * "the bearer token is expired" or "Basic authentication failed" stays readable. Credentials
 * (random tokens, base64) always have a digit, an upper-case letter or a symbol.
 */
const AUTH_SCHEME = /\b(Bearer|Basic)\s+([A-Za-z0-9\-._~+/=]+)/gi;

const PATTERNS: Array<[RegExp, string]> = [
  // form / query fields: client_secret=xxx&...
  [/\b(client_secret|access_token|token|secret)=([^&\s"']+)/gi, `$1=${MASK}`],
  // JSON fields: "client_secret": "xxx"
  [/"(client_secret|access_token|token|api_token|secret|integration_token)"\s*:\s*"[^"]*"/gi, `"$1":"${MASK}"`],
  // header lines: x-service-integration-token: xxx
  [/\b(x-service-integration-token|authorization)(["']?\s*[:=]\s*["']?)(?!(?:Bearer|Basic)\s)[^\s"',}]+/gi, `$1$2${MASK}`],
];

export class Redactor {
  private readonly secrets = new Set<string>();

  /** Registers a secret value so that it is masked wherever it appears. */
  add(secret: string | undefined | null): void {
    if (secret && secret.length >= 4) this.secrets.add(secret);
  }

  /** Masks registered secrets and well-known secret patterns in a text. */
  redact(text: string): string {
    let out = text;
    for (const s of this.secrets) {
      if (out.includes(s)) out = out.split(s).join(MASK);
      const encoded = encodeURIComponent(s);
      if (encoded !== s && out.includes(encoded)) out = out.split(encoded).join(MASK);
    }
    out = out.replace(AUTH_SCHEME, (all, scheme: string, value: string) => (/^[a-z]+$/.test(value) ? all : `${scheme} ${MASK}`));
    for (const [re, rep] of PATTERNS) out = out.replace(re, rep);
    return out;
  }

  /** A deep copy of an object with secret-keyed values masked (for debug dumps). */
  redactObject<T>(value: T): T {
    return redactValue(value, this) as T;
  }
}

function redactValue(value: unknown, r: Redactor): unknown {
  if (typeof value === 'string') return r.redact(value);
  if (Array.isArray(value)) return value.map((v) => redactValue(v, r));
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      out[k] = SECRET_KEYS.includes(k) || SECRET_KEYS.includes(k.toLowerCase()) ? (v ? MASK : v) : redactValue(v, r);
    }
    return out;
  }
  return value;
}

/** Masks a secret for display: the first 4 characters then asterisks (never the whole value). */
export function maskSecret(secret: string | undefined): string {
  if (!secret) return '';
  if (secret.length <= 8) return '********';
  return `${secret.slice(0, 4)}${'*'.repeat(8)}`;
}
