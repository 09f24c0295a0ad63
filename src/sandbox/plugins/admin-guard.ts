/**
 * What keeps a web page the developer visits away from the admin API and the dashboard (DNS
 * rebinding, cross-site requests, framing) and, with an admin token, lets another machine in.
 * The service's own routes (/v1, /oauth/token, /openapi.json) do not use it: they have their own
 * credentials and answer any Host.
 *
 * - Host must be a loopback name or address (localhost, *.localhost, 127.0.0.0/8, [::1], any
 *   port: local proxies forward their own), the address the sandbox was bound to, or a name given
 *   with --allowed-host. A rebound name (evil.example → 127.0.0.1) is refused with 403.
 * - The admin API refuses a request whose Origin is present and not the sandbox's own, or whose
 *   Sec-Fetch-Site is cross-site (a page's fetch, form or beacon, bodyless POSTs included).
 *   curl and scripts send neither header and are unchanged.
 * - A client off the loopback interface is answered only when an admin token was set; with one
 *   set, every request must carry it (header, or the dashboard's cookie).
 */
import { timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ServiceError } from '../domain/errors.js';
import { isLoopback, sendError } from '../http.js';

export interface AdminSecurity {
  /** The address the sandbox was bound to (--host): a Host naming it is accepted. */
  bindHost: string;
  /** More Host names accepted (--allowed-host), e.g. a tunnel's. */
  allowedHosts: readonly string[];
  /** With a wildcard bind (0.0.0.0, ::): this machine's addresses, accepted as Host (no rebinding yields an address). */
  localAddresses?: readonly string[];
  /** When set, required by the admin API and the dashboard, and what lets other machines in. */
  adminToken?: string;
}

/** The header scripts and `svc sandbox …` send the admin token in. */
export const ADMIN_TOKEN_HEADER = 'x-sandbox-admin-token';
/** The query parameter of the dashboard URL printed at start: exchanged for a cookie, then dropped from the address. */
export const ADMIN_TOKEN_PARAM = 'admin_token';

/** The dashboard's cookie, one per port (cookies do not tell ports apart). */
export function adminCookieName(port: number): string {
  return `svc_sandbox_admin_${port}`;
}

/** A Host header's name, lower-cased, without port or trailing dot; IPv6 in brackets. Undefined when malformed. */
export function hostName(host: string): string | undefined {
  try {
    const name = new URL(`http://${host}`).hostname.toLowerCase();
    return name.endsWith('.') ? name.slice(0, -1) : name;
  } catch {
    return undefined;
  }
}

function bracketed(address: string): string {
  return address.includes(':') && !address.startsWith('[') ? `[${address.toLowerCase()}]` : address.toLowerCase();
}

/** Whether a Host name is one the admin API and dashboard answer to. */
export function hostAccepted(name: string, security: AdminSecurity): boolean {
  if (name === 'localhost' || name.endsWith('.localhost') || name === '[::1]') return true;
  if (/^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(name)) return true;
  if (name === bracketed(security.bindHost)) return true;
  if (security.localAddresses?.some((a) => bracketed(a) === name)) return true;
  return security.allowedHosts.some((h) => (hostName(h) ?? h.toLowerCase()) === name);
}

/** Whether an Origin header is the sandbox's own: the Host asked for, or an accepted name on this port. */
export function originIsOwn(
  origin: string,
  hostHeader: string | undefined,
  localPort: number | undefined,
  security: AdminSecurity,
): boolean {
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false; // "null" (sandboxed frames, file:) and anything malformed
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return false;
  if (url.pathname !== '/' || url.search !== '' || url.username !== '') return false;
  if (hostHeader !== undefined && url.host === hostHeader.toLowerCase()) return true;
  const port = url.port === '' ? (url.protocol === 'https:' ? 443 : 80) : Number(url.port);
  return port === localPort && hostAccepted(url.hostname, security);
}

function sameSecret(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

function cookieValue(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

function refuse(reply: FastifyReply, status: number, code: string, message: string): void {
  sendError(reply, new ServiceError(status, code, message));
}

/** Which surface a guard protects: the admin API checks Origin and Sec-Fetch-Site too; the dashboard's pages can be opened from a link. */
export type GuardedSurface = 'admin' | 'dashboard';

/** Why a request is refused: its status, code and message. */
type Refusal = [status: number, code: string, message: string];
/** One check of the guard: a refusal, or undefined to go on. `what` names the surface in messages. */
type Check = (req: FastifyRequest, security: AdminSecurity, what: string) => Refusal | undefined;

/** Without an admin token, only loopback clients are answered. */
const onLoopback: Check = (req, security, what) =>
  security.adminToken === undefined && !isLoopback(req.socket.remoteAddress)
    ? [
        404,
        'not_found',
        `${what} answers on the loopback interface only (start the sandbox with --admin-token to reach it from another machine)`,
      ]
    : undefined;

/** The Host names this machine or an allowed name (DNS rebinding). No Host at all is HTTP/1.0 from a script: no browser sends that. */
const hostAllowed: Check = (req, security, what) => {
  const host = req.headers.host;
  if (host === undefined) return undefined;
  const name = hostName(host);
  if (name !== undefined && hostAccepted(name, security)) return undefined;
  const shown = JSON.stringify(host.slice(0, 100));
  return [
    403,
    'host_not_allowed',
    name === undefined
      ? `${what} cannot tell which name was asked for: Host ${shown} is malformed`
      : `${what} answers only to Host names of this machine (localhost, 127.0.0.1, [::1]) or the --host given; Host ${shown} is not one (if that name is yours, a tunnel or a proxy, start the sandbox with --allowed-host ${name})`,
  ];
};

/** The admin API refuses what a page of another site sends (CSRF). */
const notCrossSite: Check = (req, security, what) => {
  if (req.headers['sec-fetch-site'] === 'cross-site')
    return [403, 'cross_site_refused', `${what} refuses requests made by a page of another site (Sec-Fetch-Site: cross-site)`];
  const origin = req.headers.origin;
  if (origin === undefined || originIsOwn(origin, req.headers.host, req.socket.localPort, security)) return undefined;
  return [
    403,
    'origin_not_allowed',
    `${what} refuses requests from the page at ${JSON.stringify(origin.slice(0, 100))}: only the sandbox's own dashboard, curl and scripts may call it`,
  ];
};

const CHECKS: Record<GuardedSurface, Check[]> = {
  admin: [onLoopback, hostAllowed, notCrossSite],
  dashboard: [onLoopback, hostAllowed],
};

/** The onRequest hook of the admin API or the dashboard. */
export function adminGuard(security: AdminSecurity, surface: GuardedSurface) {
  const what = surface === 'admin' ? 'the admin API' : 'the dashboard';
  const checks = CHECKS[surface];
  return (req: FastifyRequest, reply: FastifyReply, done: () => void): void => {
    for (const check of checks) {
      const refusal = check(req, security, what);
      if (refusal) {
        refuse(reply, ...refusal);
        return;
      }
    }
    const token = security.adminToken;
    if (token !== undefined && !hasToken(req, reply, token)) return;
    done();
  };
}

/** Checks the admin token (header, or the dashboard's cookie); the dashboard's URL with ?admin_token= sets the cookie. */
function hasToken(req: FastifyRequest, reply: FastifyReply, token: string): boolean {
  const cookie = adminCookieName(req.socket.localPort ?? 0);
  const header = req.headers[ADMIN_TOKEN_HEADER];
  if (typeof header === 'string' && sameSecret(header, token)) return true;
  const fromCookie = cookieValue(req.headers.cookie, cookie);
  if (fromCookie !== undefined && sameSecret(fromCookie, token)) return true;
  const url = new URL(req.url, 'http://sandbox.localhost');
  const fromQuery = url.searchParams.get(ADMIN_TOKEN_PARAM);
  if (req.method === 'GET' && url.pathname === '/' && fromQuery !== null && sameSecret(fromQuery, token)) {
    // The token leaves the address bar (and the history) at once; the browser keeps it as a
    // cookie that no script reads and no other site's request carries.
    reply
      .code(303)
      .header('set-cookie', `${cookie}=${token}; Path=/; HttpOnly; SameSite=Strict`)
      .header('location', '/')
      .header('cache-control', 'no-store')
      .send();
    return false;
  }
  refuse(
    reply,
    401,
    'admin_token_required',
    `this sandbox requires its admin token: open the dashboard URL printed by \`svc sandbox start\`, or send it in the ${ADMIN_TOKEN_HEADER} header (svc sandbox … commands read it from the sandbox profile or SVC_SANDBOX_ADMIN_TOKEN)`,
  );
  return false;
}
