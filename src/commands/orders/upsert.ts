/**
 * svc orders upsert: one order from flags or --input FILE|- (JSON), through the idempotent upsert.
 * Prints the stored order and whether it was created (201) or updated (200).
 */

import { statusKind } from '../../client/errors.js';
import type { Context } from '../../context.js';
import { parseJson } from '../../contract/exact-json.js';
import { validateOrderInput } from '../../contract/orders.js';
import { normalizeCountry, normalizePhone } from '../../contract/phone.js';
import { EXIT, UsageError, ValidationError } from '../../errors.js';
import { normalizeOrderDate } from '../../importer/cell-values.js';
import { formatLimit, isAbortError, ReadLimitError, readOptionInput, SERVICE_BODY_LIMIT } from '../../util/read-capped.js';
import { resolveIntegrationToken } from './token.js';

export interface UpsertOptions {
  orderId?: string;
  total?: string;
  currency?: string;
  orderDate?: string;
  email?: string;
  phone?: string;
  acceptsEmailMarketing?: boolean;
  acceptsSmsMarketing?: boolean;
  initialSync?: boolean;
  input?: string;
  integrationTokenStdin?: boolean;
  defaultCountry?: string;
}

const FLAG_OF: Record<string, string> = {
  order_id: '--order-id',
  total: '--total',
  currency: '--currency',
  order_date: '--order-date',
  email: '--email',
  phone: '--phone',
  accepts_email_marketing: '--accepts-email-marketing',
  accepts_sms_marketing: '--accepts-sms-marketing',
  initial_sync: '--initial-sync',
};

async function readInput(path: string, ctx: Context): Promise<Record<string, unknown>> {
  let text: string;
  try {
    text = (await readOptionInput(path, ctx.io.stdin, SERVICE_BODY_LIMIT, ctx.signal)).toString('utf8');
  } catch (err) {
    if (isAbortError(err)) throw err;
    if (err instanceof ReadLimitError)
      throw new UsageError(
        `--input ${path} is larger than ${formatLimit(err.limit)}, the service's body limit: it would be refused (413 payload_too_large)`,
      );
    throw new UsageError(`cannot read --input ${path}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
  }
  let value: unknown;
  try {
    value = parseJson(text);
  } catch (err) {
    throw new ValidationError(`--input ${path === '-' ? 'stdin' : path} is not valid JSON: ${(err as Error).message}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new ValidationError('--input must hold one JSON object (the order)', {
      hint: 'to send many orders use `svc orders import FILE`',
    });
  }
  return value as Record<string, unknown>;
}

export async function run(_args: string[], opts: UpsertOptions, ctx: Context): Promise<number> {
  if (opts.input === '-' && opts.integrationTokenStdin) {
    throw new UsageError(
      '--input - and --integration-token-stdin cannot both read stdin',
      'set SVC_INTEGRATION_TOKEN, or put the order in a file',
    );
  }
  const country = opts.defaultCountry !== undefined ? parseCountry(opts.defaultCountry) : undefined;
  const body = await orderBody(opts, ctx);
  normalizeOrder(body, country, opts.phone !== undefined);
  const checked = validateOrderInput(body);
  if (!checked.ok) {
    const fromFlags = opts.input === undefined;
    const message = checked.errors.map((e) => `${fromFlags ? (FLAG_OF[e.field] ?? e.field) : e.field} ${e.message}`).join('; ');
    throw new ValidationError(message, { field: checked.errors[0]?.field });
  }
  const integrationToken = await resolveIntegrationToken(ctx, opts.integrationTokenStdin === true);
  const client = await ctx.client();
  await client.ensureScope('upsertOrder');
  const res = await client.upsertOrder(checked.value, {
    integrationToken,
    signal: ctx.signal,
    onRetry: (info) =>
      ctx.log.debug(`retrying ${info.method} ${info.path} in ${info.delayMs} ms (attempt ${info.attempt}: ${info.status ?? info.error})`),
  });
  // A 200 after an attempt that ended without an answer: that attempt may have created it.
  const outcome = statusKind(res.status) === 'created' ? 'created' : res.uncertain ? 'unconfirmed' : 'updated';
  if (ctx.settings.json) ctx.out.json({ outcome, status: res.status, order: res.body });
  else printOrder(ctx, res.body, outcome);
  return EXIT.ok;
}

function parseCountry(given: string): NonNullable<ReturnType<typeof normalizeCountry>> {
  const country = normalizeCountry(given);
  if (!country) throw new UsageError(`--default-country must be an ISO 3166 country code such as US or DE, got ${JSON.stringify(given)}`);
  return country;
}

/** The order as given: --input's object with the flags over it; nothing at all is a usage error. */
async function orderBody(opts: UpsertOptions, ctx: Context): Promise<Record<string, unknown>> {
  const body: Record<string, unknown> = opts.input !== undefined ? await readInput(opts.input, ctx) : {};
  const flags: Record<string, unknown> = {
    order_id: opts.orderId,
    total: opts.total,
    currency: opts.currency,
    order_date: opts.orderDate,
    email: opts.email,
    phone: opts.phone,
    accepts_email_marketing: opts.acceptsEmailMarketing,
    accepts_sms_marketing: opts.acceptsSmsMarketing,
    initial_sync: opts.initialSync,
  };
  for (const [k, v] of Object.entries(flags)) if (v !== undefined) body[k] = v;
  if (Object.keys(body).length === 0) {
    throw new UsageError(
      'give the order with flags or --input FILE',
      'svc orders upsert --order-id 1001 --total 49.90 --currency EUR --order-date 2024-03-01 --email ada@example.com',
    );
  }
  return body;
}

/** The phone in E.164 (a bad one is an error naming --phone or the field) and a date the service reads. */
function normalizeOrder(
  body: Record<string, unknown>,
  country: ReturnType<typeof normalizeCountry> | undefined,
  phoneFromFlag: boolean,
): void {
  if (typeof body.phone === 'string' && body.phone !== '') {
    const p = normalizePhone(body.phone, country);
    if (!p.ok) throw new ValidationError(`${phoneFromFlag ? '--phone' : 'phone'} ${p.message}`, { field: 'phone' });
    body.phone = p.e164;
  }
  if (typeof body.order_date === 'string') {
    const d = normalizeOrderDate(body.order_date);
    if (!(d instanceof Error)) body.order_date = d;
  }
}

type StoredOrder = Awaited<ReturnType<Awaited<ReturnType<Context['client']>>['upsertOrder']>>['body'];

function printOrder(ctx: Context, o: StoredOrder, outcome: 'created' | 'updated' | 'unconfirmed'): void {
  ctx.out.record([
    ['order_id', o.order_id],
    ['total', `${o.total} ${o.currency}`],
    ['order_date', o.order_date],
    ['email', o.email],
    ['phone', o.phone],
    ['contact_id', o.contact_id],
    ['integration_id', o.integration_id],
    ['initial_sync', o.initial_sync],
    ['line_items', o.line_items?.length ?? 0],
    ['updated_at', o.updated_at],
  ]);
  if (outcome === 'created') ctx.out.success(`order ${o.order_id} created (201)`);
  else if (outcome === 'updated') ctx.out.success(`order ${o.order_id} updated (200)`);
  else ctx.out.warn(`order ${o.order_id} stored (200), but an earlier attempt ended without an answer: created or updated is unknown`);
}
