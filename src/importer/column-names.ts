/**
 * Header names: how they are compared with field names (case, accents, spaces and punctuation
 * ignored: `E-Mail` is `email`, `Order ID` is `order_id`), and the `--map` options proposed when
 * required columns are missing — never a column whose name says it is something else.
 */

/** A header or field name as it is matched: lower case, no accents, letters and digits only (`E-Mail` → email). */
export function columnKey(name: string): string {
  return name
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]/g, '');
}

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
 * Words that say a column is something else than the field, whatever else its name holds: a
 * shipping or tax amount is no order total, a name or a customer's id is no order id. Words in
 * parentheses qualify the name (`Order Total (inc tax)`) and do not count.
 */
const NOT_THE_FIELD: Record<string, readonly string[]> = {
  total: [
    'shipping',
    'ship',
    'tax',
    'taxes',
    'vat',
    'discount',
    'discounts',
    'coupon',
    'refund',
    'refunded',
    'refunds',
    'subtotal',
    'sub',
    'fee',
    'fees',
    'handling',
    'credit',
    'gift',
    'weight',
    'quantity',
    'qty',
    'items',
    'item',
    'shipped',
    'count',
    'due',
    'outstanding',
    'balance',
    'line',
    'lineitem',
    'product',
    'unit',
    'cost',
    'base',
  ],
  order_id: [
    'name',
    'first',
    'last',
    'bill',
    'billing',
    'ship',
    'shipping',
    'customer',
    'product',
    'item',
    'sku',
    'line',
    'lineitem',
    'transaction',
    'payment',
    'tracking',
    'invoice',
    'status',
    'date',
    'email',
    'phone',
    'total',
    'amount',
    'currency',
    'point',
    'store',
    'group',
    'address',
    'method',
    'channel',
    'note',
    'notes',
    'user',
    'quantity',
    'qty',
    'count',
  ],
  order_date: [
    'paid',
    'shipped',
    'ship',
    'shipping',
    'fulfilled',
    'fulfillment',
    'modified',
    'updated',
    'cancelled',
    'canceled',
    'refunded',
    'completed',
    'expiration',
    'expires',
    'expiry',
    'birth',
    'due',
    'delivery',
    'delivered',
    'next',
  ],
  email: ['name', 'phone', 'marketing', 'accepts', 'opt', 'subscribed', 'consent', 'status', 'verified'],
  phone: ['name', 'email', 'mail', 'marketing', 'accepts', 'consent', 'opt'],
  currency: ['rate', 'exchange'],
};

/** True when the header's own words (not those in parentheses) say it is not the field. */
export function saysOtherwise(field: string, headerName: string): boolean {
  const bad = NOT_THE_FIELD[field];
  if (!bad) return false;
  return words(headerName.replace(/\([^)]*\)/g, ' ')).some((w) => bad.includes(w));
}

/**
 * How well a header name could hold a field: its name one or two typos away scores highest, then
 * a word of the field's name in it (`Order Total` for total), then one of the field's aliases
 * (`Amount`); 0 when nothing suggests it or the name says it is something else.
 */
function closeness(field: string, headerName: string, aliases: readonly string[]): number {
  if (saysOtherwise(field, headerName)) return 0;
  const h = normalizeName(headerName);
  if (h.length > 2 && editDistance(h, field) <= Math.min(2, Math.floor(field.length / 4))) return 4;
  const hw = words(headerName);
  const fw = field.split('_').filter((w) => w !== 'id');
  // Words that belong to neither the field nor its aliases lower the score a little: for order_id,
  // "Order Number" beats "Order Date".
  const foreign = hw.filter((w) => !fw.includes(w) && !aliases.includes(w) && w !== 'id').length / 10;
  if (fw.length > 0 && fw.every((w) => hw.includes(w))) return 3 - foreign;
  if (fw.some((w) => hw.includes(w))) return 2 - foreign;
  if (aliases.some((a) => hw.includes(a) || h === a)) return 1 - foreign;
  // A column named just `ID` (Magento's order grid) or `#` is the row's own id.
  if (field === 'order_id' && (h === 'id' || h === '#')) return 1.5;
  return 0;
}

/**
 * The header's columns for a field, likeliest first (those a name or alias suggests, by how close),
 * then the others in file order; `used` columns are left out. For a terminal's question.
 */
export function rankColumns(
  field: string,
  header: readonly string[],
  used: ReadonlySet<number>,
  aliases: readonly string[] = [],
): Array<{ index: number; likely: boolean }> {
  const scored = header.map((h, i) => ({ i, score: used.has(i) ? -1 : closeness(field, h, aliases) }));
  return scored
    .filter((c) => c.score >= 0)
    .sort((a, b) => b.score - a.score || a.i - b.i)
    .map((c) => ({ index: c.i, likely: c.score > 0 }));
}

/** A column name as the shell reads it back: "Grand Total" in double quotes unless it needs single ones. */
function quoteColumn(column: string): string {
  if (/^[\w.-]+$/.test(column)) return column;
  return /["$`\\!]/.test(column) ? `'${column.replace(/'/g, `'\\''`)}'` : `"${column}"`;
}

/**
 * The `--map` options that would fill the missing fields: each names its field and proposes the
 * closest unused column (`--map total="Grand Total"`), or `"<column>"` when none looks like it.
 * Columns equally close (`Order Total (inc tax)` and `(ex tax)`) are listed and the user asked to
 * pick one. `"email or phone"` proposes whichever of the two has a likely column.
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
    // `email or phone`: the first of the two with a likely column.
    let best: Array<{ field: string; column: number; score: number }> = [];
    for (const field of fields) {
      const scored: typeof best = [];
      header.forEach((h, i) => {
        if (taken.has(i)) return;
        const score = closeness(field, h, aliases[field] ?? []);
        if (score > 0) scored.push({ field, column: i, score });
      });
      const top = Math.max(0, ...scored.map((c) => c.score));
      // Equally close columns (within a foreign word or so): choosing one would be a guess.
      best = scored.filter((c) => c.score >= top - 0.05);
      if (best.length > 0) break;
    }
    const first = best[0];
    // A currency the export does not write at all: the value to give, not a column to look for.
    if (first === undefined) maps.push(fields[0] === 'currency' ? '--set currency=<ISO code, e.g. EUR>' : `--map ${fields[0]}="<column>"`);
    else if (best.length === 1) {
      taken.add(first.column);
      maps.push(`--map ${first.field}=${quoteColumn(header[first.column] as string)}`);
    } else {
      const listed = best.map((c) => JSON.stringify(header[c.column])).join(', ');
      maps.push(`--map ${first.field}=? (several columns could be ${first.field}: ${listed}; pick one)`);
    }
  }
  return maps.join(' ');
}
