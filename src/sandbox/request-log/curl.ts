/**
 * A logged request as a curl command (the admin API's copy-as-curl): the same method, URL,
 * headers that matter and body, with every secret replaced by a shell variable the user sets
 * ($SVC_TOKEN, $SVC_CLIENT_SECRET…), so the text never holds one.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { maskForm, SECRET_NAME, SECRET_VALUE } from './mask.js';
import type { LoggedRequest } from './ring.js';

export interface CurlVariable {
  name: string;
  /** What to set it to, in words. */
  for: string;
}

export interface CurlText {
  curl: string;
  variables: CurlVariable[];
  /** The body was cut at 16 KiB in the log: the command sends the cut body. */
  truncated: boolean;
}

/** Headers a replay or a curl command sends again (the rest is the client's own: host, length, agent…). */
const KEPT = /^(content-type|accept|idempotency-key|x-service-[a-z-]+)$/;
/** A placeholder for a variable inside text, turned into $NAME once the text is quoted. */
const VAR = (name: string) => `\u0000${name}\u0000`;

/** Text in double quotes for a POSIX shell, the placeholders left as variables. */
function quoted(text: string): string {
  const escaped = text.replace(/[\\"$`]/g, (c) => `\\${c}`).replace(/\u0000([A-Z_]+)\u0000/g, (_m, name: string) => `\${${name}}`);
  return `"${escaped}"`;
}

/** Single quotes when no variable is inside (nothing expands), double quotes otherwise. */
function shellWord(text: string): string {
  if (text.includes('\u0000')) return quoted(text);
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

function secretJson(value: unknown, secret: string): unknown {
  if (Array.isArray(value)) return value.map((v) => secretJson(v, secret));
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[k] = SECRET_NAME.test(k) && typeof v === 'string' ? secret : secretJson(v, secret);
  return out;
}

function bodyText(e: LoggedRequest, vars: Map<string, string>): string | undefined {
  if (e.requestBody === undefined) return undefined;
  const text = e.requestBody.toString('utf8');
  const essence = e.requestType?.split(';', 1)[0]?.trim().toLowerCase();
  const secret = VAR('SVC_SECRET');
  let out: string;
  if (essence === 'application/x-www-form-urlencoded') {
    out = text
      .split('&')
      .map((pair) => {
        const eq = pair.indexOf('=');
        const name = eq < 0 ? pair : pair.slice(0, eq);
        if (eq >= 0 && name === 'client_secret') {
          vars.set('SVC_CLIENT_SECRET', 'the client secret of the OAuth app');
          return `${name}=${VAR('SVC_CLIENT_SECRET')}`;
        }
        return maskForm(pair) === pair ? pair : `${name}=${secret}`;
      })
      .join('&');
  } else {
    try {
      out = JSON.stringify(secretJson(JSON.parse(text), secret));
    } catch {
      out = text;
    }
  }
  out = out.replace(SECRET_VALUE, secret);
  if (out.includes(secret)) vars.set('SVC_SECRET', 'the secret the original request sent in its body');
  return out;
}

function authorization(h: IncomingHttpHeaders, e: LoggedRequest, vars: Map<string, string>): string[] {
  const auth = h.authorization;
  if (auth === undefined) return [];
  const basic = /^Basic +([A-Za-z0-9+/=]+) *$/i.exec(auth);
  if (basic) {
    const decoded = Buffer.from(basic[1] as string, 'base64').toString('utf8');
    const clientId = decoded.slice(0, Math.max(0, decoded.indexOf(':')));
    vars.set('SVC_CLIENT_SECRET', 'the client secret of the OAuth app');
    return ['-u', quoted(`${clientId}:${VAR('SVC_CLIENT_SECRET')}`)];
  }
  if (/^Bearer /i.test(auth)) {
    const who = e.credential.name
      ? `${e.credential.kind === 'oauth_app' ? 'OAuth app' : 'API token'} ${e.credential.name} (${e.credential.id})`
      : 'the caller';
    vars.set('SVC_TOKEN', `a bearer token of ${who}`);
    return ['-H', quoted(`Authorization: Bearer ${VAR('SVC_TOKEN')}`)];
  }
  vars.set('SVC_AUTHORIZATION', 'the Authorization header value the original request sent');
  return ['-H', quoted(`Authorization: ${VAR('SVC_AUTHORIZATION')}`)];
}

/** Headers worth sending again (besides Authorization), as received. */
export function sentAgain(h: IncomingHttpHeaders): [string, string][] {
  return Object.entries(h).filter((p): p is [string, string] => KEPT.test(p[0]) && typeof p[1] === 'string');
}

/** Headers worth sending again, by name as received (lower case); secrets as variables. */
function keptHeaders(h: IncomingHttpHeaders, vars: Map<string, string>): [string, string][] {
  const out: [string, string][] = [];
  for (const [name, value] of Object.entries(h)) {
    if (!KEPT.test(name) || typeof value !== 'string') continue;
    if (name === 'x-service-integration-token') {
      vars.set('SVC_INTEGRATION_TOKEN', 'the integration token (Settings, Integrations, Reveal)');
      out.push([name, VAR('SVC_INTEGRATION_TOKEN')]);
    } else out.push([name, value]);
  }
  return out;
}

/** The curl command of a logged request sent to `baseUrl` (no trailing slash). */
export function curlOf(e: LoggedRequest, baseUrl: string): CurlText {
  const vars = new Map<string, string>();
  const h = e.headers ?? {};
  const url = `${baseUrl}${e.path}${e.query === '' ? '' : `?${maskForm(e.query)}`}`;
  const parts: string[][] = [[e.method === 'GET' ? 'curl' : `curl -X ${e.method}`, shellWord(url)]];
  parts.push(authorization(h, e, vars));
  for (const [name, value] of keptHeaders(h, vars)) parts.push(['-H', shellWord(`${name}: ${value}`)]);
  const body = bodyText(e, vars);
  if (body !== undefined) parts.push(['--data-raw', shellWord(body)]);
  const lines = parts.filter((p) => p.length > 0).map((p) => p.join(' '));
  return {
    curl: lines.join(' \\\n  '),
    variables: [...vars].map(([name, what]) => ({ name, for: what })),
    truncated: e.requestBody !== undefined && e.requestBytes > e.requestBody.length,
  };
}
