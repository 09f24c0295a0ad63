/**
 * svc contacts delete ID: asks first on a terminal; without one --yes is required (exit 2,
 * nothing sent). --ids-file deletes many, with a summary like the importer's and --report.
 */
import { ApiError } from '../../client/errors.js';
import type { ApiClient, CallOptions } from '../../client/types.js';
import type { Context } from '../../context.js';
import { CliError, EXIT, Interrupted, PromptCancelled, UsageError } from '../../errors.js';
import { runIdsPlan } from '../plan/ids.js';
import { checkPlanFlags, type PlanFlags } from '../plan/read.js';
import { checkIdsFileUse, finishEmpty, type IdsFileOptions, type IdsVerb, readIds, runIds } from './bulk.js';
import { explainContactError, parseContactId } from './shared.js';

export interface DeleteOptions extends IdsFileOptions, PlanFlags {
  yes?: boolean;
  idsFile?: string;
}

function isPromptAbort(err: unknown): boolean {
  return err instanceof PromptCancelled;
}

/** Asks on the terminal; false when the user says no. Ctrl-C is an interruption (exit 130). */
async function confirm(ctx: Context, message: string): Promise<boolean> {
  const prompter = await ctx.prompter();
  try {
    return await prompter.confirm({ message, default: false });
  } catch (err) {
    if (isPromptAbort(err)) throw new Interrupted('cancelled at the prompt; nothing was deleted');
    throw err;
  }
}

function cancelled(what: string): CliError {
  return new CliError(`${what} not deleted: cancelled at the prompt`, { exitCode: EXIT.failure, code: 'cancelled' });
}

export async function run(args: [id: string | undefined], opts: DeleteOptions, ctx: Context): Promise<number> {
  checkIdsFileUse(args[0], opts);
  if (opts.idsFile === undefined && args[0] === undefined)
    throw new UsageError('missing contact id', 'svc contacts delete ID, or --ids-file FILE --yes for many');
  const single = opts.idsFile === undefined ? parseContactId(args[0]) : undefined;
  checkPlanFlags(opts, opts.idsFile);
  if (opts.plan) {
    if (opts.idsFile === undefined) throw new UsageError('--plan goes with --ids-file');
    if (opts.report !== undefined) throw new UsageError('--plan sends nothing: use --plan-out FILE instead of --report');
    return runIdsPlan(ctx, (await readIds(ctx, opts.idsFile, { encoding: opts.encoding })).ids, 'delete', opts);
  }
  if (!opts.yes && !opts.dryRun && !ctx.policy.canPrompt) {
    const what = single ? `contact ${single}` : `the contacts in ${opts.idsFile}`;
    throw new UsageError(`refusing to delete ${what} without confirmation: no terminal to ask on`, 'pass --yes to delete without asking');
  }
  if (opts.idsFile !== undefined) return deleteMany(ctx, opts.idsFile, opts);
  return deleteSingle(ctx, single as string, opts);
}

/** --ids-file: every id listed, after one confirmation (a dry run checks the ids alone). */
async function deleteMany(ctx: Context, idsFile: string, opts: DeleteOptions): Promise<number> {
  const ids = await readIds(ctx, idsFile, opts, 'contacts-delete');
  if (ids.ids.length === 0) return finishEmpty(ctx, ids.file, { doneWord: 'deleted', report: opts.report });
  const verb = (client?: ApiClient): IdsVerb => ({
    doneWord: 'deleted',
    kind: 'contacts-delete',
    options: {},
    op: (id, call, sentBefore) => deleteOne(client as ApiClient, id, call, sentBefore),
    command: 'svc contacts delete',
    flags: ['--yes'],
  });

  // A dry run checks the ids alone: no credentials, nothing asked, nothing sent.
  if (opts.dryRun) return runIds(ctx, ids, verb(), opts);
  const client = await ctx.client();
  await client.ensureScope('deleteContact');
  const n = ids.ids.length;
  if (!opts.yes && !(await confirm(ctx, `Delete ${n} contact${n === 1 ? '' : 's'} listed in ${idsFile}? This cannot be undone.`)))
    throw cancelled(`${n} contacts`);
  return runIds(ctx, ids, verb(client), opts);
}

/** One contact, after a confirmation that names who it is (unless --yes). */
async function deleteSingle(ctx: Context, id: string, opts: DeleteOptions): Promise<number> {
  const client = await ctx.client();
  await client.ensureScope('deleteContact');
  if (!opts.yes) {
    const label = await contactLabel(ctx, client, id);
    if (!(await confirm(ctx, `Delete contact ${id}${label}? This cannot be undone.`))) throw cancelled(`contact ${id}`);
  }
  let outcome: Awaited<ReturnType<typeof deleteOne>>;
  try {
    outcome = await deleteOne(client, id, { signal: ctx.signal });
  } catch (err) {
    throw explainContactError(err, id);
  }
  if (ctx.settings.json) ctx.out.json({ deleted: true, id });
  else ctx.out.success(`Deleted contact ${id}${outcome === 'gone_after_retry' ? ' (an earlier, interrupted attempt had deleted it)' : ''}`);
  return 0;
}

/** " (email, phone)" to show who is about to go; an unknown id fails here, before asking. */
async function contactLabel(ctx: Context, client: ApiClient, id: string): Promise<string> {
  try {
    const c = await client.getContact(id, { signal: ctx.signal });
    const who = [c.email, c.phone].filter(Boolean).join(', ');
    return who ? ` (${who})` : '';
  } catch (err) {
    const explained = explainContactError(err, id);
    if (explained !== err || (err instanceof ApiError && err.kind === 'not_found')) throw explained;
    ctx.log.debug(`could not read contact ${id} before asking: ${(err as Error).message}`);
    return '';
  }
}

/**
 * DELETE is retried after a 500 or a lost connection, which may follow a delete the service
 * applied: a 404 on the retry then means our own earlier attempt removed it, and the contact is
 * gone as asked; so does a 404 for an id an interrupted run may have sent (--resume). A 404 on
 * the first attempt stays an error (no such contact).
 */
async function deleteOne(client: ApiClient, id: string, call: CallOptions, sentBefore = false): Promise<'deleted' | 'gone_after_retry'> {
  try {
    await client.deleteContact(id, call);
    return 'deleted';
  } catch (err) {
    // sentBefore: an interrupted run may have deleted it (--resume sends its last ids again).
    if (err instanceof ApiError && err.kind === 'not_found' && (err.uncertain || sentBefore)) return 'gone_after_retry';
    throw err;
  }
}
