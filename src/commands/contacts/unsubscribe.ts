/**
 * svc contacts unsubscribe ID: PATCH email_consent=unsubscribed (the spec's replacement), or the
 * deprecated POST …/unsubscribe with --legacy (the client shows its Deprecation warning).
 * --ids-file unsubscribes many, with a summary like the importer's.
 */
import type { CallOptions } from '../../client/types.js';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { runIdsPlan } from '../plan/ids.js';
import { checkPlanFlags, type PlanFlags } from '../plan/read.js';
import { checkIdsFileUse, finishEmpty, type IdsFileOptions, type IdsVerb, readIds, runIds } from './bulk.js';
import { explainContactError, parseContactId, printWrittenContact } from './shared.js';

export interface UnsubscribeOptions extends IdsFileOptions, PlanFlags {
  legacy?: boolean;
  idsFile?: string;
}

export async function run(args: [id: string | undefined], opts: UnsubscribeOptions, ctx: Context): Promise<number> {
  checkIdsFileUse(args[0], opts);
  if (opts.idsFile === undefined && args[0] === undefined) {
    throw new UsageError('missing contact id', 'svc contacts unsubscribe ID, or --ids-file FILE for many');
  }
  checkPlanFlags(opts, opts.idsFile);
  if (opts.plan && opts.idsFile === undefined) throw new UsageError('--plan goes with --ids-file');
  if (opts.plan && opts.report !== undefined) throw new UsageError('--plan sends nothing: use --plan-out FILE instead of --report');
  if (opts.idsFile !== undefined) return unsubscribeMany(ctx, opts.idsFile, opts);
  return unsubscribeSingle(ctx, parseContactId(args[0]), opts);
}

/** --ids-file: every id listed (or, with --plan, the plan of it; a dry run checks the ids alone). */
async function unsubscribeMany(ctx: Context, idsFile: string, opts: UnsubscribeOptions): Promise<number> {
  const ids = await readIds(ctx, idsFile, opts, opts.plan ? undefined : 'contacts-unsubscribe');
  if (opts.plan) return runIdsPlan(ctx, ids.ids, 'unsubscribe', opts);
  if (ids.ids.length === 0) return finishEmpty(ctx, ids.file, { doneWord: 'unsubscribed', report: opts.report });
  const verb = (op: IdsVerb['op']): IdsVerb => ({
    doneWord: 'unsubscribed',
    kind: 'contacts-unsubscribe',
    options: { legacy: opts.legacy === true },
    op,
    command: 'svc contacts unsubscribe',
    flags: opts.legacy ? ['--legacy'] : [],
  });
  // A dry run checks the ids alone: no credentials, nothing sent.
  if (opts.dryRun)
    return runIds(
      ctx,
      ids,
      verb(async () => {}),
      opts,
    );
  return runIds(ctx, ids, verb(await unsubscriber(ctx, opts)), opts);
}

async function unsubscribeSingle(ctx: Context, id: string, opts: UnsubscribeOptions): Promise<number> {
  const unsubscribe = await unsubscriber(ctx, opts);
  let contact: Awaited<ReturnType<typeof unsubscribe>>['body'];
  try {
    contact = (await unsubscribe(id)).body;
  } catch (err) {
    throw explainContactError(err, id);
  }
  ctx.out.success(`Unsubscribed contact ${id} from email (email_consent ${contact.email_consent})`);
  printWrittenContact(ctx, contact);
  return 0;
}

/** The one request that unsubscribes an id: the PATCH, or the deprecated POST with --legacy. */
async function unsubscriber(ctx: Context, opts: UnsubscribeOptions) {
  const client = await ctx.client();
  await client.ensureScope('unsubscribeContact');
  return (id: string, call: CallOptions = { signal: ctx.signal }) =>
    opts.legacy ? client.unsubscribeContactLegacy(id, call) : client.patchContact(id, { email_consent: 'unsubscribed' }, call);
}
