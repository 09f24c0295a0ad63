/**
 * svc sandbox replay REQUEST_ID: a logged request sent again by the sandbox itself (POST
 * /_sandbox/requests/{id}/replay), with the credential it carried; the new request is logged as
 * its replay. Prints the new request as `svc sandbox logs` does.
 */
import type { Context } from '../../context.js';
import { EXIT } from '../../errors.js';
import { adminCall, sandboxBaseUrl } from './admin-client.js';
import { headerLine, layoutFor, requestLines } from './request-layout.js';
import type { LoggedRequest } from './request-lines.js';

interface Replayed {
  request_id: string;
  replay_of: string;
  status: number;
  request: LoggedRequest | null;
}

export async function run([requestId]: [string], _opts: object, ctx: Context): Promise<number> {
  const baseUrl = await sandboxBaseUrl(ctx);
  const r = (await adminCall(ctx, baseUrl, 'POST', `/requests/${encodeURIComponent(requestId)}/replay`, {})) as Replayed;
  if (ctx.settings.json) {
    ctx.out.json(r);
    return EXIT.ok;
  }
  if (ctx.policy.humanStdout && r.request) {
    const layout = layoutFor(ctx.io.columns ?? 80);
    ctx.out.stdout(`${headerLine(layout)}${requestLines(r.request, layout).join('\n')}\n`);
    ctx.out.info(`replayed ${r.replay_of} as ${r.request_id} (details: svc sandbox logs --request-id ${r.request_id})`);
  } else ctx.out.stdout(`${r.request_id}\t${r.status}\t${r.replay_of}\n`);
  return EXIT.ok;
}
