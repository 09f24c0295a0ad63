/** svc auth logout: forgets the profile's credentials and cached token (keeps its base URL and preferences). */
import type { Context } from '../../context.js';
import { CREDENTIAL_FIELDS, clearedCredentials } from '../../store/credentials.js';
import { envValue } from '../../store/settings.js';

export async function run(_args: string[], _opts: Record<never, never>, ctx: Context): Promise<number> {
  const store = await ctx.store();
  const name = ctx.settings.profile;
  const profile = store.getProfile(name);
  const had = profile !== undefined && CREDENTIAL_FIELDS.some((f) => profile[f] !== undefined);
  if (had) {
    const rest = store.updateProfile(name, clearedCredentials());
    if (Object.keys(rest).length === 0) store.deleteProfile(name);
  }
  if (ctx.settings.json) ctx.out.json({ profile: name, logged_out: had });
  else if (had) ctx.out.success(`Logged out of profile ${name}: its credentials were removed from ${store.path}`);
  else ctx.out.info(`Profile ${name} held no credentials; nothing to do`);
  const env = ['SVC_TOKEN', 'SVC_CLIENT_ID', 'SVC_CLIENT_SECRET'].filter((n) => envValue(ctx.env, n) !== undefined);
  if (env.length) ctx.log.warn(`${env.join(', ')} is still set in the environment and will keep authenticating commands`);
  return 0;
}
