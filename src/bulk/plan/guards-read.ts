/**
 * The guards of a real import (docs/importer.md, "Guards"), run before anything is sent:
 * - orders: more than 1 % of the orders dated over 30 days ago, sent live (no --initial-sync),
 *   stop with exit 2 unless --live confirms the side effects are wanted;
 * - contacts: rows that would lift a merchant suppression stop with exit 2 unless
 *   --allow-unsuppress; only the merchant-suppressed contacts are read (needs contacts_read).
 * A regular file is read once more to decide on every row; stdin and pipes on their first 10,000
 * rows (peek.ts), and a contacts stream's later unsuppressing rows are rejected, not sent.
 */

import { ApiError, MissingScopeError } from '../../client/errors.js';
import type { ApiClient } from '../../client/types.js';
import { GuardError, InputError } from '../../importer/errors.js';
import type { ContactWork } from '../adapters/contacts.js';
import type { OrderWork } from '../adapters/orders.js';
import type { CsvSource } from '../sources/csv-source.js';
import { readSuppressed } from './account.js';
import { sampleText } from './cells.js';
import { countHistorical, countUnsuppressing, holdUnsuppressing, tooHistorical } from './guards.js';
import { HISTORICAL_DAYS } from './orders-plan.js';
import { GUARD_STREAM_ROWS, peekCsv } from './peek.js';

export interface GuardInput {
  /** A regular file, which can be opened a second time. */
  resumable: boolean;
  reopen(): Promise<CsvSource>;
}

/**
 * What a guard reads: a regular file again from its start (`next` is the source as it was), or a
 * stream's first GUARD_STREAM_ROWS rows (`next` hands on the whole stream, peeked rows included);
 * `scope` names what was read.
 */
async function toCheck(input: GuardInput, source: CsvSource): Promise<{ checked: CsvSource; next: CsvSource; scope: string }> {
  if (input.resumable) return { checked: await input.reopen(), next: source, scope: 'the file' };
  const peeked = await peekCsv(source, GUARD_STREAM_ROWS);
  const scope = peeked.complete ? 'the input' : `the first ${GUARD_STREAM_ROWS.toLocaleString('en-US')} rows of the input`;
  return { checked: peeked.head, next: peeked.whole, scope };
}

/** The source to import from (the same, or the peeked stream handed on); throws exit 2 when stopped. */
export async function guardHistoricalOrders(
  now: number,
  input: GuardInput,
  source: CsvSource,
  rowsOf: (s: CsvSource) => AsyncIterable<OrderWork[]>,
  opts: { initialSync?: boolean; live?: boolean },
): Promise<CsvSource> {
  if (opts.initialSync && opts.live)
    throw new InputError('--initial-sync and --live do not go together', '--initial-sync sends no side effects; --live confirms them');
  if (opts.initialSync || opts.live) return source;
  const { checked, next, scope } = await toCheck(input, source);
  const c = await countHistorical(rowsOf(checked), now);
  if (!tooHistorical(c)) return next;
  const h = c.historical;
  throw new GuardError(
    `${h.count} of ${c.rows} order(s) in ${scope} are dated more than ${HISTORICAL_DAYS} days ago (${sampleText(h)}: ${h.orderIds.join(', ')}${h.count > h.orderIds.length ? ', …' : ''}); sent without initial_sync they would trigger flows, automations and revenue attribution for past buyers`,
    {
      code: 'historical_orders',
      hint: 'add --initial-sync to import them as history (no side effects), or --live to confirm the side effects are wanted',
    },
  );
}

function needsRead(): never {
  throw new GuardError(
    'the unsuppression guard reads the merchant-suppressed contacts and needs the scope contacts_read, which these credentials lack',
    { code: 'auth', kind: 'auth', hint: 'log in with contacts_read, or add --allow-unsuppress to import without the check' },
  );
}

/** The rows to import (the later unsuppressing rows of a stream held back); throws exit 2 when stopped, 3 without contacts_read. */
export async function guardUnsuppress(
  signal: AbortSignal,
  client: ApiClient,
  input: GuardInput,
  source: CsvSource,
  rowsOf: (s: CsvSource) => AsyncIterable<ContactWork[]>,
  opts: { allowUnsuppress?: boolean },
): Promise<AsyncIterable<ContactWork[]>> {
  if (opts.allowUnsuppress) return rowsOf(source);
  let suppressed: Awaited<ReturnType<typeof readSuppressed>>;
  try {
    await client.ensureScope('listContacts');
    suppressed = await readSuppressed(client, { signal });
  } catch (err) {
    if (err instanceof MissingScopeError || (err instanceof ApiError && err.code === 'insufficient_scope')) needsRead();
    throw err;
  }
  if (suppressed.byEmail.size === 0 && suppressed.byPhone.size === 0) return rowsOf(source);
  const { checked, next, scope } = await toCheck(input, source);
  const cell = await countUnsuppressing(rowsOf(checked), suppressed);
  if (cell.count > 0)
    throw new GuardError(
      `${cell.count} row(s) in ${scope} would lift a merchant suppression (${sampleText(cell)}): writing consent to a contact whose email_consent is suppressed unsuppresses it first`,
      {
        code: 'would_unsuppress',
        hint: 'see them with --plan; add --allow-unsuppress if lifting the suppressions is intended',
      },
    );
  return holdUnsuppressing(rowsOf(next), suppressed);
}
