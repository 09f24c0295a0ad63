/**
 * The plan of a contacts import: what each row would do to the person it names, worked out from
 * the account's contacts without sending anything. A pure function of (rows, account, options):
 * it follows the service's rules as the sandbox implements them (spec "States and transitions",
 * open-points "Contacts") and the importer's own (contacts.ts: POST, then on 409 the
 * `--if-exists` answer). Rows are taken in input order, and each row sees what the rows before it
 * did (a person created on line 4 exists for line 9), as the import's per-person ordering does.
 */
import {
  EMAIL_CONSENT_VALUES,
  type EmailConsent,
  SMS_CONSENT_VALUES,
  type SmsConsent,
  smsConsentNeedsPhone,
} from '../../contract/consent.js';
import type { ContactWrite } from '../../contract/types.js';
import type { ContactWork, IfExists } from '../adapters/contacts.js';
import type { AccountIndex, KnownContact } from './account.js';
import { emptyCell, type PlanCell, type Transition, TransitionTable, tally } from './cells.js';

/** What a row would end as. */
export const CONTACT_PLAN_OUTCOMES = ['created', 'updated', 'unsuppressed', 'skipped', 'answered_422', 'refused', 'rejected'] as const;
export type ContactPlanOutcome = (typeof CONTACT_PLAN_OUTCOMES)[number];

/** One row's planned outcome (a line of `--plan-out`). */
export interface PlannedContactRow {
  line: number;
  email: string;
  phone: string;
  /** The existing contact the row reaches; empty for a new one or none. */
  contactId: string;
  outcome: ContactPlanOutcome;
  emailFrom: string;
  emailTo: string;
  smsFrom: string;
  smsTo: string;
  /** `sent` (--welcome-sms), `suppressed` (the move happens, no SMS), or empty. */
  welcomeSms: '' | 'sent' | 'suppressed';
  message: string;
}

export interface ContactPlanOptions {
  ifExists: IfExists;
  welcomeSms: boolean;
}

export interface ContactPlan {
  rows: number;
  outcomes: Record<ContactPlanOutcome, PlanCell>;
  transitions: { email: Transition[]; sms: Transition[] };
  /** Rows that move a contact into SMS subscribed; `sent` tells whether the service sends each a welcome SMS. */
  welcomeSms: PlanCell & { sent: boolean };
  /** Rows whose yes/no column said no and wrote nothing on that channel (a "no" never downgrades). */
  noKept: { email: PlanCell; sms: PlanCell };
}

/** The state shown for a contact that does not exist yet. */
export const NEW = 'new';

/** Reads the account with what earlier rows changed laid over it (the index itself is not changed). */
class Overlay {
  private readonly email = new Map<string, KnownContact | null>();
  private readonly phone = new Map<string, KnownContact | null>();
  constructor(private readonly base: AccountIndex) {}

  /** `k`: the e-mail lower-cased. */
  byEmail(k: string | undefined): KnownContact | undefined {
    if (!k) return undefined;
    const o = this.email.get(k);
    return o === null ? undefined : (o ?? this.base.byEmail.get(k));
  }

  byPhone(p: string | undefined): KnownContact | undefined {
    if (!p) return undefined;
    const o = this.phone.get(p);
    return o === null ? undefined : (o ?? this.base.byPhone.get(p));
  }

  put(before: KnownContact | undefined, after: KnownContact): void {
    if (before?.email && before.email !== after.email) this.email.set(before.email.toLowerCase(), null);
    if (before?.phone && before.phone !== after.phone) this.phone.set(before.phone, null);
    if (after.email) this.email.set(after.email.toLowerCase(), after);
    if (after.phone) this.phone.set(after.phone, after);
  }
}

type Step =
  | { kind: 'write'; outcome: 'created' | 'updated' | 'unsuppressed'; before?: KnownContact; after: KnownContact }
  | { kind: 'stop'; outcome: ContactPlanOutcome; contact?: KnownContact; message: string };

function writesConsent(w: ContactWrite): boolean {
  return w.email_consent !== undefined || w.sms_consent !== undefined;
}

/** The service's write to a stored contact (sandbox applyWrite): checks, suppression lifting, values. */
function applyWrite(state: Overlay, row: KnownContact, w: ContactWrite, outcome: 'updated' | 'unsuppressed'): Step {
  const refused = writeRefusal(state, row, w);
  if (refused) return { kind: 'stop', outcome: 'rejected', contact: row, message: refused };
  const lifts = row.email_consent === 'suppressed' && writesConsent(w);
  let emailConsent: EmailConsent = row.email_consent;
  if (lifts) emailConsent = w.email_consent ?? 'never_subscribed';
  else if (w.email_consent !== undefined) emailConsent = w.email_consent;
  const after: KnownContact = {
    id: row.id,
    email: w.email ?? row.email,
    phone: w.phone ?? row.phone,
    email_consent: emailConsent,
    sms_consent: (w.sms_consent ?? row.sms_consent) as SmsConsent,
  };
  return { kind: 'write', outcome: lifts ? 'unsuppressed' : outcome, before: row, after };
}

/** Why the service refuses a write to a stored contact (400: SMS consent without a phone; 409: a value another contact has), or undefined. */
function writeRefusal(state: Overlay, row: KnownContact, w: ContactWrite): string | undefined {
  if (w.sms_consent !== undefined && smsConsentNeedsPhone(w.sms_consent) && !(w.phone ?? row.phone))
    return `sms_consent ${w.sms_consent} needs a phone (400)`;
  const byEmail = w.email !== undefined && w.email !== row.email ? state.byEmail(w.email.toLowerCase()) : undefined;
  if (byEmail && byEmail.id !== row.id) return `the email belongs to another contact, ${byEmail.id} (409)`;
  const byPhone = w.phone !== undefined && w.phone !== row.phone ? state.byPhone(w.phone) : undefined;
  if (byPhone && byPhone.id !== row.id) return `the phone belongs to another contact, ${byPhone.id} (409)`;
  return undefined;
}

/** POST /v1/contacts, then the importer's answer to a 409 (contacts.ts `existing`). */
function step(state: Overlay, w: ContactWrite, ifExists: IfExists, newId: string): Step {
  const byEmail = state.byEmail(w.email?.toLowerCase());
  const byPhone = state.byPhone(w.phone);
  const compliance = [byEmail, byPhone].find((c) => c?.email_consent === 'compliance_suppressed');
  if (compliance)
    return { kind: 'stop', outcome: 'answered_422', contact: compliance, message: 'compliance-suppressed: any write answers 422' };
  const target = byEmail ?? byPhone;
  if (!target) {
    if (w.sms_consent !== undefined && smsConsentNeedsPhone(w.sms_consent) && !w.phone)
      return { kind: 'stop', outcome: 'rejected', message: `sms_consent ${w.sms_consent} needs a phone (400)` };
    const after: KnownContact = {
      id: newId,
      email: w.email ?? null,
      phone: w.phone ?? null,
      email_consent: (w.email_consent ?? 'never_subscribed') as EmailConsent,
      sms_consent: (w.sms_consent ?? 'never_subscribed') as SmsConsent,
    };
    return { kind: 'write', outcome: 'created', after };
  }
  const single = !byEmail || !byPhone || byEmail.id === byPhone.id;
  // The service's transition row: a consent write to a merchant-suppressed contact lifts the suppression (200).
  if (single && target.email_consent === 'suppressed' && writesConsent(w)) return applyWrite(state, target, w, 'unsuppressed');
  if (ifExists === 'skip') return { kind: 'stop', outcome: 'skipped', contact: target, message: 'exists; not changed (--if-exists skip)' };
  if (ifExists === 'fail') return { kind: 'stop', outcome: 'rejected', contact: target, message: 'exists (--if-exists fail)' };
  return applyWrite(state, target, w, 'updated');
}

/** The plan's counts, added to row by row. */
interface ContactTallies {
  outcomes: Record<ContactPlanOutcome, PlanCell>;
  email: TransitionTable;
  sms: TransitionTable;
  welcome: PlanCell & { sent: boolean };
  noKept: { email: PlanCell; sms: PlanCell };
}

/** Plans every row; `onRow` gets each row's planned outcome in input order (for --plan-out). */
export function planContacts(
  rows: Iterable<ContactWork>,
  account: AccountIndex,
  opts: ContactPlanOptions,
  onRow?: (row: PlannedContactRow) => void,
): ContactPlan {
  const state = new Overlay(account);
  const t: ContactTallies = {
    outcomes: Object.fromEntries(CONTACT_PLAN_OUTCOMES.map((o) => [o, emptyCell()])) as Record<ContactPlanOutcome, PlanCell>,
    email: new TransitionTable(),
    sms: new TransitionTable(),
    welcome: { ...emptyCell(), sent: opts.welcomeSms },
    noKept: { email: emptyCell(), sms: emptyCell() },
  };
  let count = 0;
  for (const work of rows) {
    count++;
    const planned = planContactRow(state, work, opts, t);
    onRow?.(planned);
  }
  const order = [NEW, ...EMAIL_CONSENT_VALUES, ...SMS_CONSENT_VALUES];
  return {
    rows: count,
    outcomes: t.outcomes,
    transitions: { email: t.email.list(order), sms: t.sms.list(order) },
    welcomeSms: t.welcome,
    noKept: t.noKept,
  };
}

/** One row's planned outcome, counted in `t`; a write is laid over `state` for the rows after it. */
function planContactRow(state: Overlay, work: ContactWork, opts: ContactPlanOptions, t: ContactTallies): PlannedContactRow {
  const planned: PlannedContactRow = {
    line: work.line,
    email: work.email,
    phone: work.phone,
    contactId: '',
    outcome: 'refused',
    emailFrom: '',
    emailTo: '',
    smsFrom: '',
    smsTo: '',
    welcomeSms: '',
    message: '',
  };
  const w = work.write;
  if (!w) {
    planned.message = work.problem?.message ?? 'invalid row';
    tally(t.outcomes.refused, work.line);
    return planned;
  }
  for (const ch of work.noKept ?? []) tally(t.noKept[ch], work.line);
  const s = step(state, w, opts.ifExists, `(new, line ${work.line})`);
  planned.outcome = s.outcome;
  tally(t.outcomes[s.outcome], work.line);
  if (s.kind === 'write') {
    recordWrite(planned, s, w, work.line, t);
    state.put(s.before, s.after);
    return planned;
  }
  planned.message = s.message;
  if (s.contact && !s.contact.id.startsWith('(new')) planned.contactId = s.contact.id;
  return planned;
}

/** A planned write's consent moves (and welcome SMS) on its row and in the tallies. */
function recordWrite(planned: PlannedContactRow, s: Step & { kind: 'write' }, w: ContactWrite, line: number, t: ContactTallies): void {
  const { before, after } = s;
  if (before && !before.id.startsWith('(new')) planned.contactId = before.id;
  planned.emailFrom = before?.email_consent ?? NEW;
  planned.emailTo = after.email_consent;
  planned.smsFrom = before?.sms_consent ?? NEW;
  planned.smsTo = after.sms_consent;
  t.email.add(planned.emailFrom, planned.emailTo, line);
  t.sms.add(planned.smsFrom, planned.smsTo, line);
  if (w.sms_consent === 'subscribed' && before?.sms_consent !== 'subscribed') {
    // The move into subscribed: a welcome SMS unless send_welcome_sms is false (every import write carries it).
    planned.welcomeSms = w.send_welcome_sms === false ? 'suppressed' : 'sent';
    tally(t.welcome, line);
  }
  if (s.outcome === 'unsuppressed') planned.message = 'merchant suppression lifted';
}
