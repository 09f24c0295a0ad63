/**
 * svc events send: one event from flags, or every line of an NDJSON file (--file, send-file.ts).
 * Events are not idempotent: nothing here ever resends an event whose fate is unknown.
 */

import type { CountryCode } from 'libphonenumber-js/max';
import type { LineResult } from '../../bulk/index.js';
import { sendOne } from '../../bulk/index.js';
import type { Context } from '../../context.js';
import { validateEventInput } from '../../contract/events.js';
import { parseJson } from '../../contract/exact-json.js';
import { jsonTooDeep, MAX_JSON_DEPTH } from '../../contract/json-depth.js';
import type { EventInput } from '../../contract/types.js';
import { CliError, EXIT, Interrupted, UsageError, ValidationError } from '../../errors.js';
import { formatLimit, isAbortError, ReadLimitError, readOptionInput, SERVICE_BODY_LIMIT } from '../../util/read-capped.js';
import { mergeProperties, PropError, type Properties, parseProps } from '../props.js';
import { sendFile } from './send-file.js';
import { ACCEPTED_NOTE, kebab, logRetry, MAX_CONCURRENCY, type SendOptions } from './shared.js';

export type { SendOptions } from './shared.js';

const FIELD_FLAGS: Record<string, string> = {
  event_type: '--type',
  email: '--email',
  phone: '--phone',
  contact_id: '--contact-id',
  properties: '--properties/--prop',
  occurred_at: '--occurred-at',
  event_id: '--event-id',
};

export async function run(_args: string[], opts: SendOptions, ctx: Context): Promise<number> {
  const country = await parseCountry(opts.defaultCountry);
  if (opts.concurrency !== undefined && opts.concurrency > MAX_CONCURRENCY) {
    throw new UsageError(`--concurrency must be at most ${MAX_CONCURRENCY}`, 'more requests in flight than that only queue up');
  }
  if (opts.file !== undefined) return sendFile(opts, ctx, country);
  for (const flag of [
    'concurrency',
    'report',
    'rejects',
    'rejectsIncludeFailed',
    'dryRun',
    'resume',
    'journal',
    'unconfirmedOut',
    'encoding',
  ] as const) {
    if (opts[flag] !== undefined) throw new UsageError(`--${kebab(flag)} only applies with --file`);
  }
  return sendSingle(opts, ctx, country);
}

/** The phone helpers (libphonenumber, ~100 ms to load) are loaded only when a phone is involved. */
const phoneModule = () => import('../../contract/phone.js');

async function parseCountry(value: string | undefined): Promise<CountryCode | undefined> {
  if (value === undefined) return undefined;
  const cc = (await phoneModule()).normalizeCountry(value);
  if (!cc)
    throw new UsageError(`--default-country ${JSON.stringify(value)} is not an ISO 3166 country code`, 'write two letters, e.g. US or GB');
  return cc;
}

/** Reads --properties: inline JSON, @file, or @- for stdin. Must be a JSON object. */
async function readPropertiesOption(value: string, ctx: Context): Promise<Properties> {
  let text = value;
  let where = '--properties';
  if (value.startsWith('@')) {
    const path = value.slice(1);
    where = `--properties ${value}`;
    try {
      const bytes = await readOptionInput(path, ctx.io.stdin, SERVICE_BODY_LIMIT, ctx.signal);
      text = bytes.toString('utf8');
    } catch (err) {
      if (isAbortError(err)) throw err;
      if (err instanceof ReadLimitError)
        throw new ValidationError(
          `${where} is larger than ${formatLimit(err.limit)}, the service's body limit: the event would be refused (413)`,
          { field: 'properties' },
        );
      throw new UsageError(`cannot read ${where}: ${(err as Error).message}`);
    }
  }
  // In the event's body the properties sit one level down: the service's 64 levels leave them 63.
  if (jsonTooDeep(text, MAX_JSON_DEPTH - 1)) {
    throw new ValidationError(`${where} is nested more than ${MAX_JSON_DEPTH - 1} levels deep (the event may nest ${MAX_JSON_DEPTH})`, {
      field: 'properties',
    });
  }
  let parsed: unknown;
  try {
    parsed = parseJson(text);
  } catch (err) {
    throw new ValidationError(`${where} is not valid JSON (${(err as Error).message})`, {
      field: 'properties',
      hint: `write a JSON object, e.g. --properties '{"plan":"pro"}', or use --prop key=value`,
    });
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new ValidationError(`${where} must be a JSON object`, { field: 'properties' });
  }
  return parsed as Properties;
}

/** Builds and validates the single event from flags; every problem is exit 2 naming its flag. */
async function buildEvent(opts: SendOptions, ctx: Context, country: CountryCode | undefined): Promise<EventInput> {
  if (opts.type === undefined) {
    throw new UsageError(
      '--type is required (or --file to send an NDJSON file)',
      'e.g. svc events send --type signed_up --email ada@example.com',
    );
  }
  if (opts.email === undefined && opts.phone === undefined && opts.contactId === undefined) {
    throw new UsageError('say which contact the event is about: --email, --phone or --contact-id');
  }
  const properties = await eventProperties(opts, ctx);
  const phone = opts.phone === undefined ? undefined : await normalizedPhone(opts.phone, country);
  const body: Record<string, unknown> = { event_type: opts.type };
  if (opts.email !== undefined) body.email = opts.email;
  if (phone !== undefined) body.phone = phone;
  if (opts.contactId !== undefined) body.contact_id = opts.contactId;
  if (properties !== undefined) body.properties = properties;
  if (opts.occurredAt !== undefined) body.occurred_at = opts.occurredAt;
  if (opts.eventId !== undefined) body.event_id = opts.eventId;
  const result = validateEventInput(body);
  if (!result.ok) {
    const first = result.errors[0];
    const message = result.errors.map((e) => `${FIELD_FLAGS[e.field] ?? e.field} ${e.message}`).join('; ');
    throw new ValidationError(message, { field: first?.field });
  }
  return result.value;
}

/** --properties (JSON) with the --prop pairs merged over it; nested no deeper than the event may be. */
async function eventProperties(opts: SendOptions, ctx: Context): Promise<Properties | undefined> {
  const properties = opts.properties !== undefined ? await readPropertiesOption(opts.properties, ctx) : undefined;
  if (!opts.prop?.length) return properties;
  let merged: Properties;
  try {
    merged = mergeProperties(properties ?? {}, parseProps(opts.prop));
  } catch (err) {
    if (err instanceof PropError) {
      throw new ValidationError(err.message, {
        field: 'properties',
        hint: 'key=value types numbers, true/false and null; key:=<json> takes raw JSON (key:=\'"007"\' forces a string)',
      });
    }
    throw err;
  }
  // --prop a.b.c…=1 or key:=<json> nests as deep as --properties can: the same limit, before sending.
  if (jsonTooDeep(JSON.stringify(merged), MAX_JSON_DEPTH - 1))
    throw new ValidationError(`--prop is nested more than ${MAX_JSON_DEPTH - 1} levels deep (the event may nest ${MAX_JSON_DEPTH})`, {
      field: 'properties',
    });
  return merged;
}

/** --phone in E.164 (with --default-country for a local number). */
async function normalizedPhone(phone: string, country: CountryCode | undefined): Promise<string> {
  const res = (await phoneModule()).normalizePhone(phone, country);
  if (!res.ok) throw new ValidationError(`--phone ${res.message}`, { field: 'phone' });
  return res.e164;
}

async function sendSingle(opts: SendOptions, ctx: Context, country: CountryCode | undefined): Promise<number> {
  const event = await buildEvent(opts, ctx, country);
  const client = await ctx.client();
  await client.ensureScope('sendEvent');
  const interrupted = () =>
    new Interrupted(
      'interrupted while sending the event: it may or may not have been accepted',
      'check before sending it again (with the sandbox: svc sandbox outbox --type flow_run)',
    );
  const result = await sendOne(client, event, 1, { signal: ctx.signal, onRetry: (info) => logRetry(ctx, info) }).catch((err) => {
    throw ctx.signal.aborted ? interrupted() : err;
  });
  // sendOne turns the aborted request into a line result; Ctrl-C is exit 130 all the same.
  if (ctx.signal.aborted && result.outcome !== 'accepted') throw interrupted();
  if (result.outcome === 'accepted') {
    if (ctx.settings.json) ctx.out.json({ status: 'accepted', id: result.id });
    else {
      ctx.out.stdout(`${result.id}\n`);
      ctx.out.info(ACCEPTED_NOTE);
    }
    return EXIT.ok;
  }
  throw singleFailure(result);
}

/** The single event did not go through: exit 1, with the HTTP status and request id when there was an answer. */
function singleFailure(result: LineResult): CliError {
  const status = result.status !== undefined ? ` (HTTP ${result.status}${result.requestId ? `, request id ${result.requestId}` : ''})` : '';
  const answer = { status: result.status, requestId: result.requestId };
  if (result.outcome === 'unconfirmed') {
    return new CliError(`the event's fate is unknown${status}: ${result.message ?? ''}`, {
      exitCode: EXIT.failure,
      code: 'unconfirmed',
      hint: 'events are not idempotent: check whether it arrived (with the sandbox: svc sandbox outbox --type flow_run) before sending it again',
      ...answer,
    });
  }
  if (result.outcome === 'failed') {
    return new CliError(`the event was not sent${status}: ${result.message ?? ''}`, {
      exitCode: EXIT.failure,
      code: result.errorCode ?? 'failed',
      hint: 'it was certainly not processed; it is safe to run the command again',
      ...answer,
    });
  }
  return new CliError(`the service rejected the event${status}: ${result.message ?? ''}`, {
    exitCode: EXIT.failure,
    code: result.errorCode ?? 'rejected',
    ...answer,
  });
}
