/**
 * svc sandbox deprecations: the deprecated or removed usages a running sandbox saw, per
 * credential (GET /_sandbox/deprecations). Exit 0; with --fail-on-any, exit 1 when there is one
 * (for CI: "our integration uses nothing deprecated").
 */
import type { Context } from '../../context.js';
import { CliError, EXIT } from '../../errors.js';
import type { Column } from '../../io/output.js';
import { adminCall, sandboxBaseUrl } from './admin-client.js';
import { credentialText, type LoggedRequest } from './request-lines.js';

export interface DeprecationsOptions {
  businessId?: string;
  failOnAny?: boolean;
}

interface Usage {
  code: string;
  status: string;
  what: string;
  replacement: string;
  business_id: string | null;
  credential: LoggedRequest['credential'];
  count: number;
  first_seen: string;
  last_seen: string;
  example_request_id: string;
  example: string;
}

const COLUMNS: Column<Usage>[] = [
  { header: 'USAGE', get: (u) => u.code, noTruncate: true, priority: 100 },
  { header: 'STATUS', get: (u) => u.status, priority: 60 },
  { header: 'CREDENTIAL', get: (u) => credentialText(u.credential), maxWidth: 32, priority: 90 },
  { header: 'COUNT', get: (u) => u.count, priority: 95 },
  { header: 'FIRST SEEN', get: (u) => u.first_seen, noTruncate: true, priority: 40 },
  { header: 'LAST SEEN', get: (u) => u.last_seen, noTruncate: true, priority: 50 },
  { header: 'EXAMPLE REQUEST', get: (u) => u.example_request_id, noTruncate: true, priority: 70 },
  { header: 'USE INSTEAD', get: (u) => u.replacement, maxWidth: 60, priority: 80 },
];

export async function run(_args: string[], opts: DeprecationsOptions, ctx: Context): Promise<number> {
  const baseUrl = await sandboxBaseUrl(ctx);
  const q = opts.businessId === undefined ? '' : `?${new URLSearchParams({ business_id: opts.businessId })}`;
  const { data } = (await adminCall(ctx, baseUrl, 'GET', `/deprecations${q}`)) as { data: Usage[] };
  const writer = await ctx.out.list(ctx.out.defaultFormat(ctx.settings.json), COLUMNS);
  writer.writePage(data);
  writer.end();
  if (data.length === 0) {
    if (!ctx.settings.json && ctx.policy.humanStdout) ctx.out.info('no deprecated or removed usage seen');
    return EXIT.ok;
  }
  if (opts.failOnAny) {
    const total = data.reduce((n, u) => n + u.count, 0);
    throw new CliError(
      `${total} request${total === 1 ? '' : 's'} used something deprecated or removed (${data.map((u) => u.code).join(', ')})`,
      {
        exitCode: EXIT.failure,
        code: 'deprecated_usage',
        hint: 'look one up with `svc sandbox logs --request-id ID`; the USE INSTEAD column says what to change',
      },
    );
  }
  return EXIT.ok;
}
