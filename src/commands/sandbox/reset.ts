/**
 * svc sandbox reset: empties every table and fault of a running sandbox (keeps biz_default).
 * At a terminal it asks first (--yes skips the question); off a terminal it resets without a
 * flag, as CI jobs call it between scenarios.
 */
import type { Context } from '../../context.js';
import { CliError, EXIT } from '../../errors.js';
import { adminCall, sandboxBaseUrl } from './admin-client.js';

export interface ResetOptions {
  yes?: boolean;
}

export async function run(_args: string[], opts: ResetOptions, ctx: Context): Promise<number> {
  const baseUrl = await sandboxBaseUrl(ctx);
  if (!opts.yes && ctx.policy.canPrompt) {
    const prompter = await ctx.prompter();
    const yes = await prompter.confirm({
      message: `Reset the sandbox at ${baseUrl}? Every contact, order, event, credential and fault in it is deleted.`,
      default: false,
    });
    if (!yes) throw new CliError('sandbox not reset: cancelled at the prompt', { exitCode: EXIT.failure, code: 'cancelled' });
  }
  await adminCall(ctx, baseUrl, 'POST', '/reset');
  if (ctx.settings.json) ctx.out.json({ status: 'reset', base_url: baseUrl });
  else ctx.out.success(`sandbox at ${baseUrl} reset: all data and faults cleared`);
  return 0;
}
