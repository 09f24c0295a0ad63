/**
 * A fresh sandbox per test (port 0, in-memory db unless given), with helpers that drive its
 * admin API (`/_sandbox/...`) over real HTTP, as a user of the dashboard would. Every answer is
 * checked against the OpenAPI document; close() fails the test file when one was off it.
 */
import { networkInterfaces } from 'node:os';
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { SCOPES } from '../../src/contract/scopes.js';
import type { FaultSettings } from '../../src/sandbox/faults.js';
import { startSandbox } from '../../src/sandbox/index.js';
import { answerProblem } from './openapi-conformance.js';

export interface SandboxAdmin {
  createApp(scopes: string[], business_id?: string): Promise<{ client_id: string; client_secret: string; scopes: string[] }>;
  createApiToken(scopes?: string[], business_id?: string): Promise<{ id: string; token: string; scopes: string[] }>;
  revokeApiToken(id: string): Promise<void>;
  revokeAppTokens(client_id: string): Promise<void>;
  regenerateSecret(client_id: string): Promise<{ client_secret: string }>;
  createBusiness(name: string, available_scopes?: string[]): Promise<{ id: string }>;
  createIntegration(name?: string, business_id?: string): Promise<{ id: string; token: string }>;
  revealIntegrationToken(id: string): Promise<{ token: string }>;
  setIntegrationActive(id: string, active: boolean): Promise<void>;
  forceConsent(contactId: string, values: { email_consent?: string; sms_consent?: string }): Promise<void>;
  createFlow(event_type: string, name?: string, business_id?: string): Promise<{ id: string }>;
  // biome-ignore lint/suspicious/noExplicitAny: side effects are loosely shaped records
  outbox(query?: { type?: string; business_id?: string; after?: number }): Promise<Array<Record<string, any>>>;
  // biome-ignore lint/suspicious/noExplicitAny: the stored order, for checks
  order(order_id: string, business_id?: string): Promise<Record<string, any> | undefined>;
  setFaults(faults: FaultSettings): Promise<void>;
  reset(): Promise<void>;
}

export interface TestSandbox {
  baseUrl: string;
  port: number;
  /** Stops the sandbox; rejects when it gave an answer its OpenAPI document does not describe. */
  close(): Promise<void>;
  /** Answers so far that the OpenAPI document does not describe (checked on every answer). */
  offDocument: string[];
  admin: SandboxAdmin;
  /** A new API token with every scope. */
  tokenWithAllScopes(): Promise<string>;
}

export interface WithSandboxOptions {
  tokenTtlSeconds?: number;
  db?: string;
  /** A fixed port (default: any free one), e.g. to start a stopped sandbox again where it was. */
  port?: number;
  now?: () => number;
  random?: () => number;
}

// biome-ignore lint/suspicious/noExplicitAny: admin answers are checked by the callers
async function call(baseUrl: string, method: string, path: string, body?: unknown): Promise<any> {
  const res = await fetch(`${baseUrl}/_sandbox${path}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  const parsed = text ? JSON.parse(text) : undefined;
  if (!res.ok) {
    const err = new Error(`admin ${method} ${path} answered ${res.status}: ${text}`) as Error & { status: number; body: unknown };
    err.status = res.status;
    err.body = parsed;
    throw err;
  }
  return parsed;
}

export async function withSandbox(opts: WithSandboxOptions = {}): Promise<TestSandbox> {
  const offDocument: string[] = [];
  const sb = await startSandbox({
    onAnswer: (answer) => {
      const problem = answerProblem(answer);
      if (problem) offDocument.push(problem);
    },
    port: opts.port ?? 0,
    db: opts.db ?? ':memory:',
    tokenTtlSeconds: opts.tokenTtlSeconds,
    now: opts.now,
    random: opts.random,
  });
  const u = sb.baseUrl;
  const biz = (business_id?: string) => (business_id === undefined ? {} : { business_id });
  const admin: SandboxAdmin = {
    createApp: (scopes, business_id) => call(u, 'POST', '/apps', { name: 'Test app', scopes, ...biz(business_id) }),
    createApiToken: (scopes, business_id) =>
      call(u, 'POST', '/api-tokens', { name: 'Test token', ...(scopes ? { scopes } : {}), ...biz(business_id) }),
    revokeApiToken: async (id) => {
      await call(u, 'DELETE', `/api-tokens/${encodeURIComponent(id)}`);
    },
    revokeAppTokens: async (client_id) => {
      await call(u, 'DELETE', `/apps/${encodeURIComponent(client_id)}/tokens`);
    },
    regenerateSecret: (client_id) => call(u, 'POST', `/apps/${encodeURIComponent(client_id)}/secret`),
    createBusiness: (name, available_scopes) => call(u, 'POST', '/businesses', { name, ...(available_scopes ? { available_scopes } : {}) }),
    createIntegration: (name, business_id) => call(u, 'POST', '/integrations', { name: name ?? 'Test integration', ...biz(business_id) }),
    revealIntegrationToken: (id) => call(u, 'GET', `/integrations/${encodeURIComponent(id)}/token`),
    setIntegrationActive: async (id, active) => {
      await call(u, 'PATCH', `/integrations/${encodeURIComponent(id)}`, { active });
    },
    forceConsent: async (contactId, values) => {
      await call(u, 'PUT', `/contacts/${encodeURIComponent(contactId)}/consent`, values);
    },
    createFlow: (event_type, name, business_id) =>
      call(u, 'POST', '/flows', { event_type, ...(name ? { name } : {}), ...biz(business_id) }),
    outbox: async (query = {}) => {
      const params = new URLSearchParams();
      if (query.type) params.set('type', query.type);
      if (query.business_id) params.set('business_id', query.business_id);
      if (query.after !== undefined) params.set('after', String(query.after));
      const qs = params.toString();
      return (await call(u, 'GET', `/outbox${qs ? `?${qs}` : ''}`)).data;
    },
    order: async (order_id, business_id) => {
      try {
        return await call(
          u,
          'GET',
          `/orders/${encodeURIComponent(order_id)}${business_id ? `?business_id=${encodeURIComponent(business_id)}` : ''}`,
        );
      } catch (e) {
        if ((e as { status?: number }).status === 404) return undefined;
        throw e;
      }
    },
    setFaults: async (faults) => {
      await call(u, 'PUT', '/faults', faults);
    },
    reset: async () => {
      await call(u, 'POST', '/reset');
    },
  };
  return {
    baseUrl: u,
    port: sb.port,
    close: async () => {
      await sb.close();
      if (offDocument.length > 0)
        throw new Error(`the sandbox answered outside its OpenAPI document:\n${[...new Set(offDocument)].slice(0, 20).join('\n')}`);
    },
    offDocument,
    admin,
    tokenWithAllScopes: async () => (await admin.createApiToken([...SCOPES])).token,
  };
}

export interface HttpAnswer {
  status: number;
  headers: Headers;
  // biome-ignore lint/suspicious/noExplicitAny: tests inspect loosely
  body: any;
  text: string;
}

/** A raw request to the sandbox: JSON body unless `raw` is given; parses a JSON answer. */
export async function http(
  baseUrl: string,
  method: string,
  path: string,
  opts: { token?: string; json?: unknown; raw?: string | Buffer; headers?: Record<string, string> } = {},
): Promise<HttpAnswer> {
  const headers: Record<string, string> = {};
  if (opts.token !== undefined) headers.authorization = `Bearer ${opts.token}`;
  if (opts.json !== undefined) headers['content-type'] = 'application/json';
  Object.assign(headers, opts.headers);
  const res = await fetch(`${baseUrl}${path}`, {
    method,
    headers,
    body: opts.raw !== undefined ? opts.raw : opts.json !== undefined ? JSON.stringify(opts.json) : undefined,
  });
  const text = await res.text();
  let body: unknown;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    body = undefined;
  }
  return { status: res.status, headers: res.headers, body, text };
}

/** Posts a token request (form-encoded) and returns the answer. */
export function tokenRequest(baseUrl: string, form: Record<string, string>, headers: Record<string, string> = {}): Promise<HttpAnswer> {
  return http(baseUrl, 'POST', '/oauth/token', {
    raw: new URLSearchParams(form).toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
  });
}

/** An IPv4 address of this machine other than loopback (undefined on a machine without one). */
export const externalAddress = Object.values(networkInterfaces())
  .flat()
  .find((i) => i && i.family === 'IPv4' && !i.internal)?.address;

export interface SandboxFixture {
  /** The file's sandbox (read inside tests and hooks: it is set once the file's beforeAll ran). */
  readonly sb: TestSandbox;
  /** An API token with every scope (a fresh one before each test with `resetEach`). */
  readonly token: string;
  /** Resets the sandbox now and makes a fresh token (what `resetEach` does before each test). */
  reset(): Promise<void>;
}

export interface UseSandboxOptions extends WithSandboxOptions {
  /** Reset the sandbox (POST /_sandbox/reset) and make a fresh token before each test. */
  resetEach?: boolean;
}

/**
 * One sandbox for a whole test file (started before its tests, stopped after) and a token with
 * every scope. Read `fx.sb` and `fx.token` inside tests and hooks (`const fx = useSandbox();`), or
 * have them handed to `set` once started: `useSandbox((s) => ({ sb, token } = s));`.
 */
export function useSandbox(set?: (s: { sb: TestSandbox; token: string }) => void, opts: UseSandboxOptions = {}): SandboxFixture {
  let sb: TestSandbox | undefined;
  let token = '';
  const { resetEach, ...start } = opts;
  beforeAll(async () => {
    sb = await withSandbox(start);
    token = await sb.tokenWithAllScopes();
    set?.({ sb, token });
  });
  afterAll(() => sb?.close());
  const reset = async () => {
    if (!sb) return;
    await sb.admin.reset();
    token = await sb.tokenWithAllScopes();
    set?.({ sb, token });
  };
  if (resetEach) beforeEach(reset);
  return {
    reset,
    get sb() {
      if (!sb) throw new Error('the sandbox is not started yet: read fx.sb inside a test or hook');
      return sb;
    },
    get token() {
      return token;
    },
  };
}
