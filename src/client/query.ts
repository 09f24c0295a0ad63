import { ApiError } from './errors.js';

/** A query string ("?a=1&b=x&b=y", or "" when nothing is set); empty and undefined values are left out. */
export function queryString(params: Record<string, string | number | string[] | undefined>): string {
  let q = '';
  for (const [k, v] of Object.entries(params)) {
    if (v === undefined || v === '') continue;
    for (const one of Array.isArray(v) ? v : [v]) q += `${q ? '&' : '?'}${encodeURIComponent(k)}=${encodeURIComponent(String(one))}`;
  }
  return q;
}

/**
 * A next-page URL (absolute, or an absolute path as a Link header may give) as a path relative
 * to the base URL: a path already under the base URL's own path prefix is not prefixed twice. A
 * page on another origin is refused: the credentials would go there.
 */
export function sameOriginPath(url: string, origin: string, prefix: string): string {
  const u = new URL(url, `${origin}/`);
  if (u.origin !== origin) {
    throw new ApiError({
      status: 0,
      code: 'foreign_next_page',
      message: `the service pointed the next page at another origin (${u.origin}); refusing to send credentials there`,
    });
  }
  const p = u.pathname.startsWith(prefix) ? u.pathname : `${prefix}${u.pathname}`;
  return `${p.slice(prefix.length)}${u.search}`;
}
