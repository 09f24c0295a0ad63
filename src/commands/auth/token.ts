/**
 * svc auth token: prints a valid bearer token (renewed first if due), for scripts:
 * `curl -H "Authorization: Bearer $(svc auth token)"`. With --json, one object with its expiry.
 */

import type { Context } from '../../context.js';
import { openClient } from '../../wiring/client.js';
import { secondsUntil } from './shared.js';

export async function run(_args: string[], _opts: Record<never, never>, ctx: Context): Promise<number> {
  const { client, close } = await openClient(ctx);
  try {
    const token = await client.accessToken(ctx.signal);
    if (ctx.settings.json) {
      // --json promises one JSON document on stdout: the token with what a script needs to cache it.
      const expiresAt = client.tokens.expiresAt();
      ctx.out.json({
        access_token: token,
        token_type: 'Bearer',
        expires_in: expiresAt !== undefined ? secondsUntil(expiresAt, ctx.now()) : null,
        expires_at: expiresAt !== undefined ? new Date(expiresAt).toISOString() : null,
        scopes: client.tokens.grantedScopes() ?? null,
      });
    } else ctx.out.stdout(`${token}\n`);
  } finally {
    await close();
  }
  return 0;
}
