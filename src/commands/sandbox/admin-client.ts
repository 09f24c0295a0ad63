/** Talks to a running sandbox's admin API (`/_sandbox/...`) for `svc sandbox outbox` and `reset`. */
import { type StatusKind, statusKind } from '../../client/errors.js';
import { plainRequest } from '../../client/plain.js';
import { displayProxy, proxyFor } from '../../client/proxy.js';
import type { Context } from '../../context.js';
import { CliError, EXIT, UsageError } from '../../errors.js';
import { resolveBaseUrl, validateBaseUrl } from '../../store/settings.js';
import { runProxy } from '../../wiring/client.js';
import { SANDBOX_PROFILE } from '../../wiring/sandbox.js';
import { ADMIN_TOKEN_ENV, adminTokenHeaders } from './admin-token.js';

export { SANDBOX_PROFILE };

/**
 * --sandbox: the embedded sandbox (started for this run, on its persistent data); else
 * --base-url > SVC_BASE_URL > the profile chosen with --profile/SVC_PROFILE > the `sandbox`
 * profile > the default profile's base_url.
 */
export async function sandboxBaseUrl(ctx: Context): Promise<string> {
  if (ctx.settings.sandbox) return (await ctx.client()).baseUrl;
  const fromFlagOrEnv = resolveBaseUrl(ctx.flags, ctx.env, undefined);
  let raw = fromFlagOrEnv.value;
  if (raw === undefined) {
    const store = await ctx.store();
    // Only a profile named on this run (--profile, SVC_PROFILE) goes before the `sandbox` profile;
    // the default one (even when set with `svc auth switch`) is usually the real service.
    const explicit = ctx.settings.profileSource === 'flag' || ctx.settings.profileSource === 'env';
    const chosen = explicit ? store.getProfile(ctx.settings.profile)?.base_url : undefined;
    raw = chosen ?? store.getProfile(SANDBOX_PROFILE)?.base_url ?? store.getProfile(ctx.settings.profile)?.base_url;
  }
  if (raw === undefined) {
    throw new UsageError(
      'no sandbox address: give --base-url, set SVC_BASE_URL, use --sandbox for the embedded one, or start one with `svc sandbox start --seed` (it saves the `sandbox` profile)',
    );
  }
  return validateBaseUrl(raw, ctx.settings.insecure);
}

/** One admin call; the answer's JSON, or a CliError (exit 1) naming what failed. */
export async function adminCall(ctx: Context, baseUrl: string, method: string, path: string, body?: unknown): Promise<unknown> {
  const text = await adminText(ctx, baseUrl, method, path, body);
  try {
    return text ? JSON.parse(text) : undefined;
  } catch {
    return undefined;
  }
}

/** One admin call; the answer's text as sent (an export), or a CliError (exit 1) naming what failed. */
export async function adminText(ctx: Context, baseUrl: string, method: string, path: string, body?: unknown): Promise<string> {
  let res: { status: number; text: string };
  // The embedded sandbox (--sandbox) runs in this process: always reached directly.
  const proxy = ctx.settings.sandbox ? undefined : runProxy(ctx);
  ctx.log.debug(`${method} ${baseUrl}/_sandbox${path}`);
  const tokenHeaders = await adminTokenHeaders(ctx, baseUrl);
  try {
    res = await plainRequest({ method, url: `${baseUrl}/_sandbox${path}`, json: body, headers: tokenHeaders, signal: ctx.signal, proxy });
  } catch (e) {
    if (ctx.signal.aborted) throw e;
    throw unreachable(e, baseUrl, proxy);
  }
  ctx.log.debug(`${method} ${baseUrl}/_sandbox${path} → ${res.status}`);
  const kind = statusKind(res.status);
  if (kind !== 'ok' && kind !== 'created') throw refused(res, kind, baseUrl);
  return res.text;
}

/** No answer at all: the address (and the proxy on the way, if any) named, and how to start one. */
function unreachable(e: unknown, baseUrl: string, proxy: ReturnType<typeof runProxy> | undefined): CliError {
  const via = proxy !== undefined ? proxyFor(baseUrl, proxy) : undefined;
  const through = via !== undefined ? ` through the proxy ${displayProxy(via)}` : '';
  return new CliError(`no sandbox answers at ${baseUrl}${through} (${(e as Error).message})`, {
    exitCode: EXIT.failure,
    code: 'sandbox_unreachable',
    hint: 'start one with `svc sandbox start`, or point --base-url at a running sandbox',
    cause: e,
  });
}

/** What to do after a refusal, by kind: a 404 questions the address, a 401 names the admin token. */
const REFUSAL_HINTS: Partial<Record<StatusKind, string>> = {
  not_found: 'is this address a svc sandbox? the admin API answers on loopback only',
  unauthorized: `set ${ADMIN_TOKEN_ENV} to the admin token \`svc sandbox start --admin-token\` printed`,
};

/** An answer other than 200/201: the sandbox's own error code and message when it gave them. */
function refused(res: { status: number; text: string }, kind: StatusKind, baseUrl: string): CliError {
  let parsed: unknown;
  try {
    parsed = res.text ? JSON.parse(res.text) : undefined;
  } catch {
    parsed = undefined;
  }
  const err = (parsed as { error?: { code?: string; message?: string } } | undefined)?.error;
  return new CliError(`the sandbox at ${baseUrl} answered ${res.status}${err?.message ? `: ${err.message}` : ''}`, {
    exitCode: kind === 'invalid' ? EXIT.usage : EXIT.failure,
    code: err?.code ?? `http_${res.status}`,
    hint: REFUSAL_HINTS[kind],
  });
}

/** A side effect as GET /_sandbox/outbox lists it (the fields the outbox commands print). */
export interface SideEffect {
  seq: number;
  type: string;
  business_id: string;
  contact_id?: string;
  order_id?: string;
  event_id?: string;
  trigger?: string;
  created_at: string;
}
