/**
 * svc contacts create: checks every field before sending; on a 409 the existing contact
 * (error.id) is reported (fail), printed (skip) or patched (update).
 */
import { ApiError, statusKind } from '../../client/errors.js';
import type { ApiClient } from '../../client/types.js';
import type { Context } from '../../context.js';
import type { Contact, ContactWrite } from '../../contract/types.js';
import { HintedError, UsageError } from '../../errors.js';
import {
  buildContactWrite,
  type ContactFieldOptions,
  checkPhoneRequirement,
  explainContactError,
  fetchBeforeWrite,
  printWrittenContact,
} from './shared.js';
import { patchWithChecks, reportWrite } from './write.js';

export interface CreateOptions extends ContactFieldOptions {
  ifExists?: 'fail' | 'skip' | 'update';
}

/** The state a brand-new contact starts from (open-points: consent defaults never_subscribed). */
const NEW_CONTACT_CONSENT = 'never_subscribed' as const;

/**
 * Best effort: the contact this create may land on (same email, else phone), so that a 200
 * (merchant suppression lifted) can tell whether the welcome SMS went out. Needs contacts_read;
 * any failure just means "unknown".
 */
async function findExisting(ctx: Context, client: ApiClient, body: ContactWrite): Promise<Contact | null | undefined> {
  try {
    for (const filter of [body.email ? { email: body.email.toLowerCase() } : undefined, body.phone ? { phone: body.phone } : undefined]) {
      if (!filter) continue;
      const page = await client.listContacts({ ...filter, limit: 1 }, { signal: ctx.signal });
      if (page.data[0]) return page.data[0];
    }
    return null;
  } catch {
    return undefined;
  }
}

export async function run(_args: string[], opts: CreateOptions, ctx: Context): Promise<number> {
  const body = await buildContactWrite(ctx, opts);
  if (body.email === undefined && body.phone === undefined) {
    throw new UsageError('a contact needs an email or a phone: give --email or --phone (or both)');
  }
  checkPhoneRequirement(body, undefined);
  if (opts.welcomeSms === false) body.send_welcome_sms = false;
  const mode = opts.ifExists ?? 'fail';

  const client = await ctx.client();
  await client.ensureScope('createContact');
  const existing = body.sms_consent === 'subscribed' ? await findExisting(ctx, client, body) : null;

  let result: Awaited<ReturnType<ApiClient['createContact']>>;
  try {
    result = await client.createContact(body, { signal: ctx.signal });
  } catch (err) {
    if (!(err instanceof ApiError) || err.kind !== 'conflict' || !err.id) throw explainContactError(err);
    return onConflict(ctx, client, err, body, mode);
  }

  const contact = result.body;
  if (statusKind(result.status) === 'ok') {
    ctx.out.success(
      `Contact ${contact.id} already existed with a merchant-suppressed email: the suppression was lifted and the values applied`,
    );
    reportWrite(ctx, existing ?? undefined, body, contact);
  } else {
    ctx.out.success(`Created contact ${contact.id}`);
    reportWrite(ctx, { ...contact, email_consent: NEW_CONTACT_CONSENT, sms_consent: NEW_CONTACT_CONSENT }, body, contact);
  }
  printWrittenContact(ctx, contact);
  return 0;
}

async function onConflict(
  ctx: Context,
  client: ApiClient,
  err: ApiError,
  body: ContactWrite,
  mode: 'fail' | 'skip' | 'update',
): Promise<number> {
  const id = err.id as string;
  if (mode === 'fail') {
    throw new HintedError(
      err.withMessage(`a contact with this email or phone already exists: ${id}`),
      '`--if-exists skip` prints it; `--if-exists update` changes it',
    );
  }
  if (mode === 'skip') {
    const current = await fetchBeforeWrite(ctx, client, id);
    ctx.out.info(`Contact ${id} already exists; skipped (nothing changed).`);
    if (current) printWrittenContact(ctx, current);
    else if (ctx.settings.json) ctx.out.json({ id });
    else ctx.out.stdout(`${id}\n`);
    return 0;
  }
  const known = await fetchBeforeWrite(ctx, client, id);
  const { before, after } = await patchWithChecks(ctx, client, id, body, known);
  ctx.out.success(`Contact ${id} already existed; updated it`);
  reportWrite(ctx, before, body, after);
  printWrittenContact(ctx, after);
  return 0;
}
