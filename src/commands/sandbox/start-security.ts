/** `svc sandbox start`'s security options: --allowed-host names checked, and the dashboard's address printed with its admin token. */
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';

/** The query parameter the sandbox exchanges for the dashboard's cookie (src/sandbox/plugins/admin-guard.ts). */
export const ADMIN_TOKEN_PARAM = 'admin_token';

/** Each --allowed-host as a bare host name (no scheme, path or port: the port is always accepted). */
export function allowedHosts(values: string[]): string[] {
  return values.map((value) => {
    const name = value.trim().toLowerCase();
    if (!/^(\[[0-9a-f:.]+\]|[a-z0-9]([a-z0-9.-]{0,251}[a-z0-9])?)$/.test(name) || name === '*')
      throw new UsageError(
        `--allowed-host must be a host name or address without scheme, port or wildcard, got ${JSON.stringify(value)}`,
        'e.g. --allowed-host my-tunnel.example.net',
      );
    return name;
  });
}

/** The dashboard's address: with an admin token, the address carrying it (shown this once). */
export function printDashboard(ctx: Context, baseUrl: string, host: string, port: number, adminToken: string | undefined): void {
  if (!adminToken) {
    ctx.out.stdout(`Dashboard: ${baseUrl}/ (from this machine only)\n`);
    return;
  }
  ctx.out.stdout(`Dashboard: ${baseUrl}/?${ADMIN_TOKEN_PARAM}=${adminToken}\n`);
  if (host === '0.0.0.0' || host === '::')
    ctx.out.stdout(`  from another machine: http://<this machine's address>:${port}/?${ADMIN_TOKEN_PARAM}=${adminToken}\n`);
  ctx.out.info(
    'the admin API and the dashboard require this admin token (shown once; saved for `svc sandbox …` commands on this machine, elsewhere set SVC_SANDBOX_ADMIN_TOKEN)',
  );
}
