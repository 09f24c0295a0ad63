/**
 * svc contacts unsubscribe ID: PATCH email_consent=unsubscribed (the spec's replacement), or the
 * deprecated POST …/unsubscribe with --legacy (the client shows its Deprecation warning).
 * --ids-file unsubscribes many, with a summary like the importer's.
 */
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { shellQuote } from '../../io/shell-quote.js';
import { runIdsPlan } from '../plan/ids.js';
import { checkPlanFlags, type PlanFlags } from '../plan/read.js';
import { checkIdsFileUse, finishEmpty, type IdsFileOptions, openIdsReport, readIds, runIds } from './bulk.js';
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
  const ids = opts.idsFile !== undefined ? await readIds(ctx, opts.idsFile, opts) : undefined;
  if (opts.plan) return runIdsPlan(ctx, ids?.ids ?? [], 'unsubscribe', opts);
  const report = openIdsReport(opts.report);
  if (ids?.ids.length === 0) return finishEmpty(ctx, opts.idsFile as string, { doneWord: 'unsubscribed', report });
  const single = ids ? undefined : parseContactId(args[0]);

  // A dry run checks the ids alone: no credentials, nothing sent.
  if (ids && opts.dryRun) return runIds(ctx, ids, async () => {}, opts, { doneWord: 'unsubscribed', report, reimport: 'dry-run' });
  const client = await ctx.client();
  await client.ensureScope('unsubscribeContact');
  const unsubscribe = (id: string, signal = ctx.signal) =>
    opts.legacy ? client.unsubscribeContactLegacy(id, { signal }) : client.patchContact(id, { email_consent: 'unsubscribed' }, { signal });

  if (ids) {
    const again = (f: string) => `svc contacts unsubscribe --ids-file ${shellQuote(f)}${opts.legacy ? ' --legacy' : ''}`;
    return runIds(ctx, ids, unsubscribe, opts, { doneWord: 'unsubscribed', report, reimport: again });
  }

  const id = single as string;
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
