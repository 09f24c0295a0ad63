/**
 * svc sandbox logs --har FILE / --ndjson: every logged request matching the filters, oldest
 * first, from GET /_sandbox/requests/export (the dashboard's Export button uses it too). HAR 1.2
 * opens in browser devtools and HAR viewers; bodies and credentials come masked.
 */
import { writeFile } from 'node:fs/promises';
import type { Context } from '../../context.js';
import { CliError, EXIT } from '../../errors.js';
import { adminText } from './admin-client.js';

export async function exportLog(ctx: Context, baseUrl: string, query: URLSearchParams, harFile: string | undefined): Promise<number> {
  const q = new URLSearchParams(query);
  q.set('format', harFile === undefined ? 'ndjson' : 'har');
  const text = await adminText(ctx, baseUrl, 'GET', `/requests/export?${q}`);
  if (harFile === undefined || harFile === '-') {
    ctx.out.stdout(text.endsWith('\n') || text === '' ? text : `${text}\n`);
    return EXIT.ok;
  }
  try {
    await writeFile(harFile, text.endsWith('\n') ? text : `${text}\n`);
  } catch (e) {
    throw new CliError(`cannot write ${harFile}: ${(e as Error).message}`, { exitCode: EXIT.failure, code: 'write_failed', cause: e });
  }
  const count = (JSON.parse(text) as { log: { entries: unknown[] } }).log.entries.length;
  if (!ctx.settings.json) ctx.out.info(`wrote ${count} request(s) to ${harFile} (HAR 1.2)`);
  else ctx.out.json({ file: harFile, format: 'har', entries: count });
  return EXIT.ok;
}
