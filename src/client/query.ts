/** A query string ("?a=1&b=x&b=y", or "" when nothing is set); empty and undefined values are left out. */
export function queryString(params: Record<string, string | number | string[] | undefined>): string {
  let q = '';
  for (const [k, v] of Object.entries(params)) {
    if (v === undefined || v === '') continue;
    for (const one of Array.isArray(v) ? v : [v]) q += `${q ? '&' : '?'}${encodeURIComponent(k)}=${encodeURIComponent(String(one))}`;
  }
  return q;
}
