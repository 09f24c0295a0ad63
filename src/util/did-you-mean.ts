/**
 * "Did you mean …?" for a mistyped value (`--email-consent supressed`): the closest allowed value
 * by edit distance (a swap of two neighbours counts one edit, as a typist makes it), when it is
 * close enough to be the one meant; a prefix of exactly one value counts too.
 */

/** Optimal string alignment distance: insertions, deletions, substitutions and adjacent swaps. */
export function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) (d[0] as number[])[j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      const row = d[i] as number[];
      const prev = d[i - 1] as number[];
      row[j] = Math.min((prev[j] as number) + 1, (row[j - 1] as number) + 1, (prev[j - 1] as number) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        row[j] = Math.min(row[j] as number, ((d[i - 2] as number[])[j - 2] as number) + 1);
      }
    }
  }
  return (d[a.length] as number[])[b.length] as number;
}

/** The allowed value most likely meant by `value`, or undefined when none is close. */
export function closest(value: string, allowed: readonly string[]): string | undefined {
  const v = value
    .trim()
    .toLowerCase()
    .replace(/[\s-]+/g, '_');
  if (v === '') return undefined;
  const prefixed = allowed.filter((a) => a.startsWith(v));
  if (prefixed.length === 1) return prefixed[0];
  let best: string | undefined;
  let bestDistance = Number.POSITIVE_INFINITY;
  for (const a of allowed) {
    const dist = editDistance(v, a.toLowerCase());
    if (dist < bestDistance) {
      best = a;
      bestDistance = dist;
    }
  }
  // Within a third of the word (at least one edit): "supressed" → "suppressed", not "xyz" → anything.
  return best !== undefined && bestDistance <= Math.max(1, Math.floor(best.length / 3)) ? best : undefined;
}

/** ` (did you mean "suppressed"?)`, or nothing. */
export function didYouMean(value: string, allowed: readonly string[]): string {
  const c = closest(value, allowed);
  return c !== undefined && c !== value ? ` (did you mean ${JSON.stringify(c)}?)` : '';
}
