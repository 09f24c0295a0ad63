/** svc contacts get ID: one contact, as JSON with --json, else as `key  value` lines; --fields picks the fields. */
import type { Context } from '../../context.js';
import { parseFields, pickFields } from '../../io/fields.js';
import { CONTACT_FIELDS, explainContactError, parseContactId, printContactRecord } from './shared.js';

export async function run(args: string[], opts: { fields?: string }, ctx: Context): Promise<number> {
  const fields = opts.fields === undefined ? undefined : parseFields(opts.fields, CONTACT_FIELDS);
  const id = parseContactId(args[0]);
  const client = await ctx.client();
  await client.ensureScope('getContact');
  let contact: Awaited<ReturnType<typeof client.getContact>>;
  try {
    contact = await client.getContact(id, { signal: ctx.signal });
  } catch (err) {
    throw explainContactError(err, id);
  }
  if (ctx.settings.json) ctx.out.json(fields ? pickFields(contact, fields) : contact);
  else printContactRecord(ctx, contact, fields);
  return 0;
}
