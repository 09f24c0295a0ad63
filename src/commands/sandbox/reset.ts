/** svc sandbox reset: empties every table and fault of a running sandbox (keeps biz_default). */
import type { Context } from '../../context.js';
import { adminCall, sandboxBaseUrl } from './admin-client.js';

export async function run(_args: string[], _opts: Record<never, never>, ctx: Context): Promise<number> {
  const baseUrl = await sandboxBaseUrl(ctx);
  await adminCall(ctx, baseUrl, 'POST', '/reset');
  if (ctx.settings.json) ctx.out.json({ status: 'reset', base_url: baseUrl });
  else ctx.out.success(`sandbox at ${baseUrl} reset: all data and faults cleared`);
  return 0;
}
