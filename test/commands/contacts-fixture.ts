/**
 * Shared set-up of the contacts command tests: a real sandbox over HTTP, a token with every
 * scope, a temporary config folder, and small helpers to run `svc contacts …` in-process.
 */
import type { Contact } from '../../src/contract/types.js';
import { type RunOptions, type RunResult, runCli, tempConfigDir } from '../helpers/run-cli.js';
import { withSandbox } from '../helpers/sandbox.js';

export interface OutboxEntry {
  seq: number;
  type: string;
  contact_id?: string;
}

export interface ContactsFixture {
  env: Record<string, string>;
  baseUrl: string;
  svc(argv: string[], opts?: RunOptions): Promise<RunResult>;
  /** Runs with --json, expects exit 0 and parses stdout. */
  json<T>(argv: string[], opts?: RunOptions): Promise<T>;
  /** Creates a contact with a fresh unique email (plus the given flags). */
  create(flags?: string[]): Promise<Contact>;
  /** A fresh, possible E.164 phone number. */
  phone(): string;
  /** A fresh email address. */
  email(): string;
  forceConsent(id: string, consent: { email_consent?: string; sms_consent?: string }): Promise<unknown>;
  welcomeSms(id: string): Promise<number>;
  /** An API token with only these scopes. */
  tokenWith(scopes: string[]): Promise<string>;
  close(): Promise<void>;
}

let seq = 0;

export async function contactsFixture(): Promise<ContactsFixture> {
  const sb = await withSandbox();
  const token = await sb.tokenWithAllScopes();
  const cfg = tempConfigDir();
  const env = { SVC_CONFIG_DIR: cfg.dir, SVC_BASE_URL: sb.baseUrl, SVC_TOKEN: token };
  const run = (argv: string[], opts: RunOptions = {}) => runCli(argv, { ...opts, env: { ...env, ...(opts.env ?? {}) } });
  const json = async <T>(argv: string[], opts: RunOptions = {}): Promise<T> => {
    const r = await run([...argv, '--json'], opts);
    if (r.code !== 0) throw new Error(`svc ${argv.join(' ')} exited ${r.code}: ${r.stderr}`);
    return JSON.parse(r.stdout) as T;
  };
  const tag = `${process.pid}${Date.now() % 100000}`;
  const email = () => `c${++seq}.${tag}@example.com`;
  const phone = () => `+1415555${String(1000 + (++seq % 9000)).padStart(4, '0')}`;
  return {
    env,
    baseUrl: sb.baseUrl,
    svc: run,
    json,
    email,
    phone,
    create: (flags = []) => json<Contact>(['contacts', 'create', '--email', email(), ...flags]),
    forceConsent: (id, consent) => sb.admin.forceConsent(id, consent),
    tokenWith: async (scopes) => (await sb.admin.createApiToken(scopes)).token,
    async welcomeSms(id) {
      const raw = (await sb.admin.outbox({ type: 'welcome_sms' })) as unknown;
      const list = (Array.isArray(raw) ? raw : (raw as { data: OutboxEntry[] }).data) as OutboxEntry[];
      return list.filter((e) => e.type === 'welcome_sms' && e.contact_id === id).length;
    },
    async close() {
      await sb.close();
      cfg.cleanup();
    },
  };
}
