/**
 * svc sandbox reset: empties every table and fault of a running sandbox (keeps biz_default).
 * At a terminal it asks first (--yes skips the question); off a terminal it resets without a
 * flag, as CI jobs call it between scenarios. The reset deletes every credential too: --seed then
 * makes new ones as `sandbox start --seed` does and saves them in the `sandbox` profile.
 */
import type { Context } from '../../context.js';
import { CliError, EXIT, UsageError } from '../../errors.js';
import { adminCall, SANDBOX_PROFILE, sandboxBaseUrl } from './admin-client.js';
import { chooseResetSeedProfile } from './seed-profile.js';
import { printSeeded, seedAndSaveProfile } from './start.js';

export interface ResetOptions {
  yes?: boolean;
  seed?: boolean;
}

export async function run(_args: string[], opts: ResetOptions, ctx: Context): Promise<number> {
  if (opts.seed && ctx.settings.sandbox)
    throw new UsageError(
      '--seed is for a sandbox started with `svc sandbox start`',
      'the embedded sandbox of --sandbox makes its own credentials again',
    );
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
  const seed = opts.seed ? await seedAndSaveProfile(ctx, baseUrl, chooseResetSeedProfile) : undefined;
  if (ctx.settings.json) {
    ctx.out.json({ status: 'reset', base_url: baseUrl, ...(seed ? { seed: seed.seeded, profile: seed.profile.name } : {}) });
    return 0;
  }
  ctx.out.success(`sandbox at ${baseUrl} reset: all data and faults cleared`);
  if (seed) printSeeded(ctx, seed.seeded, seed.profile);
  else if (!ctx.settings.sandbox && (await ctx.store()).getProfile(SANDBOX_PROFILE)?.base_url === baseUrl) {
    // Its credentials went with the rest: say so now rather than at the next command's refusal.
    ctx.out.info(
      `the \`${SANDBOX_PROFILE}\` profile's credentials were deleted too: \`svc sandbox reset --seed\` resets and saves new ones`,
    );
  }
  return 0;
}
