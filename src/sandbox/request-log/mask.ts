/** Secrets and tokens masked out of logged bodies and query strings, before any entry leaves the sandbox. */

export const MASK = '***';

/** Field and parameter names whose values are secrets (client_secret, access_token, token, integration_token…). */
export const SECRET_NAME =
  /^(client_secret|secret|password|token|access_token|refresh_token|api_token|integration_token)$|_(secret|token)$/i;

/** Anything shaped like one of the sandbox's secrets (cs_, sk_, at_, it_ + 32 random bytes), wherever it appears. */
export const SECRET_VALUE = /\b(cs|sk|at|it)_[A-Za-z0-9_-]{20,}/g;

/** A JSON "name": "value" pair with a secret's name, for text that does not parse (cut or invalid). */
const JSON_PAIR = /("([A-Za-z_]*(?:secret|token|password)[A-Za-z_]*)"\s*:\s*)"(?:[^"\\]|\\.)*("|$)/gi;

function maskValues(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(maskValues);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[k] = SECRET_NAME.test(k) && typeof v === 'string' ? MASK : maskValues(v);
  return out;
}

/** A JSON text with every secret-named field's value masked; text that does not parse is masked by pattern. */
export function maskJson(text: string): string {
  try {
    return JSON.stringify(maskValues(JSON.parse(text))).replace(SECRET_VALUE, `$1_${MASK}`);
  } catch {
    return text.replace(JSON_PAIR, `$1"${MASK}$3`).replace(SECRET_VALUE, `$1_${MASK}`);
  }
}

/** A form or query string with secret-named parameters masked. */
export function maskForm(text: string): string {
  return text
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      if (eq < 0) return pair;
      let name: string;
      try {
        name = decodeURIComponent(pair.slice(0, eq).replace(/\+/g, ' '));
      } catch {
        name = pair.slice(0, eq);
      }
      return SECRET_NAME.test(name) ? `${pair.slice(0, eq)}=${MASK}` : pair;
    })
    .join('&')
    .replace(SECRET_VALUE, `$1_${MASK}`);
}

/** A body of any type, masked for its content type. */
export function maskBody(text: string, contentType: string | undefined): string {
  const essence = contentType?.split(';', 1)[0]?.trim().toLowerCase();
  if (essence === 'application/x-www-form-urlencoded') return maskForm(text);
  if (essence === 'application/json' || /^\s*[[{]/.test(text)) return maskJson(text);
  return text.replace(SECRET_VALUE, `$1_${MASK}`);
}
