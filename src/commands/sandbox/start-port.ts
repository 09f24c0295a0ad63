/**
 * Which port `svc sandbox start` listens on, so that a sandbox keeps its address across restarts:
 * `--port N` always (0: a free one); else the port of its profile (the one named with --profile or
 * SVC_PROFILE, else `sandbox`) when that profile is on this machine; else DEFAULT_SANDBOX_PORT.
 * When that port is taken: by another running sandbox, this one takes a free port and the
 * profiles stay with the running one; by anything else, this one takes a free port and the
 * profiles that pointed at the old address are moved to the new one, which it says.
 */
import { statusKind } from '../../client/errors.js';
import { plainRequest } from '../../client/plain.js';
import type { Context } from '../../context.js';
import { isLoopbackHost } from '../../store/settings.js';
import { SANDBOX_PROFILE } from './admin-client.js';

/** The port of a new sandbox whose profile names none (docs/sandbox.md). */
export const DEFAULT_SANDBOX_PORT = 8787;

export interface PortChoice {
  port: number;
  /** True when --port named it: a port in use is then an error, never a move. */
  explicit: boolean;
  /** The profile whose address this port keeps, if one, and its base URL as written there. */
  profile?: string;
  profileUrl?: string;
}

function loopbackPort(baseUrl: string | undefined): number | undefined {
  if (baseUrl === undefined) return undefined;
  try {
    const u = new URL(baseUrl);
    if (u.protocol !== 'http:' || !isLoopbackHost(u.hostname.replace(/^\[|\]$/g, '')) || u.port === '') return undefined;
    return Number(u.port);
  } catch {
    return undefined;
  }
}

/** The port to try first (see the module comment); `flagPort` is --port, parsed. */
export async function preferredPort(ctx: Context, flagPort: number | undefined): Promise<PortChoice> {
  if (flagPort !== undefined) return { port: flagPort, explicit: true };
  const store = await ctx.store();
  const explicit = ctx.settings.profileSource === 'flag' || ctx.settings.profileSource === 'env';
  for (const name of explicit ? [ctx.settings.profile, SANDBOX_PROFILE] : [SANDBOX_PROFILE]) {
    const profileUrl = store.getProfile(name)?.base_url;
    const port = loopbackPort(profileUrl);
    if (port !== undefined) return { port, explicit: false, profile: name, profileUrl };
  }
  return { port: DEFAULT_SANDBOX_PORT, explicit: false };
}

/** True when a sandbox answers at `baseUrl` (its admin API, even refusing): the port is its, not a stranger's. */
export async function sandboxAnswersAt(baseUrl: string, signal: AbortSignal): Promise<boolean> {
  try {
    const res = await plainRequest({
      method: 'GET',
      url: `${baseUrl}/_sandbox/faults`,
      signal: AbortSignal.any([signal, AbortSignal.timeout(5_000)]),
    });
    return ['ok', 'unauthorized', 'forbidden'].includes(statusKind(res.status));
  } catch {
    return false;
  }
}

/**
 * After a move from `from` to `to`: the profiles pointing at the old address now point at the new
 * one (none when another sandbox holds the old port: they are that sandbox's). Returns the line
 * to print on stderr.
 */
export async function afterMove(ctx: Context, from: string, to: string, port: number, profileUrl?: string): Promise<string> {
  if (await sandboxAnswersAt(from, ctx.signal)) {
    return `port ${port} is taken by another running sandbox (its profiles stay with it): listening on ${to} instead`;
  }
  const store = await ctx.store();
  const olds = [...new Set([from, ...(profileUrl ? [profileUrl.replace(/\/+$/, '')] : [])])];
  const moved = [...new Set(olds.flatMap((old) => store.moveBaseUrl(old, to)))].sort();
  const what =
    moved.length === 0
      ? 'no profile pointed at it'
      : `profile${moved.length > 1 ? 's' : ''} ${moved.map((m) => `\`${m}\``).join(', ')} now point${moved.length > 1 ? '' : 's'} at ${to}`;
  return `port ${port} is in use by another program: the sandbox moved to ${to}; ${what}`;
}
