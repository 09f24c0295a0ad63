/**
 * svc events send --file --dry-run: every line read and checked as it would be sent, nothing sent
 * and no credentials needed. The rejected lines are listed (and written to --rejects to fix);
 * --report lists every line, the valid ones as `valid`. Exit 4 when a line would be rejected.
 */
import type { EventDryRun } from '../../bulk/index.js';
import type { Context } from '../../context.js';
import { EXIT } from '../../errors.js';
import { rejectsNote, sayRejects } from '../bulk-rejects.js';
import type { SendOptions } from './shared.js';

/** How many rejected lines a terminal sees before pointing at --report. */
const MAX_LISTED = 50;

/** The dry run's result (bulk/job.ts dryRunJob) printed; exit 4 when a line would be rejected. */
export function printEventsDryRun(
  ctx: Context,
  done: { result: EventDryRun; rejects?: { path: string; count: number } },
  opts: SendOptions,
): number {
  const result = done.result;
  const note = done.rejects ? rejectsNote(done.rejects, true) : undefined;
  if (ctx.settings.json) {
    ctx.out.json({
      dry_run: true,
      rows: result.rows,
      valid: result.valid,
      rejected: result.rejected.length,
      rejected_lines: result.rejected.map((r) => r.line),
      ...(note ? note.fields : {}),
    });
  } else {
    ctx.out.stdout(`${dryRunLines(result, opts.report).join('\n')}\n`);
    if (note) sayRejects(ctx, note);
  }
  return result.rejected.length > 0 ? EXIT.partial : EXIT.ok;
}

/** The counts, then the first rejected lines with their reasons (the rest in --report). */
function dryRunLines(result: EventDryRun, report: string | undefined): string[] {
  const out = [`dry run: ${result.rows} event line(s), ${result.valid} valid, ${result.rejected.length} rejected; nothing was sent`];
  for (const r of result.rejected.slice(0, MAX_LISTED)) out.push(`  line ${r.line}: ${r.message ?? r.errorCode ?? ''}`);
  if (result.rejected.length > MAX_LISTED)
    out.push(`  … ${result.rejected.length - MAX_LISTED} more${report ? ` in ${report}` : ' (use --report FILE to see all)'}`);
  return out;
}
