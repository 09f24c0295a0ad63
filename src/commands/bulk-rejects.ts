/**
 * `--rejects FILE` as every bulk verb shows it: the option checks, the summary fields (`rejects`,
 * `rejects_rows`, `reimport_command` in JSON) and the closing line naming the file and the
 * command that imports it once fixed. The file itself is bulk/rejects.ts's.
 */
import type { RejectsWriter } from '../bulk/rejects.js';
import type { Context } from '../context.js';
import { UsageError } from '../errors.js';

/** What the summary says about the rejects file. */
export interface RejectsNote {
  path: string;
  count: number;
  command?: string;
  /** Added to the JSON summary beside the verb's own fields. */
  fields: Record<string, string | number>;
}

/** --rejects-include-failed needs --rejects. */
export function checkRejectsOptions(opts: { rejects?: string; rejectsIncludeFailed?: boolean }): void {
  if (opts.rejectsIncludeFailed && opts.rejects === undefined)
    throw new UsageError('--rejects-include-failed goes with --rejects FILE', 'e.g. --rejects rejects.csv --rejects-include-failed');
}

export function rejectsNote(rejects: RejectsWriter, reimport: ((file: string) => string) | undefined): RejectsNote {
  const command = rejects.count > 0 && reimport ? reimport(rejects.path) : undefined;
  const fields: RejectsNote['fields'] = { rejects: rejects.path, rejects_rows: rejects.count };
  if (command !== undefined) fields.reimport_command = command;
  return { path: rejects.path, count: rejects.count, command, fields };
}

/** The closing line on stderr: where the rows are and how to import them once fixed. */
export function sayRejects(ctx: Context, note: RejectsNote): void {
  if (note.count === 0) {
    ctx.out.info(`no rows rejected: ${note.path} holds none`);
    return;
  }
  ctx.out.info(
    `${note.count} row(s) written to ${note.path} with the reason in their last columns; fix them there, then import that file${note.command ? `: ${note.command}` : ''}`,
  );
}
