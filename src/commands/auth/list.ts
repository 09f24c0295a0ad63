/**
 * svc auth list: the stored profiles, which one this run would use (active) and which one is the
 * default, with base URL and method — like `gh auth status` across accounts. Never a secret: only
 * names, addresses, the method and a client id are read out of each profile.
 */
import type { Context } from '../../context.js';
import type { Column } from '../../io/output.js';
import { DEFAULT_PROFILE, envValue } from '../../store/settings.js';
import type { Profile } from '../../store/store.js';
import { EMBEDDED_SANDBOX_PROFILE } from '../../wiring/sandbox.js';

export interface ListOptions {
  names?: boolean;
}

interface ProfileRow {
  name: string;
  active: boolean;
  default: boolean;
  base_url: string | null;
  method: 'api_token' | 'client_credentials' | null;
  client_id: string | null;
  logged_in: boolean;
  /** The profile `--sandbox` keeps the embedded sandbox's application in (no address: it starts per run). */
  embedded_sandbox: boolean;
}

const METHOD_TEXT: Record<string, string> = { api_token: 'API token', client_credentials: 'client credentials' };

const COLUMNS: Column<ProfileRow>[] = [
  { header: '', get: (r) => (r.active ? '*' : ''), noTruncate: true },
  { header: 'profile', get: (r) => r.name + (r.default ? ' (default)' : ''), noTruncate: true },
  { header: 'base url', get: (r) => r.base_url ?? (r.embedded_sandbox ? '(embedded sandbox: --sandbox)' : '') },
  {
    header: 'method',
    get: (r) =>
      r.method ? `${METHOD_TEXT[r.method]}${r.client_id ? ` (client ${r.client_id})` : ''}` : r.logged_in ? '' : 'not logged in',
  },
];

function row(name: string, p: Profile, active: string, dflt: string): ProfileRow {
  const method = p.auth_method ?? (p.api_token ? 'api_token' : p.client_id ? 'client_credentials' : undefined);
  const loggedIn = method === 'api_token' ? Boolean(p.api_token) : method === 'client_credentials' ? Boolean(p.client_secret) : false;
  return {
    name,
    active: name === active,
    default: name === dflt,
    base_url: p.base_url ?? null,
    method: loggedIn && method ? method : null,
    client_id: loggedIn && method === 'client_credentials' ? (p.client_id ?? null) : null,
    logged_in: loggedIn,
    embedded_sandbox: name === EMBEDDED_SANDBOX_PROFILE,
  };
}

export async function run(_args: [], opts: ListOptions, ctx: Context): Promise<number> {
  const store = await ctx.store();
  const names = store.listProfiles();
  // The completion scripts' helper: the names alone, one a line.
  if (opts.names) {
    ctx.out.stdout(names.map((n) => `${n}\n`).join(''));
    return 0;
  }
  const dflt = store.defaultProfile() ?? DEFAULT_PROFILE;
  const active = ctx.settings.sandbox ? '' : ctx.settings.profile;
  const rows: ProfileRow[] = [];
  for (const name of names) {
    rows.push(row(name, store.getProfile(name) ?? {}, active, dflt));
  }
  const writer = await ctx.out.list(ctx.out.defaultFormat(ctx.settings.json), COLUMNS);
  writer.writePage(rows);
  writer.end();
  if (!ctx.settings.json && ctx.policy.humanStdout) printLegend(ctx, names);
  if (!ctx.settings.json && !names.includes(ctx.settings.profile) && !ctx.settings.sandbox && rows.length > 0)
    ctx.log.warn(
      `the profile in use, ${ctx.settings.profile}, is not stored: \`svc auth login --profile ${ctx.settings.profile}\` creates it`,
    );
  const env = ['SVC_TOKEN', 'SVC_CLIENT_ID', 'SVC_CLIENT_SECRET'].filter((n) => envValue(ctx.env, n) !== undefined);
  if (env.length) ctx.log.warn(`${env.join(', ')} is set and takes precedence over the stored credentials of every profile`);
  return 0;
}

/** Under the table, for a person: what the star means and what the embedded sandbox's profile is. */
function printLegend(ctx: Context, names: string[]): void {
  if (names.length === 0) {
    ctx.out.info('no profile is stored yet: `svc auth login` creates one');
    return;
  }
  const why = ctx.settings.profileSource === 'flag' ? ' (--profile)' : ctx.settings.profileSource === 'env' ? ' (SVC_PROFILE)' : '';
  ctx.out.info(`* the profile this command would use${why}; change the default with \`svc auth switch NAME\``);
  if (names.includes(EMBEDDED_SANDBOX_PROFILE)) {
    ctx.out.info(
      `${EMBEDDED_SANDBOX_PROFILE}: written by \`svc --sandbox …\`, the embedded sandbox's application (\`svc auth logout --profile ${EMBEDDED_SANDBOX_PROFILE}\` forgets it)`,
    );
  }
}
