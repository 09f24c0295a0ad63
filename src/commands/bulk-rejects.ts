/**
 * `--rejects FILE` as every bulk verb shows it: the summary fields (`rejects`,
 * `rejects_rows`, `reimport_command` in JSON) and the closing line naming the file and the
 * command that imports it once fixed. The file itself is bulk/rejects.ts's.
 */
import type { Context } from '../context.js';

/** What the summary says about the rejects file. */
export interface RejectsNote {
  path: string;
  count: number;
  command?: string;
  /** A dry run wrote it: nothing was sent, so the rows are fixed to check again, not to import alone. */
  dryRun?: boolean;
  /** Added to the JSON summary beside the verb's own fields. */
  fields: Record<string, string | number>;
}

/** What to say about the rejects file a job wrote (`dryRun`: no command imports it). */
export function rejectsNote(rejects: { path: string; count: number; reimportCommand?: string }, dryRun = false): RejectsNote {
  const command = dryRun ? undefined : rejects.reimportCommand;
  const fields: RejectsNote['fields'] = { rejects: rejects.path, rejects_rows: rejects.count };
  if (command !== undefined) fields.reimport_command = command;
  return { path: rejects.path, count: rejects.count, command, dryRun, fields };
}

/** The closing line on stderr: where the rows are and how to import them once fixed. */
export function sayRejects(ctx: Context, note: RejectsNote): void {
  if (note.count === 0) {
    ctx.out.info(`no rows rejected: ${note.path} holds none`);
    return;
  }
  const where = `${note.count} row(s) written to ${note.path} with the reason in their last columns`;
  if (note.dryRun) ctx.out.info(`${where} (a dry run: nothing was sent; fix the rows in the input, or fix them there and check that file)`);
  else ctx.out.info(`${where}; fix them there, then import that file${note.command ? `: ${note.command}` : ''}`);
}
