/** The write path shared by `patch` and `create --if-exists update`: checks, PATCH, report. */
import { ApiError } from '../../client/errors.js';
import type { ApiClient } from '../../client/types.js';
import type { Context } from '../../context.js';
import type { Contact, ContactWrite } from '../../contract/types.js';
import { checkPhoneRequirement, explainContactError, fetchBeforeWrite, reportWelcomeSms, welcomeSmsOutcome } from './shared.js';

/** Tells the user when a write lifted a merchant suppression (spec: unsuppressed first, then applied). */
export function reportSuppressionLifted(ctx: Context, before: Contact | undefined, body: ContactWrite, after: Contact): void {
  if (before?.email_consent !== 'suppressed') return;
  if (body.email_consent === undefined && body.sms_consent === undefined) return;
  if (after.email_consent === 'suppressed') return;
  ctx.out.info(`The merchant suppression of contact ${after.id} was lifted; email consent is now ${after.email_consent}.`);
}

/**
 * PATCHes a contact after the client-side checks. `before` is the contact as last read, when the
 * caller already has it; otherwise it is fetched when the write touches consent (phone
 * requirement, welcome SMS and suppression reports need it).
 */
export async function patchWithChecks(
  ctx: Context,
  client: ApiClient,
  id: string,
  body: ContactWrite,
  known?: Contact,
): Promise<{ before: Contact | undefined; after: Contact }> {
  let before = known;
  if (!before && (body.email_consent !== undefined || body.sms_consent !== undefined)) before = await fetchBeforeWrite(ctx, client, id);
  if (before) checkPhoneRequirement(body, before, id);
  let after: Contact;
  try {
    after = (await client.patchContact(id, body, { signal: ctx.signal })).body;
  } catch (err) {
    if (err instanceof ApiError && err.kind === 'conflict') {
      throw err.withMessage(
        `another contact${err.id ? ` (${err.id})` : ''} already has this email or phone; contact ${id} was not changed`,
      );
    }
    throw explainContactError(err, id);
  }
  return { before, after };
}

/** The stderr notes after a write: lifted suppression, welcome SMS. */
export function reportWrite(ctx: Context, before: Contact | undefined, body: ContactWrite, after: Contact): void {
  reportSuppressionLifted(ctx, before, body, after);
  reportWelcomeSms(ctx, welcomeSmsOutcome(body, before?.sms_consent, after), after.id);
}
