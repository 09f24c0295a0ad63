/** svc contacts patch ID: change any writable field; checks consent and phone before sending. */
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { buildContactWrite, type ContactFieldOptions, hasFields, parseContactId, printWrittenContact } from './shared.js';
import { patchWithChecks, reportWrite } from './write.js';

export async function run(args: string[], opts: ContactFieldOptions, ctx: Context): Promise<number> {
  const id = parseContactId(args[0]);
  const body = await buildContactWrite(ctx, opts);
  if (!hasFields(body)) {
    throw new UsageError(
      'nothing to change: give at least one of --email, --phone, --first-name, --last-name, --email-consent, --sms-consent',
    );
  }
  if (opts.welcomeSms === false) body.send_welcome_sms = false;
  const client = await ctx.client();
  await client.ensureScope('patchContact');
  const { before, after } = await patchWithChecks(ctx, client, id, body);
  ctx.out.success(`Updated contact ${after.id}`);
  reportWrite(ctx, before, body, after);
  printWrittenContact(ctx, after);
  return 0;
}
