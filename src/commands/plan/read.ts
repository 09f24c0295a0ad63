/**
 * Reading the account for a plan, with progress on stderr (a spinner on a terminal, a line every
 * 10 s otherwise, nothing with --json or --quiet) and the --plan-out path checked first.
 */
import { writeFileSync } from 'node:fs';
import { type AccountIndex, type AccountRead, checkRunPaths, type FileIdentities, type ReadMethod, readAccount } from '../../bulk/index.js';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';

const NON_TTY_PROGRESS_MS = 10_000;

export interface PlanFlags {
  plan?: boolean;
  planOut?: string;
  planRead?: string;
}

/** --plan-out and --plan-read need --plan; --plan-read takes auto, pages or lookups. */
export function checkPlanFlags(
  opts: PlanFlags & { dryRun?: boolean; resume?: boolean; report?: string; rejects?: string },
  input: string | undefined,
): void {
  if (!opts.plan) {
    if (opts.planOut !== undefined) throw new UsageError('--plan-out needs --plan');
    if (opts.planRead !== undefined) throw new UsageError('--plan-read needs --plan');
    return;
  }
  checkWithPlan(opts);
  if (opts.planOut !== undefined)
    checkRunPaths(input === undefined || input === '-' ? [] : [{ what: 'the input', path: input }], [
      { what: '--plan-out', path: opts.planOut },
    ]);
}

/** The flags --plan refuses (it sends nothing and reads the account), and --plan-read's value. */
function checkWithPlan(opts: PlanFlags & { dryRun?: boolean; resume?: boolean; report?: string; rejects?: string }): void {
  if (opts.dryRun) throw new UsageError('--plan and --dry-run do not go together', '--plan checks every row too, and reads the account');
  if (opts.resume) throw new UsageError('--plan and --resume do not go together');
  for (const [flag, given] of [
    ['--report', opts.report],
    ['--rejects', opts.rejects],
  ] as const)
    if (given !== undefined)
      throw new UsageError(`--plan sends nothing, so ${flag} would stay empty`, "--plan-out FILE writes every row's planned outcome");
  if (opts.planRead !== undefined && !['auto', 'pages', 'lookups'].includes(opts.planRead))
    throw new UsageError(`--plan-read must be auto, pages or lookups, got ${JSON.stringify(opts.planRead)}`);
}

export function describeRead(r: AccountRead): string {
  const n = (count: number, one: string) => `${count} ${one}${count === 1 ? '' : 's'}`;
  if (r.method === 'pages') return `read every page of the account: ${n(r.pages, 'page')}, ${n(r.contactsSeen, 'contact')}`;
  return `read by look-ups (the file names fewer people than the account holds): ${n(r.lookups, 'look-up')}${r.pages > 0 ? ` after ${n(r.pages, 'page')}` : ''}, ${n(r.contactsSeen, 'contact')} seen`;
}

/**
 * Reads the file's rows and, at the same time, the account (ensuring `contacts_read` first),
 * showing progress: both mostly wait on I/O, so the plan takes about the longer of the two.
 */
export async function readRowsAndAccount<T>(
  ctx: Context,
  rows: AsyncIterable<T[]>,
  identity: (row: T) => { email?: string; phone?: string },
  method: string | undefined,
): Promise<{ all: T[]; index: AccountIndex; read: AccountRead }> {
  const client = await ctx.client();
  await client.ensureScope('listContacts');
  const stop = new AbortController();
  const all: T[] = [];
  const collected = (async (): Promise<FileIdentities> => {
    let count = 0;
    for await (const batch of rows) {
      for (const row of batch) {
        all.push(row);
        const id = identity(row);
        if (id.email) count++;
        if (id.phone) count++;
      }
    }
    // The distinct e-mails and phones only when look-ups are made (a Set of every one costs).
    return {
      count,
      distinct() {
        const emails = new Set<string>();
        const phones = new Set<string>();
        for (const row of all) {
          const id = identity(row);
          if (id.email) emails.add(id.email.toLowerCase());
          if (id.phone) phones.add(id.phone);
        }
        return { emails, phones };
      },
    };
  })();
  collected.catch(() => stop.abort());
  const [, account] = await Promise.all([collected, readAccountWithProgress(ctx, collected, method, stop.signal)]);
  return { all, ...account };
}

async function readAccountWithProgress(
  ctx: Context,
  identities: Promise<FileIdentities>,
  method: string | undefined,
  stopped: AbortSignal,
): Promise<{ index: AccountIndex; read: AccountRead }> {
  const client = await ctx.client();
  let last: AccountRead = { method: 'pages', pages: 0, lookups: 0, contactsSeen: 0 };
  const text = () =>
    `reading the account: ${last.pages} page(s)${last.lookups > 0 ? `, ${last.lookups} look-up(s)` : ''}, ${last.contactsSeen} contact(s) seen`;
  let stop = () => {};
  if (!ctx.settings.json && !ctx.settings.quiet) {
    if (ctx.policy.canAnimate) {
      const spinner = await ctx.spinner('reading the account');
      const timer = setInterval(() => spinner.update(text()), 200);
      timer.unref();
      stop = () => {
        clearInterval(timer);
        spinner.stop();
      };
    } else {
      const timer = setInterval(() => ctx.out.info(`progress: ${text()}`), NON_TTY_PROGRESS_MS);
      timer.unref();
      stop = () => clearInterval(timer);
    }
  }
  try {
    return await readAccount(client, identities, {
      method: (method ?? 'auto') as ReadMethod | 'auto',
      signal: AbortSignal.any([ctx.signal, stopped]),
      onProgress: (r) => {
        last = r;
      },
    });
  } finally {
    stop();
  }
}

export function writePlanOut(path: string | undefined, text: () => string): void {
  if (path === undefined) return;
  try {
    writeFileSync(path, text());
  } catch (err) {
    throw new UsageError(`cannot write --plan-out ${path}: ${(err as Error).message}`);
  }
}
