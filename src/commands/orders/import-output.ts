/** What `svc orders import --dry-run` prints: the rows it would reject and the order ids on several lines. */
import type { Summary } from '../../bulk/index.js';
import type { Context } from '../../context.js';
import { describeValues, type ValuesSummary } from '../../importer/dry-run-summary.js';

export function printDryRun(
  ctx: Context,
  s: Summary & { valid: number },
  duplicates: Array<{ order_id: string; lines: number[] }>,
  rejected: Array<{ line: number; id: string; message?: string }>,
  reportPath: string | undefined,
  extra?: { values: ValuesSummary; mapping: Record<string, unknown> },
): void {
  if (ctx.settings.json) {
    ctx.out.json({
      ...(extra ? { mapping: extra.mapping } : {}),
      dry_run: true,
      rows: s.rows,
      ...(s.lines !== undefined ? { lines: s.lines } : {}),
      valid: s.valid,
      rejected: s.rejected,
      rejected_rows: rejected.map((r) => ({ line: r.line, order_id: r.id, message: r.message })),
      duplicates,
      ...(extra?.values ?? {}),
    });
    return;
  }
  const out = dryRunLines(s, duplicates, rejected, reportPath);
  if (extra) out.push(...describeValues(extra.values));
  ctx.out.text(`${out.join('\n')}\n`);
}

/** The counts, the first 50 rejected rows and repeated order ids, and the values found. */
function dryRunLines(
  s: Summary & { valid: number },
  duplicates: Array<{ order_id: string; lines: number[] }>,
  rejected: Array<{ line: number; id: string; message?: string }>,
  reportPath: string | undefined,
): string[] {
  const out: string[] = [];
  out.push(
    `dry run: ${s.rows} order(s)${s.lines !== undefined ? ` on ${s.lines} lines` : ''}, ${s.valid} valid, ${s.rejected} rejected; nothing was sent`,
  );
  for (const r of rejected.slice(0, 50)) out.push(`  line ${r.line}${r.id ? ` (${r.id})` : ''}: ${r.message}`);
  if (rejected.length > 50)
    out.push(`  … ${rejected.length - 50} more${reportPath ? ` in ${reportPath}` : ' (use --report FILE to see all)'}`);
  if (duplicates.length > 0) {
    out.push(`${duplicates.length} order_id(s) appear on several lines (the first line creates the order, later ones update it):`);
    for (const d of duplicates.slice(0, 50)) out.push(`  ${d.order_id}: lines ${d.lines.join(', ')}`);
    if (duplicates.length > 50) out.push(`  … ${duplicates.length - 50} more`);
  }
  return out;
}
