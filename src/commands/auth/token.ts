/** svc auth token: prints a valid bearer token (renewed first if due), for scripts: `curl -H "Authorization: Bearer $(svc auth token)"`. */

import type { ServiceClient } from '../../client/client.js';
import { buildSandboxClient, buildServiceClient } from '../../client/factory.js';
import type { Context } from '../../context.js';

export async function run(_args: string[], _opts: Record<string, unknown>, ctx: Context): Promise<number> {
  let client: ServiceClient;
  let close: () => Promise<void>;
  if (ctx.settings.sandbox) ({ client, close } = await buildSandboxClient(ctx));
  else {
    client = (await buildServiceClient(ctx)).client;
    close = () => client.close();
  }
  try {
    const token = await client.accessToken(ctx.signal);
    ctx.out.stdout(`${token}\n`);
  } finally {
    await close();
  }
  return 0;
}
