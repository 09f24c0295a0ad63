/** svc contacts get ID: one contact, as JSON with --json, else as `key  value` lines. */
import type { Context } from '../../context.js';
import { explainContactError, parseContactId, printContactRecord } from './shared.js';

export async function run(args: string[], _opts: Record<never, never>, ctx: Context): Promise<number> {
  const id = parseContactId(args[0]);
  const client = await ctx.client();
  await client.ensureScope('getContact');
  let contact: Awaited<ReturnType<typeof client.getContact>>;
  try {
    contact = await client.getContact(id, { signal: ctx.signal });
  } catch (err) {
    throw explainContactError(err, id);
  }
  if (ctx.settings.json) ctx.out.json(contact);
  else printContactRecord(ctx, contact);
  return 0;
}
