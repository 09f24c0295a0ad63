/** What `svc orders import` prints: the summary, the dry run's findings and the progress line. */
import type { Summary } from '../../bulk/outcome.js';
import type { Context } from '../../context.js';
import type { ImportProgress } from '../../importer/orders.js';
import type { RecordField } from '../../io/output.js';

const NON_TTY_PROGRESS_MS = 10_000;

function summaryDoc(s: Summary): Record<string, number> {
  const doc: Record<string, number> = {
    rows: s.rows,
    created: s.created,
    updated: s.updated,
    unconfirmed: s.unconfirmed,
    rejected: s.rejected,
    failed: s.failed,
    resumed: s.resumed,
  };
  if (s.lines !== undefined) doc.lines = s.lines;
  return doc;
}

export function printSummary(ctx: Context, s: Summary, reportPath: string | undefined, interrupted: boolean): void {
  const doc = summaryDoc(s);
  if (ctx.settings.json) {
    ctx.out.json(interrupted ? { ...doc, interrupted: true } : doc);
    return;
  }
  if (ctx.policy.humanStdout) {
    const c = ctx.colors;
    const fields: RecordField[] = [
      ['rows', s.rows],
      ['created', s.created, c.green],
      ['updated', String(s.updated)],
      ['unconfirmed', s.unconfirmed, s.unconfirmed > 0 ? c.yellow : String],
      ['rejected', s.rejected, s.rejected > 0 ? c.red : String],
      ['failed', s.failed, s.failed > 0 ? c.red : String],
      ['resumed', s.resumed],
    ];
    if (s.lines !== undefined) fields.splice(1, 0, ['lines', s.lines]);
    ctx.out.record(fields);
  } else {
    ctx.out.stdout(
      `${Object.entries(doc)
        .map(([k, v]) => `${k}\t${v}`)
        .join('\n')}\n`,
    );
  }
  if (s.unconfirmed > 0) {
    ctx.out.info(
      `${s.unconfirmed} order(s) unconfirmed: an earlier attempt ended without an answer, so whether each was created or updated is unknown (the order is stored either way)${reportPath ? `; they are listed in ${reportPath}` : ''}`,
    );
  }
  if (reportPath) ctx.out.info(`report written to ${reportPath}`);
}

export function printDryRun(
  ctx: Context,
  s: Summary & { valid: number },
  duplicates: Array<{ order_id: string; lines: number[] }>,
  rejected: Array<{ line: number; id: string; message?: string }>,
  reportPath: string | undefined,
): void {
  if (ctx.settings.json) {
    ctx.out.json({
      dry_run: true,
      rows: s.rows,
      ...(s.lines !== undefined ? { lines: s.lines } : {}),
      valid: s.valid,
      rejected: s.rejected,
      rejected_rows: rejected.map((r) => ({ line: r.line, order_id: r.id, message: r.message })),
      duplicates,
    });
    return;
  }
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
  ctx.out.text(`${out.join('\n')}\n`);
}

function formatRate(n: number): string {
  return n >= 100 ? n.toFixed(0) : n.toFixed(1);
}

/**
 * Progress on stderr: a spinner redrawn every 200 ms on a TTY; otherwise one line every 10 s at
 * most (CI logs); nothing with --json or --quiet. Returns the function that stops it.
 */
export async function showProgress(ctx: Context, p: ImportProgress, totalBytes: number | undefined): Promise<() => void> {
  if (ctx.settings.json || ctx.settings.quiet) return () => {};
  const started = ctx.now();
  const text = () => {
    const s = p.summary;
    const elapsed = Math.max(0.001, (ctx.now() - started) / 1000);
    const rate = (s.rows - s.resumed) / elapsed;
    let eta = '';
    if (totalBytes && totalBytes > 0) {
      const frac = Math.min(1, p.bytesRead() / totalBytes);
      if (frac > 0.01) {
        const left = Math.max(0, (elapsed / frac) * (1 - frac));
        eta = `, ${Math.round(frac * 100)}%, ETA ${left >= 90 ? `${Math.round(left / 60)} min` : `${Math.round(left)} s`}`;
      }
    }
    const throttled = p.rateLimited > 0 ? `, ${p.rateLimited} rate-limited retries` : '';
    return `${s.rows} rows (${formatRate(rate)}/s${eta}): ${s.created} created, ${s.updated} updated, ${s.unconfirmed} unconfirmed, ${s.rejected} rejected, ${s.failed} failed${throttled}`;
  };
  if (ctx.policy.canAnimate) {
    const spinner = await ctx.spinner('importing…');
    const timer = setInterval(() => spinner.update(text()), 200);
    timer.unref();
    return () => {
      clearInterval(timer);
      spinner.stop();
    };
  }
  const timer = setInterval(() => ctx.out.info(`progress: ${text()}`), NON_TTY_PROGRESS_MS);
  timer.unref();
  return () => clearInterval(timer);
}
