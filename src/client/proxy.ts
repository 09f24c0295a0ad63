/**
 * Proxies, as curl, npm and undici read them: `https_proxy`/`HTTPS_PROXY` for https: addresses,
 * `http_proxy`/`HTTP_PROXY` for http: ones (and for https: when no HTTPS proxy is set), and
 * `no_proxy`/`NO_PROXY` listing hosts reached directly (comma- or space-separated; `*` for all; a
 * name matches itself and its subdomains, a leading `.` or `*.` ignored; `host:port` only that
 * port). The lower-case name wins when both are set, as in undici's EnvHttpProxyAgent, whose
 * rules `proxyFor` mirrors (the transport hands the same values to it). Like curl and undici, a
 * loopback address goes through the proxy unless NO_PROXY lists it; the embedded sandbox is
 * always reached directly (the wiring gives it no proxy).
 */

export interface ProxySettings {
  httpProxy?: string;
  httpsProxy?: string;
  noProxy?: string;
}

type Env = Record<string, string | undefined>;

function nonEmpty(v: string | undefined): string | undefined {
  return v !== undefined && v.trim() !== '' ? v.trim() : undefined;
}

/** The proxy variables of an environment; undefined when none is set. */
export function proxySettings(env: Env): ProxySettings | undefined {
  const httpProxy = nonEmpty(env.http_proxy) ?? nonEmpty(env.HTTP_PROXY);
  const httpsProxy = nonEmpty(env.https_proxy) ?? nonEmpty(env.HTTPS_PROXY);
  const noProxy = env.no_proxy ?? env.NO_PROXY;
  if (httpProxy === undefined && httpsProxy === undefined) return undefined;
  return { httpProxy, httpsProxy, noProxy };
}

const DEFAULT_PORTS: Record<string, number> = { 'http:': 80, 'https:': 443 };

/** The proxy a request to `url` goes through (its URL as configured, credentials included), or undefined for a direct connection. */
export function proxyFor(url: string | URL, settings: ProxySettings | undefined): string | undefined {
  if (settings === undefined) return undefined;
  const u = typeof url === 'string' ? new URL(url) : url;
  const proxy = u.protocol === 'https:' ? (settings.httpsProxy ?? settings.httpProxy) : settings.httpProxy;
  if (proxy === undefined) return undefined;
  const hostname = u.host.replace(/:\d*$/, '').toLowerCase();
  const port = Number.parseInt(u.port, 10) || DEFAULT_PORTS[u.protocol] || 0;
  return bypassesProxy(hostname, port, settings.noProxy ?? '') ? undefined : proxy;
}

/** Whether NO_PROXY lists the host (itself or a parent domain, on any port or on this one). */
function bypassesProxy(hostname: string, port: number, noProxy: string): boolean {
  if (noProxy === '*') return true;
  for (const raw of noProxy.split(/[,\s]/)) {
    if (!raw) continue;
    const m = /^(.+):(\d+)$/.exec(raw);
    const host = (m ? (m[1] as string) : raw).replace(/^\*?\./, '').toLowerCase();
    const entryPort = m ? Number.parseInt(m[2] as string, 10) : 0;
    if (entryPort && entryPort !== port) continue;
    if (hostname === host || hostname.endsWith(`.${host}`)) return true;
  }
  return false;
}

/** A proxy URL as it may be shown: scheme, host and port, never its user name or password. */
export function displayProxy(proxy: string): string {
  try {
    const u = new URL(proxy);
    return `${u.protocol}//${u.host}`;
  } catch {
    return '(an unreadable proxy address)';
  }
}

/** The secrets of a proxy URL (its password, and the user info whole), for the run's redactor. */
export function proxySecrets(proxy: string): string[] {
  try {
    const u = new URL(proxy);
    const out: string[] = [];
    if (u.password) out.push(u.password, decodeURIComponent(u.password));
    if (u.username && u.password) out.push(`${u.username}:${u.password}`);
    return out;
  } catch {
    return [];
  }
}

/** Checks a proxy URL: an http: or https: address; the message names the variable, never the value. */
export function checkProxyUrl(proxy: string, variable: string): string | undefined {
  let u: URL;
  try {
    u = new URL(proxy);
  } catch {
    return `${variable} is not a URL (expected http://host:port)`;
  }
  // The scheme read is not shown: in `user:pass@host:3128` (no scheme) URL reads the user name as one.
  if (u.protocol !== 'http:' && u.protocol !== 'https:')
    return `${variable} must be an http:// or https:// address (e.g. http://host:3128)`;
  return undefined;
}
