/**
 * Header names: how they are compared with field names (trimmed, lower case, spaces and dashes
 * as underscores), and the `--map` options proposed when required columns are missing.
 */

/** A header or field name as it is compared: `Order Date` → order_date. */
export function normalizeName(name: string): string {
  return name
    .trim()
    .toLowerCase()
    .replace(/[\s-]+/g, '_');
}

/** The words of a header or field name: `Grand Total` → grand, total; `order_id` → order, id. */
function words(name: string): string[] {
  return normalizeName(name.replace(/([a-z])([A-Z])/g, '$1_$2'))
    .split(/[^a-z0-9]+/)
    .filter((w) => w.length > 0);
}

/** Levenshtein distance, for header names one typo away from a field's (`totl`). */
function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      row[j] = Math.min((prev[j] as number) + 1, (row[j - 1] as number) + 1, (prev[j - 1] as number) + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    prev = row;
  }
  return prev[b.length] as number;
}

/**
 * How well a header name could hold a field: its name one or two typos away scores highest, then
 * a word of the field's name in it (`Order Total` for total), then one of the field's aliases
 * (`Amount`); 0 when nothing suggests it.
 */
function closeness(field: string, headerName: string, aliases: readonly string[]): number {
  const h = normalizeName(headerName);
  if (h.length > 2 && editDistance(h, field) <= Math.min(2, Math.floor(field.length / 4))) return 4;
  const hw = words(headerName);
  const fw = field.split('_').filter((w) => w !== 'id');
  // Words that belong to neither the field nor its aliases lower the score a little: for order_id,
  // "Order Number" beats "Order Date".
  const foreign = hw.filter((w) => !fw.includes(w) && !aliases.includes(w) && w !== 'id').length / 10;
  if (fw.length > 0 && fw.every((w) => hw.includes(w))) return 3 - foreign;
  if (fw.some((w) => hw.includes(w))) return 2 - foreign;
  if (aliases.some((a) => hw.includes(a) || h === a)) return 1;
  return 0;
}

/** A column name as the shell reads it back: "Grand Total" in double quotes unless it needs single ones. */
function quoteColumn(column: string): string {
  if (/^[\w.-]+$/.test(column)) return column;
  return /["$`\\!]/.test(column) ? `'${column.replace(/'/g, `'\\''`)}'` : `"${column}"`;
}

/**
 * The `--map` options that would fill the missing fields: each names its field and proposes the
 * closest unused column (`--map total="Grand Total"`), or `"<column>"` when none looks like it.
 * `"email or phone"` proposes whichever of the two has a likely column.
 */
export function suggestMaps(
  missing: readonly string[],
  header: readonly string[],
  used: ReadonlySet<number>,
  aliases: Partial<Record<string, readonly string[]>>,
): string {
  const taken = new Set(used);
  const maps: string[] = [];
  for (const label of missing) {
    const fields = label.split(' or ');
    let best: { field: string; column: number; score: number } | undefined;
    for (const field of fields) {
      header.forEach((h, i) => {
        if (taken.has(i)) return;
        const score = closeness(field, h, aliases[field] ?? []);
        if (score > 0 && (best === undefined || score > best.score)) best = { field, column: i, score };
      });
    }
    if (best) {
      taken.add(best.column);
      maps.push(`--map ${best.field}=${quoteColumn(header[best.column] as string)}`);
    } else maps.push(`--map ${fields[0]}="<column>"`);
  }
  return maps.join(' ');
}
