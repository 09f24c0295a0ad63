/**
 * The integration token sent as X-Service-Integration-Token on order requests. Precedence:
 * --integration-token-stdin > SVC_INTEGRATION_TOKEN > the profile's integration_token; never argv.
 * With --sandbox only the flag counts: the embedded sandbox is its own service, whose credentials
 * are made on first use, so a token from the environment or a profile (made for another service
 * or sandbox) would only earn a 403, as SVC_TOKEN and the profile's credentials are ignored there.
 */
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { checkCredentialText, envCredential } from '../../store/settings.js';
import { readCredentialStdin } from '../auth/shared.js';

export async function resolveIntegrationToken(ctx: Context, fromStdin: boolean): Promise<string | undefined> {
  if (fromStdin) {
    if (ctx.io.stdinIsTTY) ctx.out.info('paste the integration token, then press Enter and Ctrl-D:');
    const token = (await readCredentialStdin(ctx.io.stdin, '--integration-token-stdin', ctx.signal)).trim();
    if (!token) throw new UsageError('--integration-token-stdin: stdin was empty', 'pipe the token in, e.g. from your secret manager');
    checkCredentialText(token, '--integration-token-stdin');
    ctx.integrationToken = { source: 'flag', profile: ctx.settings.profile };
    return token;
  }
  if (ctx.settings.sandbox) return undefined;
  const fromEnv = envCredential(ctx.env, 'SVC_INTEGRATION_TOKEN');
  if (fromEnv) {
    ctx.integrationToken = { source: 'env', profile: ctx.settings.profile };
    return fromEnv;
  }
  try {
    const store = await ctx.store();
    const stored = store.getProfile(ctx.settings.profile)?.integration_token;
    if (stored !== undefined) ctx.integrationToken = { source: 'profile', profile: ctx.settings.profile };
    return stored;
  } catch {
    return undefined;
  }
}
