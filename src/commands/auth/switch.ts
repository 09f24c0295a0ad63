/**
 * svc auth switch NAME: makes a stored profile the default, used when neither --profile nor
 * SVC_PROFILE names one (like `gh auth switch`). An unknown name is a usage error listing the known.
 */
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { DEFAULT_PROFILE, envValue } from '../../store/settings.js';

export async function run(args: [name: string], _opts: Record<never, never>, ctx: Context): Promise<number> {
  const [name] = args;
  const store = await ctx.store();
  const known = store.listProfiles();
  if (!known.includes(name)) {
    throw new UsageError(
      `no profile named ${JSON.stringify(name)}`,
      known.length > 0
        ? `known profiles: ${known.join(', ')} (\`svc auth list\` shows them)`
        : 'no profile is stored yet: `svc auth login --profile NAME` creates one',
    );
  }
  const previous = store.defaultProfile() ?? DEFAULT_PROFILE;
  store.setDefaultProfile(name);
  const profile = store.getProfile(name);
  if (ctx.settings.json) ctx.out.json({ default_profile: name, previous, base_url: profile?.base_url ?? null });
  else
    ctx.out.success(
      `Default profile is now ${name}${profile?.base_url ? ` (${profile.base_url})` : ''}${previous !== name ? `; it was ${previous}` : ''}`,
    );
  const override = envValue(ctx.env, 'SVC_PROFILE');
  if (override !== undefined) ctx.log.warn(`SVC_PROFILE=${override} is set and takes precedence over the default profile`);
  return 0;
}
