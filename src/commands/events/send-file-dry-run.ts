/**
 * svc events send --file --dry-run: every line read and checked as it would be sent, nothing sent
 * and no credentials needed. The rejected lines are listed (and written to --rejects to fix);
 * --report lists every line, the valid ones as `valid`. Exit 4 when a line would be rejected.
 */
import type { Readable } from 'node:stream';
import type { CountryCode } from 'libphonenumber-js/max';
import type { InputEncoding } from '../../bulk/decode.js';
import { readLineBatches } from '../../bulk/ndjson-source.js';
import type { RejectsWriter } from '../../bulk/rejects.js';
import type { ReportWriter } from '../../bulk/report.js';
import type { Context } from '../../context.js';
import { EXIT } from '../../errors.js';
import { dryRunEvents } from '../../importer/events.js';
import { rejectsNote, sayRejects } from '../bulk-rejects.js';
import type { SendOptions } from './shared.js';

/** How many rejected lines a terminal sees before pointing at --report. */
const MAX_LISTED = 50;

export async function checkEventLines(
  ctx: Context,
  args: {
    input: Readable;
    read: { bytes: number; lineEnd?: '\n' | '\r\n' };
    encoding: InputEncoding | undefined;
    country: CountryCode | undefined;
    report?: ReportWriter<string>;
    rejects?: RejectsWriter;
    opts: SendOptions;
  },
): Promise<number> {
  const { report, rejects, opts } = args;
  let result: Awaited<ReturnType<typeof dryRunEvents>>;
  try {
    result = await dryRunEvents({
      lines: readLineBatches(args.input, args.encoding, args.read),
      defaultCountry: args.country,
      report,
      rejects,
    });
  } finally {
    if (!args.input.readableEnded) args.input.destroy();
    report?.close({ complete: false });
    rejects?.close();
  }
  const note = rejects ? rejectsNote(rejects, 'dry-run') : undefined;
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
function dryRunLines(result: Awaited<ReturnType<typeof dryRunEvents>>, report: string | undefined): string[] {
  const out = [`dry run: ${result.rows} event line(s), ${result.valid} valid, ${result.rejected.length} rejected; nothing was sent`];
  for (const r of result.rejected.slice(0, MAX_LISTED)) out.push(`  line ${r.line}: ${r.message ?? r.errorCode ?? ''}`);
  if (result.rejected.length > MAX_LISTED)
    out.push(`  … ${result.rejected.length - MAX_LISTED} more${report ? ` in ${report}` : ' (use --report FILE to see all)'}`);
  return out;
}
